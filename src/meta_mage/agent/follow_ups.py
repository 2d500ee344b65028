"""Follow-ups as declared rules: a message that re-runs the last answer's task with one slot changed.

Two tables. Each task's record declares its ``follow_ups``: the messages that start "and …" / "what about …" and
name something the last answer's task takes (an opponent, a card), each with when it holds, the task it runs
and the slots it keeps from the last answer. :data:`CONTINUATIONS` are the messages that only fill slots (a
format, a window, a name, a pool filter): per workflow, how the request in progress continues with them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from meta_mage.agent.reading import Reading, Slots
from meta_mage.agent.state import ConversationState, Route
from meta_mage.agent.tasks import TASKS
from meta_mage.agent.tasks.task import FollowUp

TaskChoice = tuple[str, Slots]  # a task and the slots its choice adds


# Every task's declared follow-ups, with the task whose answer each follows.
FOLLOW_UPS: tuple[tuple[str, FollowUp], ...] = tuple(
    (task.name, rule) for task in TASKS.values() for rule in task.follow_ups
)


def follow_up(reading: Reading, known: ConversationState, named_task: str) -> TaskChoice | None:
    """The first follow-up the last answer's task declares that holds (in the conversation's format), or None."""
    if not reading.follow_word or reading.slots["format"] not in (None, known.format):
        return None
    last = known.route or Route()
    spec = TASKS.get(last.task)
    for rule in spec.follow_ups if spec is not None else ():
        if rule.holds(reading, last, named_task):
            return rule.task, cast(Slots, {slot: _kept(slot, last, known) for slot in rule.keeps})
    return None


def _kept(slot: str, last: Route, known: ConversationState) -> object:
    """The last answer's ``slot``; its opponent is the state's when the player named it answering the coach."""
    kept = getattr(last, slot)
    return known.opponent_archetype if slot == "opponent" and not kept else kept


def deck_against(reading: Reading, known: ConversationState) -> TaskChoice:
    """ "and against X?" after an answer about the player's deck: the deck against X (never X as the deck)."""
    named = reading.slots["opponent"] or reading.slots["archetype"]
    return "strategy", {"opponent": named, "archetype": None}


def _continue_cube(reading: Reading, known: ConversationState, task: str, last: Route) -> TaskChoice:
    """ "what about red instants?" asks about the pool; the last filter stays when none is named."""
    extra: Slots = {"card_filter": reading.card_filter or last.card_filter, "draft": reading.draft}
    return ("draft_pool" if reading.card_filter or reading.draft else task), extra


def _continue_meta(reading: Reading, known: ConversationState, task: str, last: Route) -> TaskChoice:
    """The last answer's archetype and opponent stay in its format (names are per format); a card question keeps
    its card ("what about in Vintage?", "and the last 7 days?")."""
    extra: Slots = {}
    if reading.slots["format"] in (None, known.format):
        extra = {
            "archetype": reading.slots["archetype"] or last.archetype,
            "opponent": reading.slots["opponent"] or last.opponent,
        }
    if task == "card_question":
        extra["card"] = reading.slots["card"] or last.card
    return task, extra


def _continue_as_asked(reading: Reading, known: ConversationState, task: str, last: Route) -> TaskChoice:
    """Deck coaching: the deck is in the state; the message's slots are the change."""
    return task, {}


CONTINUATIONS: dict[str, Callable[[Reading, ConversationState, str, Route], TaskChoice]] = {
    "cube_draft": _continue_cube,
    "meta_research": _continue_meta,
    "deck_coaching": _continue_as_asked,
    "clarify": _continue_as_asked,
}
