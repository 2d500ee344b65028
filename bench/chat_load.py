"""Benchmark: many concurrent ``POST /chat`` streams against a real ``meta-mage serve`` (offline mode).

Starts ``meta-mage serve`` on a free loopback port as a subprocess with ``META_MAGE_MODEL`` empty
(offline mode: keyword routing, real tools over the embedded DynamoDB and its demo data, templated
answers), waits for ``/healthz``, then runs ``--conversations`` conversations of ``--turns`` turns
each, at most ``--concurrency`` requests in flight (a semaphore around every request), over one
httpx.AsyncClient. ``--url`` uses a running server instead (``--server-pid`` to report its memory).

Every conversation asks its own questions, built from what the server says it has (``/formats``,
``/archetypes``, ``/drafts``): "What are the top decks in <format>?", "How does <A> do against <B>?",
"Which archetypes are played in <format>?", "Which <colour> <type>s are in the <draft> cube pool?",
then follow-ups ("What about the last <N> days?", another matchup, a switch to another format with
its own window, a draft question), with the format and window sent as dropdown context. Questions
are drawn so that no two conversations ask the same thing at the same turn (where the data allows),
so an answer delivered to the wrong stream shows. Each turn is checked for:

- errors: an HTTP status other than 200, an ``error`` event, a ``tool_call`` error, a stream that
  ends without ``done``, a transport error or timeout;
- cross-talk: ``metadata`` first with a conversation id that is new and unique (first turn) or the
  conversation's own (later turns) and the format sent; tool calls with the format, archetype or
  draft asked about; a ``state`` event with the format, window, opponent or draft asked about; an
  answer naming the format and its exact window ("<start> to <end>", counted back from the format's
  newest tournament), or the archetypes / draft filter asked about; and, after the conversation's
  last turn, ``GET /conversations/{id}`` holding exactly its own questions and the streamed answers,
  and the last ``state``.

A check that fails at ``--concurrency 1`` is the agent answering differently than expected, not
cross-talk; run that way first when changing the questions.

Prints a Markdown table: conversations, turns completed, errors and cross-talk violations (the first
few of each below the table), turn time p50 / p95 / p99 (request sent to ``done`` received), time to
the first event, ``GET /conversations`` time, wall time, turns/s, and the server's RSS (VmRSS from
/proc) before and after the load and its peak while loaded. Exit status 1 on any error or violation.

``--separate-dynamodb`` runs moto in its own process (``serve --dynamodb-endpoint``), so the server's
RSS shows the app alone and moto's (which holds every stored checkpoint in memory) is reported apart.

Run: .venv/bin/python bench/chat_load.py [--conversations 50] [--turns 1] [--concurrency 50]
     [--url http://127.0.0.1:8000 [--server-pid PID]] [--timeout 900] [--seed 0] [--separate-dynamodb]

From a test: ``with spawn_server() as server: result = run_load(server.url, 4, 2, 4, server_pid=server.pid)``
(or ``await run_load_async(...)`` inside a running event loop); ``result.ok`` is the verdict.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import math
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from meta_mage.local.chat_client import aparse_sse

MAX_MATCHUP_ARCHETYPES = 8  # per format, most played first
GENERIC_NAMES = {"unknown", "control", "midrange", "aggro", "combo", "tempo", "ramp", "other"}
COLOURS = {"W": "white", "U": "blue", "B": "black", "R": "red", "G": "green"}
CARD_TYPES = ("creature", "instant", "artifact", "enchantment", "planeswalker", "land")
DAYS = range(14, 61)  # matchup archetypes are drawn from those played in the last 14 days
FIRST_KINDS = ("rankings", "matchup", "archetypes", "matchup", "draft")
FOLLOW_AFTER_META = ("days", "matchup", "switch", "draft", "archetypes")
FOLLOW_AFTER_DRAFT = ("matchup", "switch", "rankings", "archetypes")
SHOWN_PROBLEMS = 5
UNIQUE_TRIES = 40


# --- the server -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Server:
    url: str
    pid: int
    log: Path
    dynamodb_pid: int | None = None  # moto's own process, when it runs apart from the server


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def rss_mb(pid: int | None) -> float | None:
    """The process's resident set size (VmRSS) in MB, or None when it cannot be read."""
    if pid is None:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def cpu_seconds(pid: int | None) -> float | None:
    """The process's user + system CPU time in seconds (/proc/<pid>/stat), or None."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _log_tail(log: Path, lines: int = 30) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)  # uvicorn's graceful stop, then moto's
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextlib.contextmanager
def _separate_dynamodb(env: dict[str, str], startup_timeout: float) -> Iterator[tuple[str, int]]:
    """The embedded DynamoDB in its own process (``meta-mage dynamodb``: moto's server, made safe for
    concurrent transactions); yields its URL and pid."""
    port = free_port()
    command = [sys.executable, "-m", "meta_mage.cli", "dynamodb", "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + startup_timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"meta-mage dynamodb exited with {process.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                httpx.get(f"{url}/moto-api/", timeout=2, trust_env=False)
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"meta-mage dynamodb not up after {startup_timeout:.0f} s")
            time.sleep(0.25)
        yield url, process.pid
    finally:
        _stop(process)


@contextlib.contextmanager
def spawn_server(
    startup_timeout: float = 240.0, port: int | None = None, *, separate_dynamodb: bool = False
) -> Iterator[Server]:
    """Run ``meta-mage serve`` (offline, embedded DynamoDB, demo data) on loopback until the block ends.

    ``separate_dynamodb`` runs moto's server in a process of its own instead of inside ``serve``, so
    the server's memory and the stored data's memory are measured apart (``Server.dynamodb_pid``)."""
    port = port or free_port()
    env = {**os.environ, "META_MAGE_MODEL": "", "PYTHONUNBUFFERED": "1"}
    log_file = tempfile.NamedTemporaryFile(prefix="chat_load_serve_", suffix=".log", delete=False)  # noqa: SIM115
    log = Path(log_file.name)
    command = [sys.executable, "-m", "meta_mage.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    stack = contextlib.ExitStack()
    dynamodb_pid = None
    if separate_dynamodb:
        env.setdefault("AWS_DEFAULT_REGION", "us-east-1")
        if not env.get("AWS_ACCESS_KEY_ID"):
            env["AWS_ACCESS_KEY_ID"] = env["AWS_SECRET_ACCESS_KEY"] = "local"
        dynamodb_url, dynamodb_pid = stack.enter_context(_separate_dynamodb(env, startup_timeout))
        command += ["--dynamodb-endpoint", dynamodb_url]
    process = subprocess.Popen(command, stdout=log_file, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + startup_timeout
        with httpx.Client(base_url=url, trust_env=False, timeout=5) as client:
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"meta-mage serve exited with {process.returncode}:\n{_log_tail(log)}")
                try:
                    if client.get("/healthz").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"meta-mage serve not healthy after {startup_timeout:.0f} s:\n{_log_tail(log)}")
                time.sleep(0.25)
        yield Server(url, process.pid, log, dynamodb_pid)
    finally:
        _stop(process)
        stack.close()
        log_file.close()


# --- what the server has, and the questions --------------------------------------------------------


@dataclass(frozen=True)
class Catalog:
    """Formats with their newest tournament date, matchup candidates per format, the first draft."""

    last_date: dict[str, dt.date]
    archetypes: dict[str, list[str]]
    draft: tuple[str, str] | None  # (draft_id, draft_name)


async def read_catalog(client: httpx.AsyncClient) -> Catalog:
    formats = (await client.get("/formats")).raise_for_status().json()
    last_date = {d["format"]: dt.date.fromisoformat(d["last_date"]) for d in formats["details"] if d.get("last_date")}
    if not last_date:
        raise RuntimeError("the server has no formats with data (started with --no-seed?)")
    archetypes: dict[str, list[str]] = {}
    for fmt in last_date:
        listed = (await client.get("/archetypes", params={"format": fmt, "days": min(DAYS)})).raise_for_status().json()
        names = [a["name"] for a in listed["archetypes"] if a["name"].lower() not in GENERIC_NAMES]
        archetypes[fmt] = names[:MAX_MATCHUP_ARCHETYPES]
    drafts = (await client.get("/drafts")).raise_for_status().json()["drafts"]
    draft = (drafts[0]["draft_id"], drafts[0]["draft_name"]) if drafts else None
    return Catalog(last_date, archetypes, draft)


@dataclass(frozen=True)
class Expect:
    """What one turn's events must show."""

    kind: str
    format: str
    days: int
    markers: tuple[str, ...]  # substrings of the answer
    subject: str | None = None  # matchup: the archetype asked about
    opponent: str | None = None
    draft_id: str | None = None


@dataclass(frozen=True)
class PlannedTurn:
    message: str
    context: dict[str, Any]
    expect: Expect


class Planner:
    """Draws each conversation's questions; avoids repeating a question at the same turn number."""

    def __init__(self, catalog: Catalog, seed: int) -> None:
        self.catalog = catalog
        self.rng = random.Random(seed)
        self.formats = sorted(catalog.last_date)
        self.matchup_formats = [f for f in self.formats if len(catalog.archetypes.get(f, [])) >= 2]
        self.used: dict[int, set[str]] = {}

    def period(self, fmt: str, days: int) -> str:
        end = self.catalog.last_date[fmt]
        return f"{end - dt.timedelta(days=days - 1)} to {end}"

    def conversation(self, index: int, turns: int) -> list[PlannedTurn]:
        fmt = self.rng.choice(self.matchup_formats or self.formats)
        days = self.rng.choice(DAYS)
        planned: list[PlannedTurn] = []
        kind = FIRST_KINDS[index % len(FIRST_KINDS)]
        for number in range(turns):
            if number:
                options = FOLLOW_AFTER_DRAFT if kind == "draft" else FOLLOW_AFTER_META
                kind = options[(index + number) % len(options)]
            kind = self._available(kind)
            seen = self.used.setdefault(number, set())
            for _ in range(UNIQUE_TRIES):
                turn = self._turn(kind, fmt, days)
                key = json.dumps([turn.message, turn.context], sort_keys=True)
                if key not in seen:
                    break
            seen.add(key)
            planned.append(turn)
            fmt, days = turn.expect.format, turn.expect.days
        return planned

    def _available(self, kind: str) -> str:
        if kind == "draft" and self.catalog.draft is None:
            return "archetypes"
        if kind == "matchup" and not self.matchup_formats:
            return "rankings"
        return kind

    def _turn(self, kind: str, fmt: str, days: int) -> PlannedTurn:
        context: dict[str, Any] = {"format": fmt, "days": days}
        if kind == "days":
            new_days = self.rng.choice([d for d in DAYS if d != days])
            marker = f"in {fmt}**, {self.period(fmt, new_days)}"  # every meta answer's heading
            return PlannedTurn(f"What about the last {new_days} days?", context, Expect(kind, fmt, new_days, (marker,)))
        if kind == "switch":
            new_fmt = self.rng.choice([f for f in self.formats if f != fmt] or self.formats)
            new_days = self.rng.choice(DAYS)
            return PlannedTurn(
                f"What are the top decks in {new_fmt} over the last {new_days} days?",
                context,
                Expect(kind, new_fmt, new_days, (f"**Top decks in {new_fmt}**, {self.period(new_fmt, new_days)}",)),
            )
        if kind == "matchup":
            if fmt not in self.matchup_formats:
                fmt = self.rng.choice(self.matchup_formats)
                context["format"] = fmt
            subject, opponent = self._pair(fmt)
            return PlannedTurn(
                f"How does {subject} do against {opponent}?",
                context,
                Expect(
                    kind,
                    fmt,
                    days,
                    (f"**{subject} in {fmt}**, {self.period(fmt, days)}", opponent),
                    subject=subject,
                    opponent=opponent,
                ),
            )
        if kind == "archetypes":
            return PlannedTurn(
                f"Which archetypes are played in {fmt}?",
                context,
                Expect(kind, fmt, days, (f"archetypes in {fmt}**, {self.period(fmt, days)}",)),
            )
        if kind == "draft":
            assert self.catalog.draft is not None
            draft_id, draft_name = self.catalog.draft
            colour = self.rng.choice(list(COLOURS.values()))
            card_type = self.rng.choice(CARD_TYPES)
            return PlannedTurn(
                f"Which {colour} {card_type}s are in the {draft_name} cube pool?",
                context,
                Expect(
                    kind,
                    fmt,
                    days,
                    (f"**{draft_name}** (", f"{card_type}s with {colour} in their colour identity in the pool"),
                    draft_id=draft_id,
                ),
            )
        return PlannedTurn(  # rankings
            f"What are the top decks in {fmt}?",
            context,
            Expect("rankings", fmt, days, (f"**Top decks in {fmt}**, {self.period(fmt, days)}",)),
        )

    def _pair(self, fmt: str) -> tuple[str, str]:
        names = self.catalog.archetypes[fmt]
        for _ in range(UNIQUE_TRIES):
            subject, opponent = self.rng.sample(names, 2)
            if subject.lower() not in opponent.lower() and opponent.lower() not in subject.lower():
                return subject, opponent
        return names[0], names[1]


# --- one turn ----------------------------------------------------------------------------------------


@dataclass
class TurnRecord:
    """What a turn's stream showed (content joined, other events kept)."""

    status: int = 0
    body: str = ""
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    text: str = ""
    first_event_s: float | None = None
    done_s: float | None = None


def turn_problems(
    turn: PlannedTurn, record: TurnRecord, conversation_id: str | None
) -> tuple[list[str], list[str], str | None]:
    """(errors, cross-talk violations, the conversation id the stream gave) for one turn."""
    errors: list[str] = []
    wrong: list[str] = []
    if record.status != 200:
        return [f"HTTP {record.status}: {record.body[:300]}"], [], None
    kinds = [k for k, _ in record.events]
    for kind, data in record.events:
        if kind == "error":
            errors.append(f"error event {json.dumps(data)[:300]}")
        elif kind == "tool_call" and data.get("status") == "error":
            errors.append(f"tool_call error {json.dumps(data)[:300]}")
    errors = list(dict.fromkeys(errors))  # a failing tool may be retried within the turn
    if record.done_s is None:
        errors.append(f"stream ended without done (events: {kinds[-5:]})")
    if not record.events or kinds[0] != "metadata":
        errors.append(f"first event is not metadata: {kinds[:3]}")
        return errors, wrong, None
    expect = turn.expect
    meta = record.events[0][1]
    streamed_id = meta.get("conversation_id")
    if conversation_id is not None and streamed_id != conversation_id:
        wrong.append(f"metadata conversation_id {streamed_id} in a turn of {conversation_id}")
    if meta.get("format") != turn.context["format"]:
        wrong.append(f"metadata format {meta.get('format')!r}, sent {turn.context['format']!r}")
    for kind, data in record.events:
        if kind != "tool_call" or data.get("status") != "calling":
            continue
        arguments = data.get("arguments") or {}
        if expect.kind != "draft" and arguments.get("format") not in (None, expect.format):
            wrong.append(f"{data.get('tool')} called with format {arguments.get('format')!r}, asked {expect.format!r}")
        if expect.subject and arguments.get("archetype") not in (None, expect.subject):
            wrong.append(f"{data.get('tool')} called for {arguments.get('archetype')!r}, asked {expect.subject!r}")
        if expect.draft_id and arguments.get("draft_id") not in (None, expect.draft_id):
            wrong.append(
                f"{data.get('tool')} called for draft {arguments.get('draft_id')!r}, asked {expect.draft_id!r}"
            )
    if errors:  # the answer and state of a failed turn are not the question's; the error is reported
        return errors, wrong, streamed_id if isinstance(streamed_id, str) else None
    states = [data for kind, data in record.events if kind == "state"]
    if not states:
        errors.append(f"no state event (events: {kinds[-5:]})")
    else:
        state = states[-1]
        wanted: dict[str, Any] = {"format": expect.format}
        if expect.kind == "draft":
            wanted["draft_id"] = expect.draft_id
        else:
            wanted["days"] = expect.days
        if expect.opponent:
            wanted["opponent_archetype"] = expect.opponent
        for key, value in wanted.items():
            if state.get(key) != value:
                wrong.append(f"state {key}={state.get(key)!r}, asked {value!r}")
    for marker in expect.markers:
        if marker not in record.text:
            wrong.append(f"answer lacks {marker!r}: {record.text[:160]!r}")
    return errors, wrong, streamed_id if isinstance(streamed_id, str) else None


# --- the load ----------------------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


@dataclass
class LoadResult:
    """What a load run measured; times in ms except ``wall_s``; RSS in MB (None when not known)."""

    conversations: int
    turns_per_conversation: int
    concurrency: int
    turns_completed: int = 0
    conversations_verified: int = 0  # completed every turn and matched GET /conversations/{id}
    distinct_first_questions: int = 0
    errors: list[str] = field(default_factory=list)
    cross_talk: list[str] = field(default_factory=list)
    turn_ms: list[float] = field(default_factory=list)
    first_event_ms: list[float] = field(default_factory=list)
    view_ms: list[float] = field(default_factory=list)
    turn_ms_by_number: dict[int, list[float]] = field(default_factory=dict)
    status_counts: dict[int, int] = field(default_factory=dict)
    wall_s: float = 0.0
    rss_before_mb: float | None = None
    rss_after_mb: float | None = None
    rss_peak_mb: float | None = None
    server_cpu_s: float | None = None  # user + system CPU of the server process during the load
    dynamodb_rss_before_mb: float | None = None  # moto's process, when it runs apart from the server
    dynamodb_rss_after_mb: float | None = None

    @property
    def turns_requested(self) -> int:
        return self.conversations * self.turns_per_conversation

    @property
    def throughput(self) -> float:
        return self.turns_completed / self.wall_s if self.wall_s else 0.0

    @property
    def ok(self) -> bool:
        return not self.errors and not self.cross_talk and self.turns_completed == self.turns_requested


class _Run:
    def __init__(self, result: LoadResult, client: httpx.AsyncClient, concurrency: int) -> None:
        self.result = result
        self.client = client
        self.gate = asyncio.Semaphore(concurrency)
        self.ids: dict[str, int] = {}

    async def one_turn(self, turn: PlannedTurn, conversation_id: str | None) -> TurnRecord:
        record = TurnRecord()
        body = {"message": turn.message, "conversation_id": conversation_id, "context": turn.context}
        parts: list[str] = []
        async with self.gate:
            started = time.perf_counter()
            async with self.client.stream("POST", "/chat", json=body) as response:
                record.status = response.status_code
                if response.status_code != 200:
                    record.body = (await response.aread()).decode(errors="replace")
                    return record
                async for kind, data in aparse_sse(response.aiter_lines()):
                    now = time.perf_counter() - started
                    if record.first_event_s is None:
                        record.first_event_s = now
                    if kind == "content":
                        parts.append(str(data.get("text", "")))
                    elif kind == "done":
                        record.done_s = now
                    else:
                        record.events.append((kind, data))
                # read to the end of the body: the server releases the conversation's lock after `done`
        record.text = "".join(parts)
        return record

    async def conversation(self, index: int, plan: list[PlannedTurn]) -> None:
        result = self.result
        conversation_id: str | None = None
        transcript: list[dict[str, str]] = []
        last_state: dict[str, Any] | None = None
        for number, turn in enumerate(plan, start=1):
            where = f"conversation {index} turn {number} ({turn.message!r}, {turn.context})"
            try:
                record = await self.one_turn(turn, conversation_id)
            except (httpx.HTTPError, json.JSONDecodeError, OSError) as exc:
                result.errors.append(f"{where}: {type(exc).__name__}: {exc}")
                return
            result.status_counts[record.status] = result.status_counts.get(record.status, 0) + 1
            errors, wrong, streamed_id = turn_problems(turn, record, conversation_id)
            if number == 1 and streamed_id is not None:
                other = self.ids.setdefault(streamed_id, index)
                if other != index:
                    wrong.append(f"conversation_id {streamed_id} was already given to conversation {other}")
                conversation_id = streamed_id
            result.errors += [f"{where}: {e}" for e in errors]
            result.cross_talk += [f"{where}: {w}" for w in wrong]
            if errors or conversation_id is None or record.done_s is None:
                return
            result.turns_completed += 1
            assert record.first_event_s is not None
            result.turn_ms.append(record.done_s * 1000)
            result.first_event_ms.append(record.first_event_s * 1000)
            result.turn_ms_by_number.setdefault(number, []).append(record.done_s * 1000)
            transcript += [{"role": "user", "content": turn.message}, {"role": "assistant", "content": record.text}]
            last_state = next((d for k, d in reversed(record.events) if k == "state"), None)
        if conversation_id is None:
            return
        where = f"conversation {index} GET /conversations/{conversation_id}"
        try:
            async with self.gate:
                started = time.perf_counter()
                response = await self.client.get(f"/conversations/{conversation_id}")
                result.view_ms.append((time.perf_counter() - started) * 1000)
        except httpx.HTTPError as exc:
            result.errors.append(f"{where}: {type(exc).__name__}: {exc}")
            return
        if response.status_code != 200:
            result.errors.append(f"{where}: HTTP {response.status_code}: {response.text[:300]}")
            return
        view = response.json()
        problems = []
        if view.get("conversation_id") != conversation_id:
            problems.append(f"conversation_id {view.get('conversation_id')}")
        kept = view.get("messages", [])
        if kept != transcript[-len(kept) :] or len(kept) != min(len(transcript), 40):
            got = [(m.get("role"), str(m.get("content"))[:60]) for m in kept]
            problems.append(f"messages are not this conversation's {len(transcript)}: {got[:4]}")
        if last_state is not None and view.get("state") != last_state:
            problems.append(f"state {view.get('state')} differs from the last state event {last_state}")
        result.cross_talk += [f"{where}: {p}" for p in problems]
        if not problems:
            result.conversations_verified += 1


async def _sample_rss(pid: int, result: LoadResult) -> None:
    while True:
        current = rss_mb(pid)
        if current is not None:
            result.rss_peak_mb = max(result.rss_peak_mb or 0.0, current)
        await asyncio.sleep(0.5)


async def run_load_async(
    url: str,
    conversations: int,
    turns: int,
    concurrency: int,
    *,
    timeout: float | None = None,
    seed: int = 0,
    server_pid: int | None = None,
    dynamodb_pid: int | None = None,
) -> LoadResult:
    """Run the load against the server at ``url``; ``server_pid`` (and ``dynamodb_pid``) to measure
    RSS; ``timeout`` bounds the load itself (conversations not finished by then are errors)."""
    result = LoadResult(conversations, turns, concurrency)
    limits = httpx.Limits(max_connections=concurrency + 2, max_keepalive_connections=concurrency + 2)
    request_timeout = httpx.Timeout(timeout or 300.0, connect=30.0)
    async with httpx.AsyncClient(base_url=url, timeout=request_timeout, limits=limits, trust_env=False) as client:
        catalog = await read_catalog(client)
        planner = Planner(catalog, seed)
        plans = [planner.conversation(index, turns) for index in range(conversations)]
        result.distinct_first_questions = len({json.dumps([p[0].message, p[0].context]) for p in plans if p})
        run = _Run(result, client, concurrency)
        result.rss_before_mb = rss_mb(server_pid)
        result.dynamodb_rss_before_mb = rss_mb(dynamodb_pid)
        cpu_before = cpu_seconds(server_pid)
        sampler = asyncio.create_task(_sample_rss(server_pid, result)) if server_pid else None
        started = time.perf_counter()
        tasks = [asyncio.create_task(run.conversation(index, plan)) for index, plan in enumerate(plans)]
        done, pending = await asyncio.wait(tasks, timeout=timeout)
        result.wall_s = time.perf_counter() - started
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        if pending:
            result.errors.append(
                f"timed out after {timeout:g} s: {len(pending)} of {conversations} conversations unfinished"
            )
        for task in done:
            if task.exception() is not None:
                result.errors.append(f"bench failure: {task.exception()!r}")
        if sampler is not None:
            sampler.cancel()
            await asyncio.gather(sampler, return_exceptions=True)
        result.rss_after_mb = rss_mb(server_pid)
        result.dynamodb_rss_after_mb = rss_mb(dynamodb_pid)
        cpu_after = cpu_seconds(server_pid)
        if cpu_before is not None and cpu_after is not None:
            result.server_cpu_s = cpu_after - cpu_before
        if result.rss_after_mb is not None:
            result.rss_peak_mb = max(result.rss_peak_mb or 0.0, result.rss_after_mb)
    return result


def run_load(
    url: str,
    conversations: int,
    turns: int,
    concurrency: int,
    *,
    timeout: float | None = None,
    seed: int = 0,
    server_pid: int | None = None,
    dynamodb_pid: int | None = None,
) -> LoadResult:
    """``run_load_async`` in a new event loop (for callers without one)."""
    return asyncio.run(
        run_load_async(
            url,
            conversations,
            turns,
            concurrency,
            timeout=timeout,
            seed=seed,
            server_pid=server_pid,
            dynamodb_pid=dynamodb_pid,
        )
    )


# --- the table ---------------------------------------------------------------------------------------


def _ms(values: list[float], *shares: float) -> str:
    if not values:
        return "-"
    return " / ".join(f"{percentile(values, s):,.0f}" for s in shares)


def _mb(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _cpu(result: LoadResult) -> str:
    if result.server_cpu_s is None or not result.wall_s:
        return "-"
    return f"{result.server_cpu_s:,.1f} ({result.server_cpu_s / result.wall_s:.0%})"


def table(result: LoadResult) -> str:
    statuses = ", ".join(f"{status}: {count}" for status, count in sorted(result.status_counts.items()))
    rows = [
        ("conversations (verified by GET /conversations)", f"{result.conversations} ({result.conversations_verified})"),
        ("turns per conversation / in flight at most", f"{result.turns_per_conversation} / {result.concurrency}"),
        ("distinct first questions", f"{result.distinct_first_questions}"),
        ("turns completed", f"{result.turns_completed} / {result.turns_requested}"),
        ("HTTP statuses of /chat", statuses or "-"),
        ("errors", f"{len(result.errors)}"),
        ("cross-talk violations", f"{len(result.cross_talk)}"),
        ("turn time p50 / p95 / p99 (request → done), ms", _ms(result.turn_ms, 0.5, 0.95, 0.99)),
        ("time to first event p50 / p95, ms", _ms(result.first_event_ms, 0.5, 0.95)),
        ("GET /conversations/{id} p50 / p95, ms", _ms(result.view_ms, 0.5, 0.95)),
        ("wall time, s", f"{result.wall_s:,.1f}"),
        ("throughput, turns/s", f"{result.throughput:,.1f}"),
        ("server CPU during the load, s (share of the wall time)", _cpu(result)),
        (
            "server RSS before / after / peak, MB",
            " / ".join(map(_mb, (result.rss_before_mb, result.rss_after_mb, result.rss_peak_mb))),
        ),
    ]
    if result.dynamodb_rss_before_mb is not None:
        moto = " / ".join(map(_mb, (result.dynamodb_rss_before_mb, result.dynamodb_rss_after_mb)))
        rows.append(("DynamoDB (moto, own process) RSS before / after, MB", moto))
    if len(result.turn_ms_by_number) > 1:
        by_number = ", ".join(f"{n}: {statistics.median(v):,.0f}" for n, v in sorted(result.turn_ms_by_number.items()))
        rows.insert(8, ("turn time p50 by turn number, ms", by_number))
    verdict = "PASS" if result.ok else "FAIL"
    lines = ["| measure | value |", "|---|---:|", *(f"| {name} | {value} |" for name, value in rows)]
    lines.append(f"| verdict (no error, no cross-talk, every turn done) | {verdict} |")
    for title, problems in (("errors", result.errors), ("cross-talk violations", result.cross_talk)):
        if problems:
            lines.append(f"\nFirst {min(SHOWN_PROBLEMS, len(problems))} of {len(problems)} {title}:")
            lines += [f"- {p}" for p in problems[:SHOWN_PROBLEMS]]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=50)
    parser.add_argument("--turns", type=int, default=1, help="turns per conversation")
    parser.add_argument("--concurrency", type=int, default=50, help="requests in flight at most")
    parser.add_argument("--url", help="use this running server instead of starting one")
    parser.add_argument("--server-pid", type=int, help="with --url: the server's pid, to report its RSS")
    parser.add_argument("--timeout", type=float, default=900.0, help="bound on the load, in seconds")
    parser.add_argument("--seed", type=int, default=0, help="seed for drawing the questions")
    parser.add_argument(
        "--separate-dynamodb",
        action="store_true",
        help="run moto in its own process, so the server's RSS excludes the stored data",
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=0,
        metavar="CONVERSATIONS",
        help="first run this many conversations (another seed, not counted), so the RSS before is after warm-up",
    )
    args = parser.parse_args()
    if min(args.conversations, args.turns, args.concurrency) < 1:
        parser.error("--conversations, --turns and --concurrency must be at least 1")

    def load(url: str, pid: int | None, dynamodb_pid: int | None = None) -> LoadResult:
        if args.warmup:
            before = rss_mb(pid)
            warm = run_load(url, args.warmup, args.turns, args.concurrency, timeout=args.timeout, seed=args.seed + 1)
            print(
                f"Warm-up: {args.warmup} conversations x {args.turns} turns, {len(warm.errors)} errors; "
                f"server RSS {_mb(before)} -> {_mb(rss_mb(pid))} MB"
            )
        return run_load(
            url,
            args.conversations,
            args.turns,
            args.concurrency,
            timeout=args.timeout,
            seed=args.seed,
            server_pid=pid,
            dynamodb_pid=dynamodb_pid,
        )

    if args.url:
        print(f"Server at {args.url}")
        result = load(args.url.rstrip("/"), args.server_pid)
    else:
        started = time.perf_counter()
        with spawn_server(separate_dynamodb=args.separate_dynamodb) as server:
            where = f"moto in pid {server.dynamodb_pid}" if server.dynamodb_pid else "embedded moto"
            print(
                f"meta-mage serve (offline, {where}) at {server.url}, pid {server.pid}, healthy after "
                f"{time.perf_counter() - started:.1f} s (log: {server.log})"
            )
            result = load(server.url, server.pid, server.dynamodb_pid)
    print(
        f"{args.conversations} conversations x {args.turns} turns, at most {args.concurrency} requests in flight, "
        f"timeout {args.timeout:g} s\n"
    )
    print(table(result))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
