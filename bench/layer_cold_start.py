"""Benchmark: cold starts as Lambda runs them, from the layers, with and without shipped bytecode.

``/opt`` is read-only on Lambda and the runtime does not write bytecode there, so a layer shipped without
``__pycache__`` is compiled from source at every cold start. This builds the light and agent layers with
``layers/build_layer.py`` for this machine's platform (the arm64 ones ``sam build`` makes cannot run here)
twice, sources only (as before) and with unchecked-hash bytecode (as now), then times imports in fresh
python3.12 processes that see only the standard library and the layers (``-S``, ``PYTHONPATH``) with
``PYTHONDONTWRITEBYTECODE=1``. boto3 is put in the light layer here; on Lambda it is the runtime's. The
last row is the work a SnapStart restore does instead of the whole import (the chat app's
``after_restore``: new clients and collaborators).

Run: .venv/bin/python bench/layer_cold_start.py [--runs 5] [--rebuild]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "build" / "bench-layers"
sys.path.insert(0, str(ROOT / "layers"))
from build_layer import build  # type: ignore[import-not-found]  # noqa: E402

HOST_ARCH = platform.machine()
ROWS = {
    "import boto3": "import boto3",
    "formats function (Powertools)": (
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('app', {str(ROOT / 'functions/formats/app.py')!r})\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))"
    ),
    "chat app (built)": "import meta_mage.api.chat_function",
}
RESTORE = (
    "import meta_mage.api.chat_function as f, time\nf.app.state.snapstart.before_checkpoint()\n"
    "t = time.perf_counter()\nf.app.state.snapstart.after_restore()\nprint(time.perf_counter() - t)"
)


def python312() -> str:
    """The python3.12 to measure with (Lambda's runtime version)."""
    if sys.version_info[:2] == (3, 12):
        return sys.executable
    found = shutil.which("python3.12")
    if not found:
        raise SystemExit("needs a python3.12")
    return found


def layers(kind: str, rebuild: bool) -> list[Path]:
    """The light and agent layers' python/ folders, built for this machine (``kind``: source or bytecode)."""
    light, agent = OUT / kind / "light" / "python", OUT / kind / "agent" / "python"
    if rebuild or not (light.exists() and agent.exists()):
        shutil.rmtree(OUT / kind, ignore_errors=True)
        bytecode = kind == "bytecode"
        requirements = ROOT / "layers" / "light" / "requirements.txt"
        build(requirements, light, True, [], True, HOST_ARCH, bytecode=bytecode)
        build(ROOT / "layers" / "agent" / "requirements.txt", agent, False, [requirements], True, HOST_ARCH, bytecode)
    return [agent, light]


def seconds(code: str, paths: list[Path]) -> float:
    """What ``code`` takes in a fresh interpreter over ``paths`` (the last line it prints, or its own timing)."""
    env = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": os.pathsep.join(map(str, paths)),
        "PYTHONDONTWRITEBYTECODE": "1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "META_MAGE_MODEL": "us.anthropic.claude-haiku-4-5-20251001-v1:0",
    }
    timed = (
        code
        if "perf_counter" in code
        else f"import time\nt = time.perf_counter()\n{code}\nprint(time.perf_counter() - t)"
    )
    result = subprocess.run([python312(), "-S", "-c", timed], capture_output=True, text=True, env=env, check=True)
    return float(result.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rebuild", action="store_true", help="build the layers again")
    args = parser.parse_args()
    built = {kind: layers(kind, args.rebuild) for kind in ("source", "bytecode")}
    table = Table(title=f"Cold start from the layers, median of {args.runs} fresh python3.12 processes (ms)")
    for column in ("import", "sources only (before)", "with bytecode (now)", "saved"):
        table.add_column(column, justify="left" if column == "import" else "right")
    for label, code in {**ROWS, "SnapStart restore of the chat app": RESTORE}.items():
        ms = {
            kind: statistics.median(seconds(code, paths) for _ in range(args.runs)) * 1000
            for kind, paths in built.items()
        }
        table.add_row(label, f"{ms['source']:.0f}", f"{ms['bytecode']:.0f}", f"{1 - ms['bytecode'] / ms['source']:.0%}")
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
