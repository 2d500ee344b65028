"""Benchmark: how often concurrent ingests of one format and day lose an event.

Starts the embedded DynamoDB (what ``meta-mage dynamodb`` runs) in this process and ``--processes`` worker
processes. In each of ``--trials`` trials every worker, released together by a barrier, ingests one real
Pioneer challenge of the demo data dated 2025-10-24 (the demo holds two; with more processes the files are
repeated under other names, so a day should count the two) into that trial's fresh tables. A trial loses an
event when the stored day or the format's registry counts fewer than two tournaments. Prints a table;
exits 1 when any trial lost an event.

Run: .venv/bin/python bench/concurrent_ingest.py [--trials 40] [--processes 2]
(PYTHONPATH=<another checkout>/src measures that checkout's code with the same script.)
"""

from __future__ import annotations

import argparse
import io
import multiprocessing
import sys
import tarfile
import time
from typing import Any

from rich.console import Console
from rich.table import Table

from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import DEMO_DATA_DIR, Settings
from meta_mage.ingest.files import SourceFile
from meta_mage.ingest.tournament_ingest import ingest_tournament_sources
from meta_mage.local.embedded import embedded_dynamodb
from meta_mage.storage.dynamo import dynamodb_resource
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.tables import create_tables

DAY = "2025-10-24"


def trial_settings(trial: int) -> Settings:
    return Settings(
        meta_table=f"race{trial}-meta",
        cards_table=f"race{trial}-cards",
        drafts_table=f"race{trial}-drafts",
        checkpoint_table=f"race{trial}-checkpoint",
        locks_table=f"race{trial}-locks",
    )


def same_day_files() -> list[tuple[str, bytes]]:
    with tarfile.open(DEMO_DATA_DIR / "tournaments.tar.gz") as archive:
        files = []
        for member in archive.getmembers():
            if "pioneer" in member.name and DAY in member.name:
                handle = archive.extractfile(member)
                assert handle is not None
                files.append((member.name, handle.read()))
    return files


def worker(index: int, files: list[tuple[str, bytes]], trials: int, barrier: Any) -> None:
    classifier = get_classifier(Settings().archetype_rules_dir)
    name, data = files[index % len(files)]
    for trial in range(trials):
        settings = trial_settings(trial)
        repository = MetaRepository(dynamodb_resource(settings).Table(settings.meta_table))
        barrier.wait(timeout=120)
        ingest_tournament_sources([SourceFile(f"{index}-{name}", data)], repository, classifier)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    files = same_day_files()
    context = multiprocessing.get_context("spawn")
    started = time.perf_counter()
    with embedded_dynamodb():
        for trial in range(args.trials):
            create_tables(dynamodb_resource(Settings()), trial_settings(trial))
        barrier = context.Barrier(args.processes)
        workers = [context.Process(target=worker, args=(i, files, args.trials, barrier)) for i in range(args.processes)]
        for process in workers:
            process.start()
        for process in workers:
            process.join()
        lost = 0
        for trial in range(args.trials):
            settings = trial_settings(trial)
            repository = MetaRepository(dynamodb_resource(settings).Table(settings.meta_table))
            day = repository.table.get_item(Key={"pk": "FMT#Pioneer", "sk": f"DAY#{DAY}"}).get("Item") or {}
            summary = repository.get_format("Pioneer")
            lost += int(day.get("tournaments", 0)) != 2 or summary is None or summary.tournaments != 2
    table = Table(title=f"Concurrent ingest of one day ({args.processes} processes, embedded DynamoDB)")
    for column in ("trials", "trials losing an event", "loss rate", "seconds"):
        table.add_column(column, justify="right")
    table.add_row(str(args.trials), str(lost), f"{lost / args.trials:.0%}", f"{time.perf_counter() - started:.1f}")
    out = io.StringIO()
    Console(file=out, width=100).print(table)
    print(out.getvalue())
    return 1 if lost or any(process.exitcode for process in workers) else 0


if __name__ == "__main__":
    sys.exit(main())
