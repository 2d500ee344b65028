"""A deck conversation keeps its deck when a message names another format's deck, whoever routes it: the format,
archetype and opponent of a decision (the rules' or the language model's) are checked by code (issue 53, item 1)."""

from __future__ import annotations

from typing import Any

import pytest

from meta_mage.agent.conversation import Conversations
from meta_mage.agent.testing import ScriptedChatModel, route
from meta_mage.wiring import coach_from_settings
from tests.agent.conftest import run_turn
from tests.integration.test_guides_across_formats import demo_lists

STANDARD_DECK = "Dimir Kaito Midrange"
QUESTION = "so vs that izzet prowess thing, what do i bring in, fam?"
KEPT = "Izzet Prowess is a Modern deck; your deck is Standard. Which archetype are you playing against?"


def coach(world: dict[str, Any], model: ScriptedChatModel | None, **settings: Any) -> Conversations:
    return coach_from_settings(world["settings"].model_copy(update=settings), dynamodb=world["db"], model=model)


async def confirmed_standard_deck(conversations: Conversations) -> str:
    pasted = await run_turn(
        conversations, f"Here is my Standard deck, last 30 days\n{demo_lists()['Standard'][STANDARD_DECK]}"
    )
    confirmed = await run_turn(conversations, "yes", pasted.conversation_id)
    assert (confirmed.state["format"], confirmed.state["archetype"]) == ("Standard", STANDARD_DECK)
    return pasted.conversation_id


def assert_the_deck_kept(turn: Any) -> None:
    assert turn.text.startswith(KEPT), turn.text[:300]
    assert (turn.state["format"], turn.state["archetype"], turn.state["opponent_archetype"]) == (
        "Standard",
        STANDARD_DECK,
        None,
    )
    assert turn.tools() == []


async def test_a_name_from_another_format_the_rules_route_keeps_the_confirmed_deck(demo_world: dict[str, Any]) -> None:
    # Given a confirmed Standard deck, offline
    conversations = coach(demo_world, None)
    cid = await confirmed_standard_deck(conversations)
    # When the player asks about a Modern deck in words the deck-question cue does not hold
    turn = await run_turn(conversations, QUESTION, cid)
    # Then the deck stays the Standard deck, the name is said and the opponent asked
    assert_the_deck_kept(turn)


@pytest.mark.parametrize("confidence", [0.95, 0.7])
async def test_a_name_from_another_format_the_model_routes_keeps_the_confirmed_deck(
    demo_world: dict[str, Any], confidence: float
) -> None:
    # Given a confirmed Standard deck (routed by the rules)
    cid = await confirmed_standard_deck(coach(demo_world, None))
    # When the model routes every message, and routes the question to Modern against Izzet Prowess
    routed = route(
        "deck_coaching", "matchup_strategy", confidence=confidence, format="Modern", opponent="Izzet Prowess"
    )
    model = ScriptedChatModel.of(routed)
    turn = await run_turn(coach(demo_world, model, rules_route_at=1.0), QUESTION, cid)
    # Then the model's format and opponent are checked by code as the rules' are: the deck stays
    assert len(model.calls) == 1, "the routing request alone"
    assert_the_deck_kept(turn)
