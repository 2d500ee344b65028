"""Benchmark: a fresh clone's time to its first answer, as a new user gets it from ``scripts/demo.sh``.

Each row clones this repository's committed ``HEAD`` into an empty folder and runs ``scripts/demo.sh``
there (the virtualenv, the install from ``constraints.txt``, the embedded DynamoDB, the demo data, then
the demo's questions), timing its output: "installed" is when the embedded DynamoDB starts (the
install and the imports are done), "data loaded" when the demo data is in, "first answer" when the
first question's answer has streamed to its end. uv's download cache is a new empty folder per row,
as on a fresh machine, unless ``--warm-cache``.

Rows: ``snapshot`` is the shipped path (the demo data loaded from ``demo_data/snapshot.jsonl.gz``);
``ingest`` points ``META_MAGE_ARCHETYPE_RULES_DIR`` at a copy of the bundled rules with one rule file
changed, so the snapshot no longer matches and the demo ingests the files as every start did before.
Target: the snapshot row's data loaded within 10 s of the embedded DynamoDB's start.

With ``--runs N`` each row runs N times and each figure is shown as median (min–max): the install
step, which downloads from the package index, varies most.

Run: .venv/bin/python bench/first_answer.py [--rows snapshot ingest] [--runs 5] [--warm-cache]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "src" / "meta_mage" / "demo_data" / "archetypes"
TARGET_S = 10.0


def run_row(row: str, warm_cache: bool) -> dict[str, float]:
    """Clone, run the demo, and return the seconds at which each milestone's line appeared."""
    with tempfile.TemporaryDirectory() as folder:
        clone = Path(folder) / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "META_MAGE_MODEL": "offline"}
        if not warm_cache:
            env["UV_CACHE_DIR"] = str(Path(folder) / "uv-cache")
        if row == "ingest":
            rules = Path(folder) / "rules"
            shutil.copytree(RULES, rules)
            changed = min(p for p in rules.rglob("*.json") if p.is_file())
            changed.write_text(changed.read_text() + "\n")  # same rules, other bytes: the digest differs
            env["META_MAGE_ARCHETYPE_RULES_DIR"] = str(rules)
        started = time.perf_counter()
        seen: dict[str, float] = {}
        demo = subprocess.Popen(
            ["bash", "scripts/demo.sh"],
            cwd=clone,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert demo.stdout is not None
        questions = 0
        for line in demo.stdout:
            now = time.perf_counter() - started
            if line.startswith("Embedded DynamoDB"):
                seen.setdefault("installed", now)
            elif line.startswith("Demo data"):
                seen.setdefault("data loaded", now)
            elif line.startswith("You: "):
                questions += 1
                if questions == 2:
                    seen["first answer"] = now
                    break
        demo.kill()
        demo.wait()
        if "first answer" not in seen:
            raise RuntimeError(f"{row}: the demo stopped before its first answer (exit {demo.returncode})")
        return seen


def spread(values: list[float]) -> str:
    """One run's figure, or the median with the smallest and largest of several."""
    if len(values) == 1:
        return f"{values[0]:.1f}"
    return f"{statistics.median(values):.1f} ({min(values):.1f}–{max(values):.1f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", nargs="+", choices=["snapshot", "ingest"], default=["snapshot", "ingest"])
    parser.add_argument("--warm-cache", action="store_true", help="reuse uv's download cache")
    parser.add_argument("--runs", type=int, default=1, help="runs of each row (figures: median (min-max))")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    table = Table(title=f"Fresh clone to first answer (scripts/demo.sh), seconds from the start, {args.runs} run(s)")
    for column in ("demo data from", "installed", "data loaded", "first answer", "load time"):
        table.add_column(column, justify="left" if column == "demo data from" else "right")
    ok = True
    milestones = ("installed", "data loaded", "first answer", "load time")
    for row in args.rows:
        runs = []
        for _ in range(args.runs):
            seen = run_row(row, args.warm_cache)
            runs.append({**seen, "load time": seen["data loaded"] - seen["installed"]})
        load = statistics.median(run["load time"] for run in runs)
        if row == "snapshot":
            ok = load <= TARGET_S
        table.add_row(row, *(spread([run[k] for run in runs]) for k in milestones))
    Console().print(table)
    print(
        f"target: the snapshot's data loaded within {TARGET_S:.0f} s of the embedded DynamoDB's start: "
        + ("PASS" if ok else "MISSED")
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
