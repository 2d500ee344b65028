"""Generated journeys: whatever order the player gives the deck, the question and the answers to the coach's
questions in, the last answer is the question first asked, about the deck and archetype the player gave."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest

from meta_mage.agent.conversation import Conversations
from tests.agent.conftest import modern_deck, run_turn

DECK_TASKS = {  # the question, and the tool whose answer is the answer to it
    "deck_matchups": ("What are my worst matchups?", "get_deck_matchup_stats"),
    "strategy": ("How do I play against Jeskai Blink?", "generate_deck_matchup_strategy"),
    "sideboard guide": ("How should I sideboard against Jeskai Blink?", "generate_deck_matchup_strategy"),
    "optimize_mainboard": ("Which flex slots should I change in my main deck?", "optimize_mainboard"),
    "optimize_sideboard": ("Optimize my sideboard", "optimize_sideboard"),
}
META_TASKS = {
    "rankings": ("What are the top decks?", "get_format_meta_rankings"),
    "matchups": ("How does Boros Energy do against Jeskai Blink?", "get_deck_matchup_stats"),
}
CARRIES = {"nothing": "", "the format": " in Modern", "format and window": " in Modern over the last 30 days"}
# how the player answers the coach's format and window questions
ANSWERS = {
    "format, then window": ["Modern", "30"],
    "window first": ["last 30 days", "Modern"],
    "both at once": ["Modern, last 30 days"],
}
ORDERS = ("question with the deck", "deck first", "deck, then a detour")


@dataclass(frozen=True)
class Journey:
    task: str
    carries: str
    answers: str
    order: str

    @property
    def id(self) -> str:
        return f"{self.task} | {self.carries} | {self.answers} | {self.order}"


JOURNEYS = [
    Journey(task, carries, answers, order)
    for task, carries, answers, order in itertools.product(DECK_TASKS, CARRIES, ANSWERS, ORDERS)
    if not (carries == "format and window" and answers != "format, then window")  # nothing left to answer
] + [
    Journey(task, carries, answers, "question")
    for task, carries, answers in itertools.product(META_TASKS, CARRIES, ANSWERS)
    if not (carries == "format and window" and answers != "format, then window")
]


def with_carries(question: str, carries: str) -> str:
    return question[:-1] + CARRIES[carries] + "?" if question.endswith("?") else question + CARRIES[carries]


async def play(offline: Conversations, journey: Journey) -> tuple[list[str], str, dict[str, object]]:
    """Run the journey; answer whatever the coach asks; return the last turn's tools, text and state."""
    deck, _ = modern_deck("Boros Energy")
    question, _tool = DECK_TASKS.get(journey.task) or META_TASKS[journey.task]
    question = with_carries(question, journey.carries)
    if journey.order == "question":
        opening = [question]
    elif journey.order == "question with the deck":
        opening = [f"{question}\n{deck}"]
    elif journey.order == "deck first":
        opening = [deck, question]
    else:  # the deck, a question about something else answered in between, then the deck's question
        opening = [deck, "what are the top decks in Modern over the last 14 days?", f"back to my deck: {question}"]
    answers = list(ANSWERS[journey.answers])
    cid = None
    turn = None
    sent = list(opening)
    for _ in range(10):
        message = sent.pop(0)
        turn = await run_turn(offline, message, cid)
        cid = turn.conversation_id
        if sent:
            continue
        text = turn.text
        if "Is that right?" in text:
            sent.append("yes, that's my deck")
        elif ("Which format" in text or "How many days" in text) and answers:
            sent.append(answers.pop(0))
        elif "Which format" in text or "How many days" in text:
            sent.append("Modern" if "Which format" in text else "30")
        else:
            break
    assert turn is not None
    return turn.tools(), turn.text, turn.state


@pytest.mark.parametrize("journey", JOURNEYS, ids=[j.id for j in JOURNEYS])
async def test_the_last_answer_is_the_question_first_asked(offline: Conversations, journey: Journey) -> None:
    tools, text, state = await play(offline, journey)
    _question, tool = DECK_TASKS.get(journey.task) or META_TASKS[journey.task]
    assert tool in tools, f"{journey.id}: ended with {tools}: {text[:300]}"
    if journey.task in DECK_TASKS:
        assert (state.get("format"), state.get("archetype")) == ("Modern", "Boros Energy"), state
        if journey.task in ("strategy", "sideboard guide"):
            assert "**Boros Energy vs Jeskai Blink**" in text
