"""Benchmark: how long each kind of question takes the coach, offline, so no kind lags the others.

Runs ``Conversations.turn`` in offline mode against the embedded DynamoDB (moto, in this process) loaded with
the demo data. Each kind of question is asked ``--turns`` times, each time in a new conversation set up first by
unmeasured turns (a deck kind pastes a real Modern Boros Energy list from the demo tournaments and confirms
it): meta rankings, one archetype's matchups, the matchup grid, what to play, a card against a deck, the deck's
matchup spread, the deck's guide against Jeskai Blink, and a cube draft's pool with who took what. The first
round of every kind is warm-up (the router's and the models' caches), not measured.

Per row: median and p95 of the measured turn's wall time, and the median as a multiple of the rankings
question's. Judged: the cube question within 2x the rankings question (exit status 1 when missed).

Run: .venv/bin/python bench/question_kinds.py [--turns 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tarfile
import time
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

from meta_mage.agent.conversation import Conversations
from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import Settings
from meta_mage.local.embedded import embedded_dynamodb
from meta_mage.local.seed import DEMO_TOURNAMENTS, seed_demo
from meta_mage.storage.dynamo import dynamodb_resource
from meta_mage.wiring import coach_from_settings

WINDOW = "in Modern over the last 30 days"
CUBE_WITHIN = 2.0  # the cube question's median, at most this multiple of the rankings question's


@dataclass(frozen=True)
class Kind:
    name: str
    question: str
    with_deck: bool = False


KINDS = (
    Kind("meta rankings", f"What are the top decks {WINDOW}?"),
    Kind("matchup", f"How does Boros Energy do against Jeskai Blink {WINDOW}?"),
    Kind("matchup grid", f"Show me the matchup grid {WINDOW}"),
    Kind("what to play", f"What should I play {WINDOW}?"),
    Kind("card", f"Is Fatal Push good against Boros Energy {WINDOW}?"),
    Kind("deck spread", "What are my worst matchups?", with_deck=True),
    Kind("deck guide", "How should I sideboard against Jeskai Blink?", with_deck=True),
    Kind("cube pool", "What green creatures were in the Tarkir draft, and who took them?"),
)


def boros_energy_list() -> str:
    """A real 60 + 15 Modern Boros Energy list from the demo tournaments, as a player pastes it."""
    classifier = get_classifier(Settings().archetype_rules_dir)
    with tarfile.open(DEMO_TOURNAMENTS) as archive:
        for member in archive.getmembers():
            handle = archive.extractfile(member)
            tournament = json.loads(handle.read()) if handle else {}
            if tournament.get("Tournament", {}).get("Formats") != "Modern":
                continue
            for deck in tournament.get("Decks") or []:
                main = {c["CardName"]: c["Count"] for c in deck.get("Mainboard") or []}
                side = {c["CardName"]: c["Count"] for c in deck.get("Sideboard") or []}
                if sum(side.values()) == 15 and classifier.classify("Modern", main, side).archetype == "Boros Energy":
                    lines = [f"{n} {c}" for c, n in main.items()] + ["", "Sideboard"]
                    return "\n".join(lines + [f"{n} {c}" for c, n in side.items()])
    raise SystemExit("no Modern Boros Energy list in the demo tournaments")


async def say(coach: Conversations, message: str, conversation_id: str | None) -> tuple[str, str]:
    """The turn's conversation id and its text; a turn that ends in an error stops the bench."""
    text, cid = "", conversation_id or ""
    async for event in coach.turn(message, conversation_id):
        if event.event == "metadata":
            cid = event.data["conversation_id"]
        elif event.event == "content":
            text += event.data["text"]
        elif event.event == "error":
            raise SystemExit(f"{message!r} failed: {event.data}")
    return cid, text


async def one(coach: Conversations, kind: Kind, deck: str) -> float:
    """The measured question's wall time, in a new conversation set up for it."""
    cid = None
    if kind.with_deck:
        cid, asked = await say(coach, f"{deck}", None)
        cid, asked = await say(coach, "Modern, 30 days", cid)
        if "Is that right?" in asked:
            cid, _ = await say(coach, "yes", cid)
    started = time.perf_counter()
    await say(coach, kind.question, cid)
    return time.perf_counter() - started


async def measure(coach: Conversations, turns: int, deck: str) -> dict[str, list[float]]:
    for kind in KINDS:  # warm-up round
        await one(coach, kind, deck)
    times: dict[str, list[float]] = {kind.name: [] for kind in KINDS}
    for _ in range(turns):  # kinds interleaved: a slow moment of the machine is spread over all of them
        for kind in KINDS:
            times[kind.name].append(await one(coach, kind, deck))
    return times


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, default=10, help="measured questions per kind")
    args = parser.parse_args()
    settings = Settings(model="")
    deck = boros_energy_list()
    with embedded_dynamodb():
        db = dynamodb_resource(settings)
        seed_demo(settings, db)
        coach = coach_from_settings(settings, dynamodb=db)
        times = asyncio.run(measure(coach, args.turns, deck))
    baseline = statistics.median(times["meta rankings"])
    table = Table(title=f"Offline turn time per kind of question ({args.turns} each, after a warm-up round)")
    for column in ("question", "median ms", "p95 ms", "x rankings"):
        table.add_column(column, justify="left" if column == "question" else "right")
    for kind in KINDS:
        values = times[kind.name]
        median = statistics.median(values)
        table.add_row(kind.name, f"{median * 1000:.0f}", f"{p95(values) * 1000:.0f}", f"{median / baseline:.1f}")
    Console().print(table)
    cube = statistics.median(times["cube pool"]) / baseline
    verdict = "met" if cube <= CUBE_WITHIN else "MISSED"
    print(f"Target: the cube question within {CUBE_WITHIN:.0f}x the rankings question: {cube:.1f}x, {verdict}")
    return 0 if cube <= CUBE_WITHIN else 1


if __name__ == "__main__":
    sys.exit(main())
