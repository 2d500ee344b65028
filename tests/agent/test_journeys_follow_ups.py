"""Generated journeys of the conversation's new shapes: after every task's answer, a question about that answer
in the middle (answered, the request kept), then a follow-up that changes one slot ("and the last 7 days?",
"and against Domain Zoo?") and re-runs the same task; a bare "why?" after every task's answer, answered from that
task's record; and a second deck pasted after a first, which replaces it and forgets the first one's opponent."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest

from meta_mage.agent.conversation import Conversations
from meta_mage.agent.explain import how_ranked
from tests.agent.conftest import Turn, modern_deck, run_turn

# One event loop for the module (a loop per test costs more than most of its turns), the world frozen.
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("frozen_world")]

WINDOW = " in Modern over the last 30 days"
TASKS = {  # the question, the tool that answers it, whether it is about the pasted deck, whether it has an opponent
    "deck_matchups": ("What are my worst matchups?", "get_deck_matchup_stats", True, False),
    "strategy": ("How do I play against Jeskai Blink?", "generate_deck_matchup_strategy", True, True),
    "sideboard guide": ("How should I sideboard against Jeskai Blink?", "generate_deck_matchup_strategy", True, True),
    "optimize_mainboard": ("Which flex slots should I change in my main deck?", "optimize_mainboard", True, False),
    "optimize_sideboard": ("Optimize my sideboard", "optimize_sideboard", True, False),
    "rankings": ("What are the top decks?", "get_format_meta_rankings", False, False),
    "recommend": ("What should I play?", "get_format_matchup_stats", False, False),
    "matchups": ("How does Boros Energy do against Jeskai Blink?", "get_deck_matchup_stats", False, True),
    "card_question": ("Is Fatal Push good against Jeskai Blink?", "get_card_evidence", False, True),
    "archetype_page": ("Tell me about Boros Energy", "get_archetype_page", False, False),
}
ABOUT_THE_ANSWER = {  # a question about the last answer, and how its answer starts
    "a term": ("what does 'estimate' mean?", "**estimate**:"),
    "how do you know": ("how do you know?", ""),
}
FOLLOW_UPS = {  # the follow-up, the tasks it applies to
    "another window": ("and the last 7 days?", lambda has_opponent: True),
    "another opponent": ("and against Domain Zoo?", lambda has_opponent: has_opponent),
}


@dataclass(frozen=True)
class Shape:
    task: str
    about: str
    follow_up: str

    @property
    def id(self) -> str:
        return f"{self.task} | {self.about} | {self.follow_up}"


# every task with every follow-up that applies to it; the questions about the answer taken in turn
SHAPES = [
    Shape(task, about, follow_up)
    for (task, follow_up), about in zip(
        [(t, f) for t, f in itertools.product(TASKS, FOLLOW_UPS) if FOLLOW_UPS[f][1](TASKS[t][3])],
        itertools.cycle(ABOUT_THE_ANSWER),
    )
]


async def answered(offline: Conversations, message: str, conversation_id: str | None) -> Turn:
    """The turn's answer, after confirming a suggested archetype if the coach asks."""
    turn = await run_turn(offline, message, conversation_id)
    if "Is that right?" in turn.text:
        turn = await run_turn(offline, "yes", turn.conversation_id)
    return turn


@pytest.mark.parametrize("shape", SHAPES, ids=[s.id for s in SHAPES])
async def test_a_follow_up_reruns_the_task_after_a_question_about_the_answer(
    offline: Conversations, shape: Shape
) -> None:
    question, tool, about_deck, _ = TASKS[shape.task]
    deck, _source = modern_deck("Boros Energy")
    asked = question[:-1] + WINDOW + "?" if question.endswith("?") else question + WINDOW
    # Given the task's answer (with the deck pasted first for a deck task)
    cid = (await answered(offline, deck, None)).conversation_id if about_deck else None
    first = await answered(offline, asked, cid)
    assert tool in first.tools(), f"{shape.id}: {first.text[:300]}"

    # When the player asks about that answer, in the middle
    meant, starts = ABOUT_THE_ANSWER[shape.about]
    about = await run_turn(offline, meant, first.conversation_id)
    assert about.tools() == [] and about.text.startswith(starts), about.text[:300]
    assert about.state == first.state  # nothing about the request changed

    # Then a follow-up re-runs the same task with the one slot changed
    follow_up, _applies = FOLLOW_UPS[shape.follow_up]
    again = await run_turn(offline, follow_up, first.conversation_id)
    assert tool in again.tools(), f"{shape.id}: {again.text[:300]}"
    if shape.follow_up == "another window":
        assert again.state["days"] == 7 and again.state["format"] == "Modern"
        assert again.state["opponent_archetype"] == first.state["opponent_archetype"]
    else:
        assert again.state["opponent_archetype"] == "Domain Zoo"
        assert "Domain Zoo" in again.text.split("\n", 1)[0] + again.text.split("\n\n", 2)[1]
    if about_deck:  # the deck stays the player's
        assert (again.state["archetype"], again.state["has_deck"]) == ("Boros Energy", True)


@pytest.mark.parametrize("task", [t for t, (_q, _tool, about_deck, _o) in TASKS.items() if about_deck])
async def test_a_second_deck_replaces_the_first_and_its_opponent(offline: Conversations, task: str) -> None:
    question, tool, _, _ = TASKS[task]
    first_deck, _source = modern_deck("Boros Energy")
    second_deck, _source = modern_deck("Jeskai Blink")
    # Given a first deck coached against Domain Zoo
    cid = (await answered(offline, first_deck, None)).conversation_id
    await answered(offline, f"How do I play against Domain Zoo{WINDOW}?", cid)

    # When a second deck is pasted and the task asked for it
    pasted = await answered(offline, second_deck, cid)
    assert pasted.state["archetype"] == "Jeskai Blink"
    assert pasted.state["opponent_archetype"] is None  # the first deck's opponent is not this deck's
    answer = await answered(offline, question, cid)

    # Then the answer is about the second deck (its statistics may be fetched when it is confirmed)
    assert tool in pasted.tools() + answer.tools(), answer.text[:300]
    assert (answer.state["archetype"], answer.state["format"]) == ("Jeskai Blink", "Modern")
    assert "Boros Energy vs" not in answer.text and "Jeskai Blink" in answer.text


RECORDS = {"sideboard guide": "strategy"}  # the task record each question is answered by, where not its key


@pytest.mark.parametrize("task", list(TASKS))
async def test_why_after_each_answer_explains_that_answer_and_the_request_goes_on(
    offline: Conversations, task: str
) -> None:
    question, tool, about_deck, _ = TASKS[task]
    asked = question[:-1] + WINDOW + "?" if question.endswith("?") else question + WINDOW
    # Given the task's answer (with the deck pasted first for a deck task)
    cid = (await answered(offline, modern_deck("Boros Energy")[0], None)).conversation_id if about_deck else None
    first = await answered(offline, asked, cid)
    assert tool in first.tools(), f"{task}: {first.text[:300]}"

    # When the player asks only "why?"
    why = await run_turn(offline, "why?", first.conversation_id)

    # Then the answer is how that task's answer is ordered and judged (its record's), and nothing changed
    assert why.tools() == [] and why.text.startswith(how_ranked(RECORDS.get(task, task))), why.text[:300]
    assert why.state == first.state
    # and the next follow-up still re-runs the task
    again = await run_turn(offline, "and the last 7 days?", first.conversation_id)
    assert tool in again.tools() and again.state["days"] == 7, f"{task}: {again.text[:300]}"
