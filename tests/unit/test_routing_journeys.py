"""Generated journeys at the routing level, in milliseconds each: the graph's route and guard nodes over plain
state (``Talk``), the guard's tool calls answered by what those tools write into the state. Whatever order the
player gives the deck, the question and the answers to the coach's questions in, and however they phrase
the answers, the request that finally runs is the one first asked, about the player's deck.
(``tests/agent/test_journeys.py`` plays a sample of the same journeys end to end.)"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import pytest

from meta_mage.agent.guards import check
from tests.unit.routing_data import CARDS, DECK, FORMATS, Talk, matchup_stats

# A record asked with no owner is the deck's while a deck is on the table; asked before any deck, it is the
# format's (its matchups grid), and a list pasted after that is reviewed: so no "question, then the deck" for it
OWNERLESS = ["worst matchups?"]
DECK_TASKS = {
    "deck_matchups": ["What are my worst matchups?", "How does my deck do against the field?", *OWNERLESS],
    "strategy": ["How do I play against Jeskai Blink?", "How should I sideboard against Jeskai Blink?"],
    "optimize_mainboard": ["Which flex slots should I change in my main deck?", "How can I improve my mainboard?"],
    "optimize_sideboard": ["Optimize my sideboard", "What should my sideboard be?"],
}
META_TASKS = {
    "rankings": ["What are the top decks?", "What's the metagame like?"],
    "matchups": ["How does Boros Energy do against Jeskai Blink?", "Boros Energy vs Jeskai Blink?"],
    "archetype_page": ["Tell me about Boros Energy", "What does the stock Boros Energy list look like?"],
}
CARRIES = {"nothing": "", "the format": " in Modern", "format and window": " in Modern over the last 30 days"}
FORMAT_SAID = ["Modern", "modern", "Modern please"]
DAYS_SAID = ["30", "30 days", "the last 30 days"]
ORDERS = ("question with the deck", "deck first", "question, then the deck", "deck, then a detour")
ANSWERS = ("format, then window", "window first", "both at once")


@dataclass(frozen=True)
class Journey:
    task: str
    question: str
    carries: str
    answers: str
    order: str
    fmt: str
    days: str

    def replies(self) -> list[str]:
        if self.answers == "format, then window":
            return [self.fmt, self.days]
        if self.answers == "window first":
            return [self.days, self.fmt]
        return [f"{self.fmt}, {self.days}"]


def journeys() -> list[Journey]:
    found = []
    for tasks, orders in ((DECK_TASKS, ORDERS), (META_TASKS, ("question",))):
        for (task, questions), carries, answers, order, fmt, days in itertools.product(
            tasks.items(), CARRIES, ANSWERS, orders, FORMAT_SAID, DAYS_SAID
        ):
            if carries == "format and window" and (answers != "format, then window" or fmt != "Modern"):
                continue  # nothing is left to answer: one journey of the kind is enough
            found += [
                Journey(task, question, carries, answers, order, fmt, days)
                for question in questions
                if not (question in OWNERLESS and order == "question, then the deck")
            ]
    return found


JOURNEYS = journeys()
# What the guard's tool calls write into the state (the tools themselves run in tests/agent)
WRITES: dict[str, dict[str, Any]] = {
    "get_enriched_deck": {"card_details": CARDS},
    "classify_deck": {"suggested_archetype": "Boros Energy"},
}


def opening(journey: Journey) -> list[str]:
    question = journey.question.rstrip("?") + CARRIES[journey.carries] + ("?" if journey.question.endswith("?") else "")
    if journey.order == "question":
        return [question]
    if journey.order == "question with the deck":
        return [f"{question}\n{DECK}"]
    if journey.order == "deck first":
        return [DECK, question]
    if journey.order == "question, then the deck":  # the list pasted after the coach's first question
        return [question, DECK]
    return [DECK, "what are the top decks in Modern over the last 14 days?", f"back to my deck: {question}"]


async def play(journey: Journey) -> tuple[str, Talk]:
    """Run the journey; answer each question the coach asks; return the task that finally runs."""
    talk, replies, sent = Talk(), journey.replies(), opening(journey)
    for _ in range(12):
        decision = await talk.say(sent.pop(0))
        route = talk.state["route"]
        step = talk.step
        while step is not None and step.kind == "call":  # the guard's tools, as their records write the state
            for call in step.calls:
                talk.state.update(WRITES.get(call.tool) or {"matchup_stats": _stats(talk)})
            step = check(talk.as_state(), route["workflow"], route["task"], [], FORMATS)
            talk.state["pending"] = (
                {"workflow": route["workflow"], "task": route["task"], "missing": step.missing, "route": route}
                if step.kind == "ask"
                else None
            )
        if sent:
            continue
        if step is None or step.kind != "ask":
            return (decision.task if step is not None else "clarify"), talk
        if step.missing in ("format", "days"):
            sent.append(replies.pop(0) if replies else ("Modern" if step.missing == "format" else "30"))
        elif step.missing == "archetype_confirmation":
            sent.append("yes, that's my deck")
        else:
            return f"asked for {step.missing}", talk
    return "no answer in 12 turns", talk


def _stats(talk: Talk) -> dict[str, Any]:
    known = talk.as_state()
    return matchup_stats(known.format or "Modern", known.archetype or "Boros Energy", known.days or 30)


def test_thousands_of_journeys_end_with_the_question_first_asked() -> None:
    import asyncio

    async def all_journeys() -> list[str]:
        failures = []
        for journey in JOURNEYS:
            task, talk = await play(journey)
            known = talk.as_state()
            wrong_deck = journey.task in DECK_TASKS and (known.format, known.archetype) != (
                "Modern",
                "Boros Energy",
            )
            if task != journey.task or wrong_deck:
                failures.append(f"{journey}: ran {task} with {known.format} / {known.archetype}")
        return failures

    failures = asyncio.run(all_journeys())
    assert len(JOURNEYS) >= 1000
    assert failures == [], f"{len(failures)} of {len(JOURNEYS)} journeys went astray, e.g. {failures[:3]}"


@pytest.mark.parametrize("journey", JOURNEYS[:: len(JOURNEYS) // 12], ids=lambda j: f"{j.task}|{j.order}|{j.answers}")
async def test_a_sample_of_the_journeys(journey: Journey) -> None:
    """A few of the same journeys as their own tests, so a failure names its journey."""
    task, _talk = await play(journey)
    assert task == journey.task
