"""Benchmark: the GitHub sync against a fake GitHub on loopback (``tests/sync/fake_github.py``) over the embedded
DynamoDB, with the real demo tournament files laid out as ``Tournaments/MTGO/YYYY/MM/DD/<name>.json``.

Scenarios, each on fresh tables:

1. a typical day: the cursor at yesterday's commit, one new commit adding ``--day-files`` files;
2. the run after it, with nothing new (one request, no write);
3. a first sync of every demo file, one commit per tournament day, from the first day on.

Prints a table: commits, files listed and ingested, requests sent (retries included), seconds and files
ingested per second. ``--latency-ms`` delays every answer of the fake GitHub (the real one answers in tens
of milliseconds; raw files are read four at a time, so that latency mostly overlaps the ingest).

Run: .venv/bin/python bench/sync.py [--day-files 30] [--latency-ms 0]
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tarfile
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the fake GitHub lives with the tests

from tests.sync.fake_github import FakeGitHub, FakeRepository, serving  # noqa: E402

from meta_mage.archetypes.classifier import get_classifier  # noqa: E402
from meta_mage.config import DEMO_DATA_DIR, Settings  # noqa: E402
from meta_mage.local.embedded import embedded_dynamodb  # noqa: E402
from meta_mage.storage.dynamo import dynamodb_resource  # noqa: E402
from meta_mage.storage.meta import MetaRepository  # noqa: E402
from meta_mage.storage.tables import create_tables  # noqa: E402
from meta_mage.sync.github import GitHubClient  # noqa: E402
from meta_mage.sync.run import SyncReport, sync  # noqa: E402
from meta_mage.sync.upstream import GitHubUpstream  # noqa: E402

START = dt.datetime(2025, 10, 1, 6, tzinfo=dt.UTC)


def demo_files() -> dict[str, bytes]:
    """The bundled demo tournaments at their archive paths (``Tournaments/MTGO/YYYY/MM/DD/...``)."""
    with tarfile.open(DEMO_DATA_DIR / "tournaments.tar.gz") as archive:
        found = {}
        for member in archive.getmembers():
            handle = archive.extractfile(member)
            if handle is not None and member.name.startswith("Tournaments/"):
                found[member.name] = handle.read()
        return dict(sorted(found.items()))


def by_day(files: dict[str, bytes]) -> list[dict[str, bytes]]:
    """The files grouped by their folder's date, oldest first: one automatic commit per day."""
    days: dict[str, dict[str, bytes]] = defaultdict(dict)
    for path, data in files.items():
        days["/".join(path.split("/")[2:5])][path] = data
    return [days[key] for key in sorted(days)]


@contextmanager
def fresh_meta(name: str) -> Iterator[MetaRepository]:
    """A MetaRepository over new tables named after the scenario, in the running embedded DynamoDB."""
    settings = Settings(
        meta_table=f"{name}-meta",
        cards_table=f"{name}-cards",
        drafts_table=f"{name}-drafts",
        checkpoint_table=f"{name}-checkpoints",
        locks_table=f"{name}-locks",
    )
    db = dynamodb_resource(settings)
    create_tables(db, settings)
    yield MetaRepository(db.Table(settings.meta_table))


def run(github: FakeGitHub, meta: MetaRepository, since: dt.date | None = None) -> SyncReport:
    client = GitHubClient(github.repository.full_name, api_url=github.api_url, raw_url=github.raw_url)
    classifier = get_classifier(Settings().archetype_rules_dir)
    return sync(GitHubUpstream(client, github.repository.branch), meta, classifier, since=since)


def typical_day(files: dict[str, bytes], count: int, latency: float) -> list[tuple[str, SyncReport]]:
    """Yesterday's commit already synced, one commit adding ``count`` files, then a run with nothing new."""
    repository = FakeRepository()
    items = list(files.items())
    yesterday = repository.commit(dict(items[count:]), START)
    repository.commit(dict(items[:count]), START + dt.timedelta(days=1))
    with serving(FakeGitHub(repository, latency)) as github, fresh_meta("day") as meta:
        meta.advance_sync_cursor(repository.full_name, repository.branch, yesterday.sha, None)
        day = run(github, meta)
        again = run(github, meta)
    return [(f"typical day: 1 commit, {count} new files", day), ("the next run: nothing new", again)]


def first_sync(files: dict[str, bytes], latency: float) -> tuple[str, SyncReport]:
    """Every demo file, one commit per tournament day, synced from the first day."""
    repository = FakeRepository()
    for number, day_files in enumerate(by_day(files)):
        changes: dict[str, bytes | None] = dict(day_files)
        repository.commit(changes, START + dt.timedelta(days=number))
    with serving(FakeGitHub(repository, latency)) as github, fresh_meta("first") as meta:
        report = run(github, meta, since=START.date())
    return f"first sync: all {len(files)} demo files", report


def table(rows: list[tuple[str, SyncReport]], latency_ms: float) -> Table:
    out = Table(title=f"meta-mage sync over a loopback GitHub ({latency_ms:g} ms per answer) and embedded DynamoDB")
    for column in ("scenario", "commits", "listed", "ingested", "failed", "requests", "seconds", "files/s"):
        out.add_column(column, justify="left" if column == "scenario" else "right")
    for name, report in rows:
        rate = report.ingested / report.seconds if report.ingested and report.seconds else 0.0
        out.add_row(
            name,
            str(report.commits),
            str(report.listed),
            str(report.ingested),
            str(len(report.failures)),
            str(report.requests),
            f"{report.seconds:.2f}",
            f"{rate:.1f}" if rate else "-",
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--day-files", type=int, default=30)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    args = parser.parse_args()
    files = demo_files()
    latency = args.latency_ms / 1000
    get_classifier(Settings().archetype_rules_dir)  # loaded once per process: not part of a run
    with embedded_dynamodb():
        rows = [*typical_day(files, args.day_files, latency), first_sync(files, latency)]
    Console(width=120).print(table(rows, args.latency_ms))
    return 0 if all(report.ok for _, report in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
