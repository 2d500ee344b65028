"""Benchmark: ordinary ``/chat`` turns while a flood of worst-case decklists hits ``meta-mage serve``.

Starts ``meta-mage serve`` offline with the demo data (``chat_load.spawn_server``; ``--url`` and
``--server-pid`` use a running server instead). A worst-case decklist is the costliest list the
limits accept: ``MAX_CARDS`` distinct made-up names of 10-22 letters, one copy each (no name matches
exactly, so every one goes through spelling correction and the similarity fallback; short names have
the most candidates within reach, so they cost more per name than long ones). It is pasted into the
message, as a user would, with the format as dropdown context; the coach enriches and classifies it.

1. Warm-up: one ordinary turn and one worst-case deck (builds the name index, fills the router's
   caches), then ``--cost-runs`` worst-case decks one after the other, measuring the server's CPU
   time (user + system, /proc) per deck turn, and as many ordinary turns for comparison.
2. Idle: ``--ordinary`` ordinary turns ("What are the top decks in Modern over the last 30 days?"),
   one after the other, each in a new conversation.
3. Flood: ``--flood`` clients each send worst-case decks back to back (each in a new conversation);
   once every client has one in flight, the same ordinary turns run again; then the flood stops
   sending and its requests in flight finish.

Prints a Markdown table: the ordinary turn's time to first event and to ``done`` (p50 / max), idle and
during the flood; the flood requests completed, their completion time (request to ``done``) p50 / max,
errors; the server CPU per worst-case deck; and a PASS/FAIL line for the target: an ordinary turn's
first event stays under 1 s during the flood (every turn of both kinds must also finish without an
error). Exit status 1 on FAIL.

Run: .venv/bin/python bench/deck_flood.py [--flood 12] [--ordinary 20] [--cost-runs 3] [--seed 0]
     [--url http://127.0.0.1:8000 --server-pid PID] [--timeout 600]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import string
import sys
import time
from dataclasses import dataclass, field

import httpx

from chat_load import cpu_seconds, percentile, spawn_server
from meta_mage.decks.parse import MAX_CARDS
from meta_mage.local.chat_client import aparse_sse

ORDINARY = "What are the top decks in Modern over the last 30 days?"
CONTEXT = {"format": "Modern"}
TARGET_FIRST_EVENT_S = 1.0
MESSAGE_CHARS = 8000  # Settings.max_message_chars


def worst_case_deck(rng: random.Random, cards: int = MAX_CARDS) -> str:
    """A message pasting ``cards`` distinct made-up card names of 10-22 letters, one copy each."""
    names: set[str] = set()
    while len(names) < cards:
        names.add("".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(10, 22))).capitalize())
    return "Please review my deck:\n" + "\n".join(f"1 {name}" for name in sorted(names))


def worst_case_words(rng: random.Random, chars: int = MESSAGE_CHARS) -> str:
    """A message at the length limit of 4-letter words, the shortest the router reads as possible archetype
    words (one lookup each), with the words of real archetype names among them."""
    real = ["tron", "zoo", "burn", "boros", "blink", "eldrazi", "energy", "jeskai", "amulet", "titan"]
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < chars - 30:
        words.append(rng.choice(real) if rng.random() < 0.2 else "".join(rng.choices(string.ascii_lowercase, k=4)))
    return ("How do these do in Modern? " + " ".join(words))[:chars].rsplit(" ", 1)[0]


PAYLOADS = {"deck": worst_case_deck, "words": worst_case_words}


@dataclass
class Turn:
    """What one streamed turn showed; times in seconds from the request."""

    first_event_s: float | None = None
    done_s: float | None = None
    problems: list[str] = field(default_factory=list)


async def one_turn(client: httpx.AsyncClient, message: str) -> Turn:
    turn = Turn()
    body = {"message": message, "conversation_id": None, "context": CONTEXT}
    started = time.perf_counter()
    try:
        async with client.stream("POST", "/chat", json=body) as response:
            if response.status_code != 200:
                text = (await response.aread()).decode(errors="replace")
                turn.problems.append(f"HTTP {response.status_code}: {text[:200]}")
                return turn
            async for kind, data in aparse_sse(response.aiter_lines()):
                now = time.perf_counter() - started
                if turn.first_event_s is None:
                    turn.first_event_s = now
                if kind == "done":
                    turn.done_s = now
                elif kind == "error" or (kind == "tool_call" and data.get("status") == "error"):
                    turn.problems.append(f"{kind}: {str(data)[:200]}")
    except httpx.HTTPError as exc:
        turn.problems.append(f"{type(exc).__name__}: {exc}")
    if turn.done_s is None and not turn.problems:
        turn.problems.append("stream ended without done")
    return turn


@dataclass
class FloodResult:
    flood: int
    payload: str
    deck_chars: int
    deck_cpu_s: list[float] = field(default_factory=list)
    ordinary_cpu_s: list[float] = field(default_factory=list)
    idle: list[Turn] = field(default_factory=list)
    during: list[Turn] = field(default_factory=list)
    flood_turns: list[Turn] = field(default_factory=list)
    flood_wall_s: float = 0.0
    flood_cpu_s: float | None = None

    def problems(self) -> list[str]:
        named = [("idle ordinary", self.idle), ("ordinary during flood", self.during), ("flood", self.flood_turns)]
        return [f"{where}: {p}" for where, turns in named for t in turns for p in t.problems]

    @property
    def first_event_max_s(self) -> float | None:
        times = [t.first_event_s for t in self.during if t.first_event_s is not None]
        return max(times) if times else None

    @property
    def ok(self) -> bool:
        worst = self.first_event_max_s
        complete = all(t.done_s is not None for t in self.during) and len(self.during) > 0
        return not self.problems() and complete and worst is not None and worst < TARGET_FIRST_EVENT_S


async def _cpu_per_turn(client: httpx.AsyncClient, pid: int | None, message: str, runs: int) -> list[float]:
    costs = []
    for _ in range(runs):
        before = cpu_seconds(pid)
        await one_turn(client, message)
        after = cpu_seconds(pid)
        if before is not None and after is not None:
            costs.append(after - before)
    return costs


async def run_flood_async(
    url: str,
    *,
    flood: int,
    ordinary: int,
    cost_runs: int,
    seed: int,
    timeout: float,
    server_pid: int | None,
    payload: str = "deck",
) -> FloodResult:
    rng = random.Random(seed)
    decks = [PAYLOADS[payload](rng) for _ in range(flood + cost_runs + 1)]
    described = f"a decklist of {MAX_CARDS} made-up names" if payload == "deck" else "4-letter words"
    result = FloodResult(flood, described, len(decks[0]))
    limits = httpx.Limits(max_connections=flood + 4, max_keepalive_connections=flood + 4)
    request_timeout = httpx.Timeout(timeout, connect=30.0)
    async with httpx.AsyncClient(base_url=url, timeout=request_timeout, limits=limits, trust_env=False) as client:
        await one_turn(client, ORDINARY)
        await one_turn(client, decks[-1])
        result.deck_cpu_s = await _cpu_per_turn(client, server_pid, decks[0], cost_runs)
        result.ordinary_cpu_s = await _cpu_per_turn(client, server_pid, ORDINARY, cost_runs)
        result.idle = [await one_turn(client, ORDINARY) for _ in range(ordinary)]

        stop = asyncio.Event()
        in_flight = asyncio.Semaphore(0)

        async def flooder(index: int) -> None:
            sent = 0
            while not stop.is_set():
                task = asyncio.ensure_future(one_turn(client, decks[(index + sent) % len(decks)]))
                sent += 1
                if sent == 1:
                    in_flight.release()
                result.flood_turns.append(await task)

        cpu_before = cpu_seconds(server_pid)
        started = time.perf_counter()
        flooders = [asyncio.create_task(flooder(i)) for i in range(flood)]
        for _ in range(flood):
            await in_flight.acquire()
        await asyncio.sleep(0.2)  # the requests reach the server and their tools start
        try:
            async with asyncio.timeout(timeout):
                result.during = [await one_turn(client, ORDINARY) for _ in range(ordinary)]
                stop.set()
                await asyncio.gather(*flooders)
        except TimeoutError:
            result.during.append(Turn(problems=[f"the flood phase did not end within {timeout:g} s"]))
            for task in flooders:
                task.cancel()
            await asyncio.gather(*flooders, return_exceptions=True)
        result.flood_wall_s = time.perf_counter() - started
        cpu_after = cpu_seconds(server_pid)
        if cpu_before is not None and cpu_after is not None:
            result.flood_cpu_s = cpu_after - cpu_before
    return result


def _spread(values: list[float | None], unit: str = "ms") -> str:
    """p50 / max of times in seconds, shown in ms or s; turns without the time are counted apart."""
    present = [v for v in values if v is not None]
    if not present:
        return "-"

    def shown(value: float) -> str:
        return f"{value * 1000:,.0f}" if unit == "ms" else f"{value:,.2f}"

    missing = f" ({len(values) - len(present)} missing)" if len(present) < len(values) else ""
    return f"{shown(percentile(present, 0.5))} / {shown(max(present))} {unit}{missing}"


def table(result: FloodResult) -> str:
    deck_cpu = f"{percentile(result.deck_cpu_s, 0.5) * 1000:,.0f} ms" if result.deck_cpu_s else "-"
    ordinary_cpu = f"{percentile(result.ordinary_cpu_s, 0.5) * 1000:,.0f} ms" if result.ordinary_cpu_s else "-"
    flood_done = [t.done_s for t in result.flood_turns]
    cpu_share = (
        f"{result.flood_cpu_s:,.1f} s ({result.flood_cpu_s / result.flood_wall_s:.0%} of one core)"
        if result.flood_cpu_s is not None and result.flood_wall_s
        else "-"
    )
    rows = [
        ("flood message", f"{result.payload}, {result.deck_chars:,} characters"),
        ("server CPU per turn: flood message / ordinary (median)", f"{deck_cpu} / {ordinary_cpu}"),
        ("ordinary turns idle / during the flood", f"{len(result.idle)} / {len(result.during)}"),
        ("ordinary first event p50 / max, idle", _spread([t.first_event_s for t in result.idle])),
        ("ordinary first event p50 / max, during the flood", _spread([t.first_event_s for t in result.during])),
        ("ordinary turn (request → done) p50 / max, idle", _spread([t.done_s for t in result.idle])),
        ("ordinary turn (request → done) p50 / max, during the flood", _spread([t.done_s for t in result.during])),
        ("flood clients (worst-case decks in flight)", f"{result.flood}"),
        ("flood requests completed", f"{sum(t.done_s is not None for t in result.flood_turns)}"),
        ("flood request (request → done) p50 / max", _spread(flood_done, "s")),
        ("flood phase wall time / server CPU", f"{result.flood_wall_s:,.1f} s / {cpu_share}"),
        ("errors (HTTP, error events, tool errors, unfinished streams)", f"{len(result.problems())}"),
    ]
    worst = result.first_event_max_s
    verdict = "PASS" if result.ok else "FAIL"
    seen = "-" if worst is None else f"{worst * 1000:,.0f} ms"
    lines = ["| measure | value |", "|---|---:|", *(f"| {name} | {value} |" for name, value in rows)]
    lines.append(
        f"| {verdict}: ordinary first event under {TARGET_FIRST_EVENT_S:g} s during the flood, no errors | max {seen} |"
    )
    problems = result.problems()
    if problems:
        lines.append(f"\nFirst {min(5, len(problems))} of {len(problems)} errors:")
        lines += [f"- {p}" for p in problems[:5]]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", type=int, default=12, help="clients sending worst-case decks back to back")
    parser.add_argument("--ordinary", type=int, default=20, help="ordinary turns idle and during the flood")
    parser.add_argument("--cost-runs", type=int, default=3, help="turns measured for CPU per turn")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--payload",
        choices=sorted(PAYLOADS),
        default="deck",
        help="what floods: worst-case decklists, or messages at the length limit of 4-letter words",
    )
    parser.add_argument("--timeout", type=float, default=600.0, help="bound on one request and on the flood phase")
    parser.add_argument("--url", help="use this running server instead of starting one")
    parser.add_argument("--server-pid", type=int, help="with --url: the server's pid, to measure its CPU")
    args = parser.parse_args()
    if min(args.flood, args.ordinary, args.cost_runs) < 1:
        parser.error("--flood, --ordinary and --cost-runs must be at least 1")

    def flood(url: str, pid: int | None) -> FloodResult:
        return asyncio.run(
            run_flood_async(
                url,
                flood=args.flood,
                ordinary=args.ordinary,
                cost_runs=args.cost_runs,
                seed=args.seed,
                timeout=args.timeout,
                server_pid=pid,
                payload=args.payload,
            )
        )

    if args.url:
        print(f"Server at {args.url}")
        result = flood(args.url.rstrip("/"), args.server_pid)
    else:
        started = time.perf_counter()
        with spawn_server() as server:
            print(
                f"meta-mage serve (offline, embedded moto) at {server.url}, pid {server.pid}, healthy after "
                f"{time.perf_counter() - started:.1f} s (log: {server.log})"
            )
            result = flood(server.url, server.pid)
    print(f"{args.flood} flood clients ({args.payload}), {args.ordinary} ordinary turns idle and during the flood\n")
    print(table(result))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
