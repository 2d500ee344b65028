"""Benchmark: the read functions' cold start (their imports in a fresh interpreter), paired against another
checkout of the project, so a change's cost is measured on the same machine at the same time.

Each round imports the formats and archetypes functions' ``app.py`` in a fresh ``python -S``-less interpreter
for this tree and for ``--against`` (a folder holding another checkout, e.g. made with ``git worktree add``),
alternating which goes first; prints the median and p90 of each and whether numpy or scipy was imported.

Run: .venv/bin/python bench/read_cold_start.py --against /tmp/before [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
FUNCTIONS = ("formats", "archetypes")
PROBE = (
    "import importlib.util, sys, time\n"
    "t = time.perf_counter()\n"
    "spec = importlib.util.spec_from_file_location('app', {path!r})\n"
    "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
    "print(time.perf_counter() - t, 'numpy' in sys.modules or 'scipy' in sys.modules)"
)


def once(tree: Path, function: str) -> tuple[float, bool]:
    env = {
        **os.environ,
        "PYTHONPATH": str(tree / "src"),
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
    }
    code = PROBE.format(path=str(tree / "functions" / function / "app.py"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    seconds, heavy = out.stdout.split()[-2:]
    return float(seconds), heavy == "True"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, required=True, help="another checkout to compare with")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    trees = {"this tree": ROOT, f"{args.against}": args.against}
    times: dict[tuple[str, str], list[float]] = {}
    heavy: dict[tuple[str, str], bool] = {}
    for run in range(args.runs):
        order = list(trees.items()) if run % 2 == 0 else list(trees.items())[::-1]
        for label, tree in order:
            for function in FUNCTIONS:
                seconds, loaded = once(tree, function)
                times.setdefault((label, function), []).append(seconds)
                heavy[(label, function)] = loaded
    table = Table(title=f"Read functions' import in a fresh interpreter, {args.runs} runs each, alternating")
    for column in ("tree", "function", "median ms", "p90 ms", "numpy/scipy imported"):
        table.add_column(column, justify="left" if column in ("tree", "function") else "right")
    for (label, function), values in times.items():
        ordered = sorted(values)
        p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
        table.add_row(
            label,
            function,
            f"{1000 * statistics.median(values):.0f}",
            f"{1000 * p90:.0f}",
            str(heavy[(label, function)]),
        )
    Console(width=120).print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
