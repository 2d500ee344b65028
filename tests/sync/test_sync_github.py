"""The sync end to end: the GitHub client over a real loopback HTTP server, the moto MetaTable, real files."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

import pytest

from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import Settings
from meta_mage.ingest.files import SourceFile
from meta_mage.ingest.tournament_ingest import ingest_tournament_sources
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.tables import table_definitions
from meta_mage.sync.bounds import Deadline
from meta_mage.sync.github import ChangedFile, RateLimited, next_link
from meta_mage.sync.run import SyncFilter, sync
from meta_mage.sync.upstream import GitHubUpstream, present_paths
from tests.sync.conftest import client, files, run, scan, tournaments_per_format
from tests.sync.fake_github import FakeGitHub, Fault, day

REPO = "fbettega/MTG_decklistcache"


def single_ingest(dynamodb: Any, settings: Settings, stored: dict[str, bytes]) -> dict[str, int]:
    """Tournaments per format after one plain ingest of ``stored`` into a fresh MetaTable (the reference)."""
    definition = table_definitions()["MetaTable"]
    table = dynamodb.create_table(TableName="reference-meta", **definition)
    try:
        repository = MetaRepository(table)
        sources = [SourceFile(path, data) for path, data in stored.items()]
        assert ingest_tournament_sources(sources, repository, get_classifier(settings.archetype_rules_dir)).ok
        return tournaments_per_format(repository)
    finally:
        table.delete()


def test_first_sync_starts_at_the_start_date(github: FakeGitHub, meta: MetaRepository, settings: Settings) -> None:
    # Given three daily commits, the first before the start date
    repo = github.repository
    repo.commit(files(0, 3), day(1))
    repo.commit(files(3, 6), day(2))
    head = repo.commit(files(6, 8), day(3))
    # When the first sync starts on the second day
    report = run(github, meta, settings, since=dt.date(2025, 11, 2))
    # Then the files of the last two commits are stored, pinned at the head, and the cursor is the head
    assert report.ok, report.summary()
    assert (report.commits, report.listed, report.ingested) == (2, 5, 5)
    assert (report.old_cursor, report.new_cursor) == (None, head.sha)
    assert meta.sync_cursor(REPO, "main") == head.sha
    assert sum(tournaments_per_format(meta).values()) == 5
    raw = github.requests_to("/raw/")
    assert len(raw) == 5 and all(f"/{head.sha}/Tournaments/" in entry.path for entry in raw)
    assert report.requests == len(github.log)
    headers = github.log[0].headers
    assert headers["User-Agent"] == "meta-mage-sync/0.1.0" and headers["Accept"] == "application/vnd.github+json"


def test_a_second_run_with_nothing_new_writes_nothing(
    github: FakeGitHub, meta: MetaRepository, settings: Settings
) -> None:
    github.repository.commit(files(0, 4), day(1))
    assert run(github, meta, settings).ok
    before, logged = scan(meta.table), len(github.log)
    # When it runs again with no new commit
    report = run(github, meta, settings)
    # Then it asked for the head only, and the table holds exactly the same items
    assert report.ok and report.old_cursor == report.new_cursor and report.listed == 0
    assert len(github.log) - logged == report.requests == 1
    assert scan(meta.table) == before


def test_the_next_day_ingests_only_the_new_commit(github: FakeGitHub, meta: MetaRepository, settings: Settings) -> None:
    github.repository.commit(files(0, 4), day(1))
    assert run(github, meta, settings).ok
    head = github.repository.commit(files(4, 7), day(2))
    report = run(github, meta, settings)
    assert (report.commits, report.listed, report.ingested, report.unchanged) == (1, 3, 3, 0)
    assert report.new_cursor == head.sha
    assert [entry.path.split("/compare/")[1] for entry in github.requests_to("/compare/")] == [
        f"{github.repository.commits[0].sha}...{head.sha}?"  # the first sync listed the root commit's own files
    ]
    assert sum(tournaments_per_format(meta).values()) == 7


def test_a_rate_limit_is_waited_out(github: FakeGitHub, meta: MetaRepository, settings: Settings) -> None:
    github.repository.commit(files(0, 2), day(1))
    github.faults.append(
        Fault(
            "/commits/main",
            403,
            lambda: {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 1)},
            body={"message": "API rate limit exceeded"},
        )
    )
    started = time.monotonic()
    report = run(github, meta, settings)
    assert report.ok, report.summary()
    assert time.monotonic() - started >= 1.0
    assert [entry.status for entry in github.requests_to("/commits/main")] == [403, 200]


def test_a_rate_limit_beyond_the_allowed_wait_names_its_reset(
    github: FakeGitHub, meta: MetaRepository, settings: Settings
) -> None:
    github.repository.commit(files(0, 2), day(1))
    reset = int(time.time()) + 3600
    github.faults.append(
        Fault("/commits/main", 429, lambda: {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)})
    )
    before = scan(meta.table)
    with pytest.raises(RateLimited) as raised:
        run(github, meta, settings, max_wait_seconds=5)
    assert dt.datetime.fromtimestamp(reset, dt.UTC).isoformat(timespec="seconds") in raised.value.message
    assert scan(meta.table) == before


def test_a_server_error_is_retried(github: FakeGitHub, meta: MetaRepository, settings: Settings) -> None:
    github.repository.commit(files(0, 2), day(1))
    github.faults += [Fault("/commits/main", 502), Fault("/raw/", 503, lambda: {"Retry-After": "0"})]
    report = run(github, meta, settings)
    assert report.ok and report.ingested == 2
    assert [entry.status for entry in github.requests_to("/commits/main")] == [502, 200]
    assert report.requests == len(github.log) == 7  # 2 retries + head, since, the commit and 2 files


def test_a_truncated_file_is_reported_and_the_cursor_moves_on(
    github: FakeGitHub, meta: MetaRepository, settings: Settings
) -> None:
    good = files(0, 3)
    path, data = next(iter(files(3, 4).items()))
    head = github.repository.commit({**good, path: data[: len(data) // 2]}, day(1))
    report = run(github, meta, settings)
    assert not report.ok and not report.retryable
    assert [(f.path, f.retryable) for f in report.failures] == [(path, False)]
    assert "invalid JSON" in report.failures[0].reason
    assert report.ingested == 3 and report.new_cursor == head.sha
    assert f"FAILED {path}: invalid JSON" in report.summary()


def test_more_than_300_changed_files_are_listed_commit_by_commit(
    github: FakeGitHub, meta: MetaRepository, settings: Settings
) -> None:
    # Given two commits changing 330 files in all (the compare API lists 300), 8 of them tournaments
    filler = {f"Players/player-{i:03d}.txt": b"x" for i in range(322)}
    repo = github.repository
    repo.commit({**files(0, 5), **dict(list(filler.items())[:200])}, day(1))
    repo.commit({**files(5, 8), **dict(list(filler.items())[200:])}, day(2))
    # When the first sync covers both
    report = run(github, meta, settings)
    # Then every tournament file is found through each commit's paged file list
    assert report.ok and (report.listed, report.ingested) == (8, 8)
    pages = [entry.path for entry in github.requests_to(f"/commits/{repo.commits[0].sha}")]
    assert len(pages) == 3 and "page=3" in pages[-1]


def test_sources_and_formats_are_filtered(github: FakeGitHub, meta: MetaRepository, settings: Settings) -> None:
    chosen = files(0, 12)
    melee = {path.replace("/MTGO/", "/melee.gg/"): data for path, data in files(12, 14).items()}
    github.repository.commit({**chosen, **melee, "README.md": b"hello"}, day(1))
    report = run(github, meta, settings, wanted=SyncFilter.of(["mtgo"], ["modern"]))
    assert report.ok and report.listed == 14 and report.skipped["other source"] == 2
    assert set(tournaments_per_format(meta)) == {"Modern"}
    assert report.ingested + report.skipped["other format"] == 12 and report.ingested > 0


def test_a_killed_sync_resumes_from_the_cursor_without_counting_twice(
    github: FakeGitHub, meta: MetaRepository, settings: Settings, dynamodb: Any
) -> None:
    everything = files(0, 10)
    github.repository.commit(files(0, 4), day(1))
    assert run(github, meta, settings).ok
    cursor = meta.sync_cursor(REPO, "main")
    head = github.repository.commit(files(4, 10), day(2))
    # When one file's raw fetch fails on every retry
    stuck = list(files(4, 10))[2]
    github.faults.append(Fault(f"/raw/{REPO}/{head.sha}/{stuck}", 500, times=None))
    first = run(github, meta, settings, backoff_factor=0)
    # Then the others are stored but the cursor stays, so that file is not lost
    assert first.retryable and [f.path for f in first.failures] == [stuck]
    assert first.ingested == 5 and meta.sync_cursor(REPO, "main") == cursor
    # And when the run dies after reading two files (the process killed)
    upstream = GitHubUpstream(client(github), "main")
    read, reads = upstream.read, []

    def dying_read(path: str, at: str, deadline: Deadline) -> bytes:
        reads.append(path)
        if len(reads) > 2:
            raise KeyboardInterrupt
        return read(path, at, deadline)

    upstream.read = dying_read  # type: ignore[method-assign]
    github.faults.clear()
    with pytest.raises(KeyboardInterrupt):
        sync(upstream, meta, get_classifier(settings.archetype_rules_dir), workers=1)
    assert meta.sync_cursor(REPO, "main") == cursor
    # Then the next run stores the missing file, finds the rest unchanged and moves the cursor
    last = run(github, meta, settings)
    assert last.ok and (last.ingested, last.unchanged) == (1, 5) and last.new_cursor == head.sha
    assert tournaments_per_format(meta) == single_ingest(dynamodb, settings, everything)


def test_a_long_outage_pages_the_comparison_commits(
    github: FakeGitHub, meta: MetaRepository, settings: Settings
) -> None:
    # Given a cursor, then 260 commits (GitHub's comparison shows the last 250 unpaged) changing 520 files,
    # the tournaments among the first ones
    repo = github.repository
    repo.commit(files(0, 1), day(1))
    assert run(github, meta, settings).ok
    for number in range(260):
        tournaments = files(1 + number, 2 + number) if number < 3 else {}
        repo.commit({**tournaments, f"Players/a{number}.txt": b"a", f"Players/b{number}.txt": b"b"}, day(2))
    report = run(github, meta, settings)
    assert report.ok and (report.commits, report.listed, report.ingested) == (260, 3, 3)
    assert len(github.requests_to("/compare/")) == 1 + 3  # unpaged, then 3 pages of 100 commits


def test_present_paths_follow_removals_and_renames() -> None:
    changes = [
        ChangedFile(filename="a.json", status="added"),
        ChangedFile(filename="b.json", status="added"),
        ChangedFile(filename="a.json", status="removed"),
        ChangedFile(filename="c.json", status="renamed", previous_filename="b.json"),
        ChangedFile(filename="d.json", status="modified"),
    ]
    assert present_paths(changes) == ("c.json", "d.json")
    assert next_link('<https://x/a?page=2>; rel="next", <https://x/a?page=9>; rel="last"') == "https://x/a?page=2"
    assert next_link('<https://x/a?page=1>; rel="prev"') is None
