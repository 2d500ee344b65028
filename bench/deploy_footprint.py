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

Run: .venv/bin/python bench/deploy_footprint.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / ".aws-sam" / "build"
LIGHT = ("welcome", "formats", "archetypes", "draft_pool")
LIGHT_LIBRARIES = (
    "import boto3, pydantic, pydantic_settings, aws_lambda_powertools.event_handler, aws_lambda_powertools.logging, "
    "aws_lambda_powertools.metrics"
)
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


def function_import(name: str) -> str:
    path = ROOT / "functions" / name / "app.py"
    return (
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('app', {str(path)!r})\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))"
    )


def libraries_import(statement: str) -> str:
    """The libraries imported the way our modules import them: with the garbage collector off."""
    return f"import gc\ngc.disable()\n{statement}"


@dataclass(frozen=True)
class Paired:
    """Seconds of A and B run in turn (A B A B ...), and A/B pair by pair."""

    a: list[float]
    b: list[float]

    @property
    def ratios(self) -> list[float]:
        return [x / y for x, y in zip(self.a, self.b, strict=True)]


def paired(a: str, b: str, runs: int, env: dict[str, str]) -> Paired:
    pairs = [(timed_import(a, env), timed_import(b, env)) for _ in range(runs)]
    return Paired([x for x, _ in pairs], [y for _, y in pairs])


def timing_row(label: str, measured: Paired, baseline: str, target: float | None) -> bool:
    """Print one cold-start row (A's median ms, A/B min / median / max); True when the median is within ``target``."""
    ratios = measured.ratios
    median = statistics.median(ratios)
    spread = f"{min(ratios):.2f} / {median:.2f} / {max(ratios):.2f}"
    ok = target is None or median <= target
    verdict = "" if target is None else ("yes" if ok else "NO")
    aim = "" if target is None else f"<= {target:.2f}x"
    ms = statistics.median(measured.a) * 1000
    print(f"{label:<40}{ms:>8.0f}  {baseline:<20}{spread:>20}  {aim:<9}{verdict}")
    return ok


def folder_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description="Cold start and size of each Lambda function")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    env = {
        **os.environ,
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "META_MAGE_MODEL": "us.anthropic.claude-haiku-4-5-20251001-v1:0",
    }
    failed = False
    boto3 = "import boto3"
    print(f"Cold start: {args.runs} fresh processes each, run in turn with their baseline (import only, interpreter")
    print("start-up excluded); ms is the median, the ratio to the baseline min / median / max pair by pair\n")
    print(f"{'module':<40}{'ms':>8}  {'baseline':<20}{'ratio min/med/max':>20}  {'target':<9}ok")
    light = libraries_import(LIGHT_LIBRARIES)
    timing_row("light libraries (gc off)", paired(light, boto3, args.runs, env), boto3, None)
    for name in LIGHT:
        module = function_import(name)
        failed |= not timing_row(f"functions/{name}/app.py", paired(module, boto3, args.runs, env), boto3, 1.6)
        timing_row("", paired(module, light, args.runs, env), "its libraries", None)
    chat = "import meta_mage.api.chat_function"
    libraries = libraries_import(CHAT_LIBRARIES)
    timing_row(
        f"chat libraries ({CHAT_LIBRARIES.count(',') + 1} packages, gc off)",
        paired(libraries, boto3, args.runs, env),
        boto3,
        None,
    )
    timing_row("meta_mage.api.chat_function (app built)", paired(chat, boto3, args.runs, env), boto3, None)
    failed |= not timing_row("", paired(chat, libraries, args.runs, env), "its libraries", 1.10)
    restore_ms = statistics.median(timed_restore(env) for _ in range(args.runs)) * 1000
    print(f"{'  its SnapStart restore (new clients)':<40}{restore_ms:>8.0f}  (instead of the import)")

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
