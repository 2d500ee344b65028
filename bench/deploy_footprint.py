"""Benchmark: what each Lambda function costs to start and to ship.

Cold start: the median over ``--runs`` fresh Python processes of importing each function's handler
module (the small functions' ``functions/<name>/app.py``; the chat function's ASGI module
``meta_mage.api.chat_function``, which also builds the app), next to ``import boto3`` and, for the chat
function, next to importing its own libraries (FastAPI, sse-starlette, uvicorn, LangGraph, LangChain
AWS, the DynamoDB checkpointer) in the same run. The chat function is measured with a Bedrock model
configured (fake credentials, no network), as deployed. Imports run from this machine's virtualenv, not
from the arm64 layers, so the ratios are what carries over, not the milliseconds.

Size: the unzipped size of each function with its layers, from ``sam build``'s output
(``.aws-sam/build``; run ``bash scripts/sam_check.sh`` first). The Lambda Web Adapter layer (about
5 MB, not built here) is added to the chat function as an estimate.

Targets: each small function <= 1.6x ``import boto3``; the chat function <= 1.10x its libraries;
chat <= 200 MB (of Lambda's 250 MB), small functions <= 40 MB. Exit status 1 when one is missed.

Run: .venv/bin/python bench/deploy_footprint.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / ".aws-sam" / "build"
LIGHT = ("welcome", "formats", "archetypes", "draft_pool")
CHAT_LIBRARIES = (
    "import boto3, pydantic, fastapi, sse_starlette, uvicorn, langgraph.graph, langchain_core.language_models, "
    "langchain_aws, langgraph_checkpoint_aws"
)
WEB_ADAPTER_MB = 5.0
LIMITS = {"chat": 200.0, "light": 40.0}  # light: 30 MB before bytecode (+9 MB, ~0.7 s less per cold start)


def timed_import(statement: str, env: dict[str, str]) -> float:
    """Seconds a fresh interpreter takes to run ``statement`` (interpreter start-up excluded)."""
    code = f"import time\nt = time.perf_counter()\n{statement}\nprint(time.perf_counter() - t)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    return float(result.stdout.strip().splitlines()[-1])


def timed_restore(env: dict[str, str]) -> float:
    """Seconds the chat app's SnapStart after-restore hook takes (what a restored environment does instead
    of the import: a new boto3 session, clients and collaborators)."""
    code = (
        "import time\nimport meta_mage.api.chat_function as f\nf.app.state.snapstart.before_checkpoint()\n"
        "t = time.perf_counter()\nf.app.state.snapstart.after_restore()\nprint(time.perf_counter() - t)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    return float(result.stdout.strip().splitlines()[-1])


def median_ms(statement: str, runs: int, env: dict[str, str]) -> float:
    return statistics.median(timed_import(statement, env) for _ in range(runs)) * 1000


def function_import(name: str) -> str:
    path = ROOT / "functions" / name / "app.py"
    return (
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('app', {str(path)!r})\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))"
    )


def timing_row(label: str, ms: float, baseline: str, ratio: float, target: float) -> bool:
    """Print one cold-start row; True when within ``target``."""
    ok = ratio <= target
    print(f"{label:<42}{ms:>10.0f}{baseline:>22}{ratio:>7.2f}x{target:>7.2f}x  {'yes' if ok else 'NO'}")
    return ok


def folder_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description="Cold start and size of each Lambda function")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    env = {
        **os.environ,
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "META_MAGE_MODEL": "us.anthropic.claude-haiku-4-5-20251001-v1:0",
    }
    failed = False
    boto3_ms = median_ms("import boto3", args.runs, env)
    libraries_ms = median_ms(CHAT_LIBRARIES, args.runs, env)
    print(f"Cold start: median of {args.runs} fresh processes (import only, interpreter start-up excluded)\n")
    print(f"{'module':<42}{'median ms':>10}{'baseline':>22}{'ratio':>8}{'target':>8}  ok")
    print(f"{'import boto3':<42}{boto3_ms:>10.0f}")
    print(f"{'chat libraries (' + str(CHAT_LIBRARIES.count(',') + 1) + ' packages)':<42}{libraries_ms:>10.0f}")
    for name in LIGHT:
        ms = median_ms(function_import(name), args.runs, env)
        failed |= not timing_row(f"functions/{name}/app.py", ms, "import boto3", ms / boto3_ms, 1.6)
    chat_ms = median_ms("import meta_mage.api.chat_function", args.runs, env)
    ratio = chat_ms / libraries_ms
    failed |= not timing_row("meta_mage.api.chat_function (app built)", chat_ms, "its libraries", ratio, 1.10)
    restore_ms = statistics.median(timed_restore(env) for _ in range(args.runs)) * 1000
    label = "  its SnapStart restore (new clients)"
    print(f"{label:<42}{restore_ms:>10.0f}{'the import':>22}{restore_ms / chat_ms:>7.2f}x")

    print("\nUnzipped size with layers (sam build output, python3.12 arm64)\n")
    if not BUILD.is_dir():
        print("  .aws-sam/build is missing: run `bash scripts/sam_check.sh` (sam build) first")
        return 1 if failed else 0
    layers = {name: folder_mb(BUILD / name) for name in ("LightLayer", "AgentLayer")}
    rows = [("WelcomeFunction", "light", ["LightLayer"]), ("FormatsFunction", "light", ["LightLayer"]),
            ("ArchetypesFunction", "light", ["LightLayer"]), ("DraftPoolFunction", "light", ["LightLayer"]),
            ("IngestFunction", "light", ["LightLayer"]), ("ChatFunction", "chat", ["LightLayer", "AgentLayer"]),
            ("McpFunction", "chat", ["LightLayer", "AgentLayer"])]  # fmt: skip
    print(f"{'function':<22}{'code MB':>9}{'layers MB':>11}{'total MB':>10}{'limit':>8}  ok")
    for function, kind, used in rows:
        code = folder_mb(BUILD / function)
        layer_mb = sum(layers[layer] for layer in used) + (WEB_ADAPTER_MB if kind == "chat" else 0)  # LWA too
        total = code + layer_mb
        ok = total <= LIMITS[kind]
        failed |= not ok
        print(f"{function:<22}{code:>9.2f}{layer_mb:>11.1f}{total:>10.1f}{LIMITS[kind]:>8.0f}  {'yes' if ok else 'NO'}")
    print(f"\nLayers: LightLayer {layers['LightLayer']:.1f} MB, AgentLayer {layers['AgentLayer']:.1f} MB"
          f" (+ Lambda Web Adapter ~{WEB_ADAPTER_MB:.0f} MB for the chat function)")  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
