"""Generated journeys of a confirmed deck in every bundled format (issue 53): a name only another format plays,
asked as the opponent, keeps the deck and asks which opponent; "how should I sideboard?" with no opponent asks
which one, listing the format's most played decks; the opponent then named gets the guide, about the deck."""

from __future__ import annotations

from typing import Any

import pytest

from meta_mage.agent.conversation import Conversations
from meta_mage.agent.tools import in_process_executor
from meta_mage.wiring import coach_from_settings
from tests.agent.conftest import run_turn
from tests.integration.test_guides_across_formats import demo_lists

FORMATS = ("Standard", "Pioneer", "Modern", "Pauper", "Legacy", "Vintage")
QUESTIONS = {  # the question with no opponent of the deck's format ({other}: a deck only another format plays)
    "another format's deck, sideboarding": "How should I sideboard against {other}?",
    "another format's deck, playing": "How do I play against {other}?",
    "no opponent": "How should I sideboard?",
}


@pytest.fixture(scope="module")
def coach(demo_world: dict[str, Any]) -> Conversations:
    executor = in_process_executor(demo_world["registry"], demo_world["context"])
    return coach_from_settings(demo_world["settings"], dynamodb=demo_world["db"], executor=executor)


async def names(coach: Conversations, fmt: str) -> tuple[str, str, str]:
    """The format's most played deck with a demo list, and a deck another format plays that this one never has,
    with that format."""
    lookups = coach.deps.lookups
    deck = next(name for name in await lookups.archetypes(fmt) if name in demo_lists()[fmt])
    here = set(await lookups.archetypes(fmt, 365))
    for other_format in FORMATS:
        if other_format != fmt:
            played = [n for n in await lookups.archetypes(other_format) if n not in here]
            if played:
                return deck, played[0], other_format
    raise LookupError(fmt)


@pytest.mark.parametrize("question", list(QUESTIONS))
@pytest.mark.parametrize("fmt", FORMATS)
async def test_a_confirmed_deck_keeps_its_deck_and_is_asked_its_opponent(
    coach: Conversations, fmt: str, question: str
) -> None:
    deck, other, other_format = await names(coach, fmt)
    # Given a confirmed deck of the format, its window given
    pasted = await run_turn(coach, f"Here is my {fmt} deck, last 30 days\n{demo_lists()[fmt][deck]}")
    cid = pasted.conversation_id
    assert f"**{deck}** in {fmt}. Is that right?" in pasted.text, pasted.text[:300]
    await run_turn(coach, "yes", cid)

    # When the player asks about a matchup naming no opponent of this format
    asked = await run_turn(coach, QUESTIONS[question].format(other=other), cid)

    # Then the deck is kept, the coach says why if a name was given, and asks which opponent, listing the most played
    said = f"{other} is a {other_format} deck; your deck is {fmt}. " if "{other}" in QUESTIONS[question] else ""
    listed = f"{said}Which archetype are you playing against? The most played in {fmt}: "
    assert asked.text.startswith(listed), asked.text[:300]
    assert (asked.state["format"], asked.state["archetype"], asked.state["opponent_archetype"]) == (fmt, deck, None)
    # and the first one listed gets the guide, about the player's deck
    opponent = asked.text[len(listed) :].split(",")[0].rstrip(".")
    assert opponent != deck
    guide = await run_turn(coach, opponent, cid)
    assert guide.text.startswith(f"**{deck} vs {opponent}** in {fmt}"), guide.text[:300]
    assert (guide.state["format"], guide.state["archetype"]) == (fmt, deck)
