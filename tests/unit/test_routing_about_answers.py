"""Questions about the last answer and the words that name a deck by its place (issue 53), on plain data: a bare
"why?" after any task is that task's record's explanation; "why is affinity first?" says where Affinity stands in
the last answer; "against the most played deck" names the format's first archetype, never a meta question."""

from __future__ import annotations

import pytest

from meta_mage.agent.explain import SOURCE, explanation, how_ranked
from meta_mage.agent.render import Paragraph, Table
from meta_mage.agent.state import ConversationState, Pending, Route
from meta_mage.agent.tasks import TASKS
from meta_mage.agent.words import MOST_PLAYED

RANKINGS = Table(
    ("#", "Archetype", "Meta share"),
    (("1", "Jeskai Blink", "15.4%"), ("2", "Boros Energy", "9.3%"), ("3", "Affinity", "8.3%")),
)


def after(task: str) -> ConversationState:
    return ConversationState(route=Route(workflow=TASKS[task].workflow, task=task))


@pytest.mark.parametrize("task", [name for name, spec in TASKS.items() if spec.how_ranked])
@pytest.mark.parametrize("why", ["why?", "Why", "how come?", "why is that?", "how so?"])
def test_a_bare_why_after_any_task_is_its_records_explanation(task: str, why: str) -> None:
    assert explanation(why, after(task)) == f"{how_ranked(task)}\n\n{SOURCE}"


@pytest.mark.parametrize("message", ["why?", "why not play Affinity?", "why is that deck so popular in Modern?"])
def test_a_why_with_no_answer_before_or_about_something_else_is_routed(message: str) -> None:
    known = ConversationState() if message == "why?" else after("strategy")
    assert explanation(message, known, [Paragraph("text")]) is None


def test_why_while_the_coach_waits_for_an_answer_is_not_about_an_answer() -> None:
    waiting = after("rankings").model_copy(update={"pending": Pending(workflow="meta_research", missing="days")})
    assert explanation("why?", waiting) is None


@pytest.mark.parametrize("message", ["why is affinity ranked first?", "Why is Affinity ranked first?"])
def test_why_is_a_deck_ranked_says_where_it_stands_with_its_row(message: str) -> None:
    text = explanation(message, after("rankings"), [RANKINGS])
    assert text is not None and text.startswith(how_ranked("rankings"))
    assert "**Affinity** is #3 in the last answer." in text and "| 3 | Affinity | 8.3% |" in text
    assert "Jeskai Blink" not in text


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("how should I sideboard against the most played deck?", "the most played deck"),
        ("how do I beat the best deck?", "the best deck"),
        ("what do I bring in vs the top deck", "the top deck"),
        ("how do I play against the most popular archetype?", "the most popular archetype"),
        ("how should I sideboard against the top deck in Pioneer?", "the top deck"),
    ],
)
def test_the_most_played_deck_as_an_opponent_is_read(message: str, said: str) -> None:
    found = MOST_PLAYED.search(message)
    assert found is not None and found.group("deck") == said


@pytest.mark.parametrize(
    "message",
    [
        "what is the best deck in Modern?",
        "what are the top decks?",
        "the top one",
        "How should I sideboard my Pauper deck against the top decks?",
    ],
)
def test_the_best_deck_asked_about_is_a_meta_question_not_an_opponent(message: str) -> None:
    assert MOST_PLAYED.search(message) is None
