"""Benchmark: the coach's per-turn latency on meta-research questions, with the LLM taken out.

Runs ``Conversations.turn`` against the embedded DynamoDB (moto, in this process) loaded with the
demo data, with a zero-latency scripted chat model (``meta_mage.agent.testing.ScriptedChatModel``)
and in offline mode (no model). Each turn asks "What are the top decks in <format> over the last
<days> days?", cycling through every format with data (varying fastest) and windows of 7 to 120
days, so neighbouring turns never read the same aggregates. The rules route these questions and plan
get_format_meta_rankings, so an LLM turn makes one model call (the answer over the results); an offline
turn answers from a template. Each mode runs twice: every turn in a new
conversation, and turns spread round-robin over ``--conversations`` conversations that are
continued (so each turn first loads the conversation's checkpoint). Every row gets a fresh, empty
checkpoint table and starts with ``--warmup`` unmeasured turns (one per demo format fills the
router's look-up cache).

Per row: median / p95 of the turn's wall time; time to the first event (``metadata``) and to the
first ``content`` event, both from the call of ``turn()``; time inside tools (the wrapped tool
executor: the tools' DynamoDB reads and computation, router look-ups included); the agent's own time
(wall time minus tool time: routing, guard, the fake model, checkpoint reads and writes, events);
the summed time of checkpointer calls (overlapping: LangGraph writes checkpoints in the background
while nodes run); DynamoDB requests per turn (tool tables / checkpoint table) and the checkpoint
table's size after the row.

Targets, judged on the median (p95 alongside): agent's own time <= 150 ms per meta-research turn;
first event <= 50 ms. Exit status 1 when a judged target is missed or a turn fails. Unjudged
"what-if" rows (skip with --no-what-if) show the same LLM turns with LangGraph's InMemorySaver and
with LangGraph's default ``durability="async"`` (a checkpoint after every step) instead of the
shipped ``durability="exit"`` (one checkpoint per turn), to attribute the agent's own time.

A second table times LLM turns through the real ChatBedrockConverse and botocore against the loopback Bedrock
(tests/bedrock_loopback) answering after ``--ttft`` seconds (default 0.6, about Claude Haiku 4.5's time to first
token): per kind of turn (meta routed by the rules, meta routed by the model, deck guide, cube pool) the model
requests before the first ``content`` event and in all, and the time to the first content. Judged: at most two
model requests before the first word.

Run: .venv/bin/python bench/agent_turns.py [--turns 50] [--conversations 5] [--warmup 6] [--profile]
     [--llm-turns 5] [--ttft 0.6]
(--profile runs extra LLM turns under cProfile and prints where the event-loop thread spends time.)
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import itertools
import math
import pstats
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langgraph.checkpoint.memory import InMemorySaver

from meta_mage.agent.testing import ScriptedChatModel, route
from meta_mage.agent.tools import in_process_executor
from meta_mage.config import Settings
from meta_mage.local.embedded import embedded_dynamodb
from meta_mage.local.seed import seed_demo
from meta_mage.storage.dynamo import dynamodb_resource
from meta_mage.storage.tables import create_tables
from meta_mage.tools import build_registry
from meta_mage.wiring import Wiring, coach_from_settings

OWN_TARGET_MS = 150.0
FIRST_EVENT_TARGET_MS = 50.0
DAYS = (7, 10, 14, 21, 30, 45, 60, 90, 120)
ANSWER = (
    "Over the last {days} days {fmt} is led by the top three archetypes in the table: together they take "
    "more than a third of the field, and the leader's match win rate sits a little above fifty percent with "
    "a tight interval. The next tier is close behind; two of those decks have fewer than twenty decided "
    "matches, so their win rates are low sample and should not be ranked on. Trends compare with the "
    "previous {days} days: the leader grew by a few points of meta share while the second deck shrank."
)


@dataclass
class Probe:
    """Counters the wrappers fill during one turn."""

    tool_seconds: float = 0.0
    tool_calls: int = 0
    checkpoint_seconds: float = 0.0
    data_requests: list[str] = field(default_factory=list)
    checkpoint_requests: list[str] = field(default_factory=list)

    def reset(self) -> None:
        self.tool_seconds = self.checkpoint_seconds = 0.0
        self.tool_calls = 0
        self.data_requests.clear()
        self.checkpoint_requests.clear()


@dataclass
class Sample:
    wall_ms: float
    first_event_ms: float
    first_content_ms: float
    tool_ms: float
    checkpoint_ms: float
    tool_calls: int
    data_requests: int
    checkpoint_requests: int
    model_calls: int

    @property
    def own_ms(self) -> float:
        return self.wall_ms - self.tool_ms


Executor = Callable[[str, dict[str, Any]], Awaitable[Any]]


def timed_executor(execute: Executor, probe: Probe) -> Executor:
    async def run(name: str, arguments: dict[str, Any]) -> Any:
        started = time.perf_counter()
        try:
            return await execute(name, arguments)
        finally:
            probe.tool_seconds += time.perf_counter() - started
            probe.tool_calls += 1

    return run


def time_checkpointer(checkpointer: Any, probe: Probe) -> None:
    """Wrap the saver's async methods on the instance to add their time to the probe."""
    for name in ("aget_tuple", "aput", "aput_writes"):
        original = getattr(checkpointer, name)

        async def wrapped(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await _original(*args, **kwargs)
            finally:
                probe.checkpoint_seconds += time.perf_counter() - started

        setattr(checkpointer, name, wrapped)


def scripted_model(question: dict[str, Any]) -> ScriptedChatModel:
    """An endless script answering every model call from what it is asked, so it never desyncs."""

    def reply(messages: list[BaseMessage], tool_names: list[str]) -> AIMessage | str:
        if "RouteDecision" in tool_names:
            return route("meta_research", "rankings", 0.95, format=question["format"], days=question["days"])
        return ANSWER.format(fmt=question["format"], days=question["days"])

    return ScriptedChatModel(messages=itertools.repeat(reply))  # type: ignore[arg-type]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


@dataclass(frozen=True)
class Row:
    """One line of the table: which model, how conversations are used, which checkpointing."""

    llm: bool
    conversations: int  # 0: a new conversation every turn; else continued round-robin
    checkpointer: str = "dynamodb"  # or "memory" (LangGraph's InMemorySaver)
    durability: str | None = None  # None: as shipped ("exit": one checkpoint per turn)
    judged: bool = True

    @property
    def label(self) -> str:
        mode = "LLM (fake, 0 ms)" if self.llm else "offline"
        if not self.judged:
            store = "InMemorySaver" if self.checkpointer == "memory" else f"DynamoDB, durability={self.durability}"
            mode += f", what-if: {store}"
        shape = "new each turn" if not self.conversations else f"{self.conversations} continued"
        return f"{mode} | {shape}"


class Bench:
    def __init__(self, settings: Settings, db: Any, formats: list[str], row: Row) -> None:
        self.probe = Probe()
        self.question: dict[str, Any] = {}
        self.model = scripted_model(self.question) if row.llm else None
        registry = build_registry()
        executor = timed_executor(in_process_executor(registry, Wiring(settings, db).tool_context), self.probe)
        self.conv = coach_from_settings(
            settings,
            dynamodb=db,
            model=self.model,
            executor=executor,
            registry=registry,
            checkpointer=InMemorySaver() if row.checkpointer == "memory" else None,
        )
        assert self.conv.offline is (not row.llm)
        if row.durability:  # what-if only: the shipped Conversations.turn passes durability="exit"
            original = self.conv.graph.astream
            forced = row.durability

            def astream(*args: Any, **kwargs: Any) -> Any:
                return original(*args, **{**kwargs, "durability": forced})

            self.conv.graph.astream = astream  # type: ignore[method-assign]
        time_checkpointer(self.conv.checkpointer, self.probe)
        db.meta.client.meta.events.register(
            "before-call.dynamodb", lambda model, **_: self.probe.data_requests.append(model.name)
        )
        if row.checkpointer != "memory":
            self.conv.checkpointer.client.meta.events.register(
                "before-call.dynamodb", lambda model, **_: self.probe.checkpoint_requests.append(model.name)
            )
        self.questions = itertools.cycle(itertools.product(DAYS, formats))  # formats vary fastest
        self.failures: list[str] = []

    async def turn(self, conversation_id: str | None) -> tuple[Sample, str]:
        days, fmt = next(self.questions)
        self.question.update(format=fmt, days=days)
        message = f"What are the top decks in {fmt} over the last {days} days?"
        self.probe.reset()
        if self.model is not None:
            self.model.calls.clear()
        first_event = first_content = None
        events: list[Any] = []
        started = time.perf_counter()
        async for event in self.conv.turn(message, conversation_id):
            now = time.perf_counter()
            if first_event is None:
                first_event = now
            if event.event == "content" and first_content is None:
                first_content = now
            events.append(event)
        wall = time.perf_counter() - started
        kinds = [e.event for e in events]
        ranked = any(
            e.event == "tool_call"
            and e.data.get("tool") == "get_format_meta_rankings"
            and e.data.get("status") == "complete"
            for e in events
        )
        if kinds[0] != "metadata" or kinds[-1] != "done" or not ranked or first_content is None:
            self.failures.append(f"{message}: events {kinds}")
        assert first_event is not None
        sample = Sample(
            wall_ms=wall * 1000,
            first_event_ms=(first_event - started) * 1000,
            first_content_ms=((first_content or first_event) - started) * 1000,
            tool_ms=self.probe.tool_seconds * 1000,
            checkpoint_ms=self.probe.checkpoint_seconds * 1000,
            tool_calls=self.probe.tool_calls,
            data_requests=len(self.probe.data_requests),
            checkpoint_requests=len(self.probe.checkpoint_requests),
            model_calls=len(self.model.calls) if self.model is not None else 0,
        )
        return sample, str(events[0].data.get("conversation_id"))

    async def run(self, turns: int, conversations: int, warmup: int) -> list[Sample]:
        """``conversations`` 0: a new conversation every turn; else round-robin over that many."""
        for _ in range(warmup):  # fills the router's look-up cache, imports lazily loaded modules
            await self.turn(None)
        ids: list[str | None] = [None] * max(conversations, 1)
        samples = []
        for index in range(turns):
            slot = index % len(ids)
            sample, conversation_id = await self.turn(ids[slot])
            if conversations:
                ids[slot] = conversation_id
            samples.append(sample)
        return samples


def cell(values: list[float], digits: int = 1) -> str:
    return f"{statistics.median(values):.{digits}f} / {percentile(values, 0.95):.{digits}f}"


def count_cell(values: list[int]) -> str:
    spread = "" if min(values) == max(values) else f" ({min(values)}-{max(values)})"
    return f"{statistics.median(values):g}{spread}"


def verdict(ok: bool, judged: bool) -> str:
    word = "PASS" if ok else "MISS"
    return word if judged else f"({word})"


async def measure(args: argparse.Namespace, db: Any, formats: list[str]) -> tuple[list[str], bool]:
    rows = [Row(llm, conversations) for llm in (True, False) for conversations in (0, args.conversations)]
    if not args.no_what_if:
        rows += [
            Row(True, 0, checkpointer="memory", judged=False),
            Row(True, 0, durability="async", judged=False),
            Row(True, args.conversations, durability="async", judged=False),
        ]
    lines, failed = [], False
    for number, row in enumerate(rows):
        # a fresh checkpoint table per row: moto's Query scans the whole table, so a table grown by
        # earlier rows would slow later ones
        settings = Settings(model="", checkpoint_table=f"{Settings(model='').checkpoint_table}-bench-{number}")
        if row.checkpointer != "memory":
            create_tables(db, settings)
        bench = Bench(settings, db, formats, row)
        samples = await bench.run(args.turns, row.conversations, args.warmup)
        items = (
            db.meta.client.describe_table(TableName=settings.checkpoint_table)["Table"]["ItemCount"]
            if row.checkpointer != "memory"
            else "-"
        )
        own = [s.own_ms for s in samples]
        first = [s.first_event_ms for s in samples]
        own_ok = statistics.median(own) <= OWN_TARGET_MS
        first_ok = statistics.median(first) <= FIRST_EVENT_TARGET_MS
        if row.judged:
            failed |= not (own_ok and first_ok)
        if bench.failures:
            failed = True
            print(f"{len(bench.failures)} failed turns in {row.label}, e.g. {bench.failures[0]}", file=sys.stderr)
        lines.append(
            f"| {row.label} | {len(samples)} | {cell([s.wall_ms for s in samples])} | {cell(first)} | "
            f"{cell([s.first_content_ms for s in samples])} | {cell([s.tool_ms for s in samples])} | "
            f"{cell(own)} | {cell([s.checkpoint_ms for s in samples])} | "
            f"{count_cell([s.tool_calls for s in samples])} | "
            f"{count_cell([s.data_requests for s in samples])} / "
            f"{count_cell([s.checkpoint_requests for s in samples])} | {items} | "
            f"{count_cell([s.model_calls for s in samples]) if row.llm else '-'} | "
            f"{verdict(own_ok, row.judged)} | {verdict(first_ok, row.judged)} |"
        )
    return lines, failed


async def profile(args: argparse.Namespace, db: Any, formats: list[str]) -> None:
    settings = Settings(model="", checkpoint_table=f"{Settings(model='').checkpoint_table}-bench-profile")
    create_tables(db, settings)
    bench = Bench(settings, db, formats, Row(True, args.conversations))
    await bench.run(0, 0, args.warmup)
    profiler = cProfile.Profile()
    profiler.enable()
    await bench.run(args.turns, args.conversations, 0)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(20)
    stats.sort_stats("cumulative").print_stats(r"meta_mage|langgraph/pregel|checkpoint", 30)
    print(f"\ncProfile of {args.turns} LLM turns ({args.conversations} continued conversations), event-loop thread")
    print("(work in executor threads, e.g. the checkpointer's boto3 calls, shows only as waiting):")
    print(out.getvalue())


LLM_ANSWER = (
    "The field is led by the decks at the top of the table below. Expect them in most rounds, and plan your "
    "sideboard around the first three. The rest of the field is spread thin, so a tuned list beats a new one."
)


@dataclass(frozen=True)
class LlmKind:
    name: str
    message: str
    script: tuple[Any, ...]
    context: dict[str, Any] = field(default_factory=dict)


def llm_kinds(deck: str) -> list[LlmKind]:
    from tests.bedrock_loopback.server import Reply, Text, ToolCall

    answer = Reply(Text(LLM_ANSWER))
    routed = Reply(ToolCall("RouteDecision", {"workflow": "meta_research", "task": "rankings", "confidence": 0.9}))
    return [
        LlmKind("meta, routed by the rules", "What are the top decks in Modern over the last 30 days?", (answer,)),
        LlmKind("meta, routed by the model", "so what's hot?", (routed, answer), {"format": "Modern", "days": 30}),
        LlmKind(
            "deck guide",
            f"How should I sideboard against Jeskai Blink?\n{deck}",
            (answer,),
            {"format": "Modern", "days": 30, "archetype": "Boros Energy"},
        ),
        LlmKind("cube pool", "What green creatures were in the Tarkir draft, and who took them?", (answer,)),
    ]


async def llm_turn(coach: Any, loopback: Any, kind: LlmKind) -> tuple[int, int, float, float]:
    """Requests before the first content event and in all, seconds to the first content and to the end."""
    loopback.script += list(kind.script)
    before, seen, first = len(loopback.requests), None, None
    started = time.perf_counter()
    async for event in coach.turn(kind.message, None, kind.context or None):
        if event.event == "content" and first is None:
            first, seen = time.perf_counter() - started, len(loopback.requests) - before
        if event.event == "error" or (event.event == "thinking" and "unavailable" in event.data["content"]):
            raise SystemExit(f"{kind.name}: {event.data}")
    loopback.script.clear()
    return seen or 0, len(loopback.requests) - before, first or 0.0, time.perf_counter() - started


def measure_llm(args: argparse.Namespace, db: Any) -> tuple[list[str], bool]:
    """The LLM rows: ChatBedrockConverse against the loopback Bedrock with a realistic time to first token."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the loopback Bedrock lives with the tests
    from bench.question_kinds import boros_energy_list
    from langchain_aws import ChatBedrockConverse
    from tests.bedrock_loopback.server import DEFAULT_MODEL_ID, bedrock_runtime_client, running_bedrock

    lines, failed = [], False
    with running_bedrock(first_token_seconds=args.ttft) as (url, loopback):
        model = ChatBedrockConverse(
            model=DEFAULT_MODEL_ID, region_name="us-east-1", client=bedrock_runtime_client(url), max_tokens=1024
        )
        settings = Settings(model=DEFAULT_MODEL_ID, checkpoint_table=f"{Settings(model='').checkpoint_table}-bench-llm")
        create_tables(db, settings)
        coach = coach_from_settings(settings, dynamodb=db, model=model)
        for kind in llm_kinds(boros_energy_list()):
            samples = [asyncio.run(llm_turn(coach, loopback, kind)) for _ in range(args.llm_turns)]
            before = max(s[0] for s in samples)
            failed |= before > 2
            lines.append(
                f"| {kind.name} | {len(samples)} | {before} | {max(s[1] for s in samples)} | "
                f"{cell([s[2] * 1000 for s in samples], 0)} | {cell([s[3] * 1000 for s in samples], 0)} | "
                f"{verdict(before <= 2, True)} |"
            )
    return lines, failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=50, help="measured turns per mode")
    parser.add_argument("--conversations", type=int, default=5, help="conversations continued round-robin")
    parser.add_argument("--warmup", type=int, default=6, help="unmeasured turns first, per row")
    parser.add_argument("--profile", action="store_true", help="also cProfile the LLM turns")
    parser.add_argument("--no-what-if", action="store_true", help="skip the unjudged what-if rows")
    parser.add_argument("--llm-turns", type=int, default=5, help="turns per kind through the loopback Bedrock")
    parser.add_argument("--ttft", type=float, default=0.6, help="the loopback model's time to first token, seconds")
    args = parser.parse_args()
    settings = Settings(model="")
    with embedded_dynamodb() as url:
        db = dynamodb_resource(settings)
        started = time.perf_counter()
        seed_demo(settings, db)
        seeded = time.perf_counter() - started
        context = Wiring(settings, db).tool_context
        formats = [f["format"] for f in build_registry().call("list_formats", {}, context)["formats"]]
        print(f"Embedded DynamoDB at {url}; demo data seeded in {seeded:.1f} s; formats: {', '.join(formats)}")
        print(
            f"{args.turns} measured meta-research turns per row after {args.warmup} warm-up turns; "
            "cells are median / p95 in ms, counts are medians per turn (range)\n"
        )
        rows, failed = asyncio.run(measure(args, db, formats))
        print(
            "| mode | conversations | turns | wall | first event (metadata) | first content | in tools | "
            "agent own (wall - tools) | in checkpointer (overlaps) | tool calls | DynamoDB requests "
            "(tools / checkpoints) | checkpoint items after | model calls | "
            f"own <= {OWN_TARGET_MS:g} ms | first event <= {FIRST_EVENT_TARGET_MS:g} ms |"
        )
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
        for row in rows:
            print(row)
        if args.profile:
            asyncio.run(profile(args, db, formats))
        llm_rows, llm_failed = measure_llm(args, db)
        print(
            "\nLLM turns through ChatBedrockConverse against the loopback Bedrock "
            f"(time to first token {args.ttft:g} s); times are median / p95 in ms\n"
        )
        print(
            "| turn | turns | model requests before the first word (max) | model requests in all (max) | "
            "first content | whole turn | <= 2 before the first word |"
        )
        print("|---|---:|---:|---:|---:|---:|---|")
        for row in llm_rows:
            print(row)
    return 1 if failed or llm_failed else 0


if __name__ == "__main__":
    sys.exit(main())
