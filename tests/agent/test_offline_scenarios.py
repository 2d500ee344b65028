"""Scripted conversations in offline mode over the demo Modern data: each blocking rule, a deck
pasted mid-conversation, meta → deck → meta, a cube-draft question, tool failures."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from meta_mage.agent.conversation import Conversations
from meta_mage.agent.offline import OFFLINE_NOTE
from meta_mage.agent.tools import ToolExecutor
from meta_mage.wiring import coach_from_settings
from tests.agent.conftest import modern_deck, over_mcp_too, run_turn
from tests.conftest import call, green_creatures

# One event loop for the module (a loop per test costs more than most of its turns), the world frozen.
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("frozen_world")]


async def test_rule_1_format_is_asked_for_before_any_tool(offline: Conversations) -> None:
    # Given a new conversation, When the user asks for top decks without naming a format
    first = await run_turn(offline, "What are the top decks right now?")
    # Then one question about the format comes back, with no tool call, and the state is sent
    assert first.tools() == []
    assert "Which format" in first.text and "Modern" in first.text
    assert first.kinds[0] == "metadata" and first.kinds[-2:] == ["state", "done"]
    assert first.state["format"] is None

    # When the user answers with a format and a window, the pending question is answered
    second = await run_turn(offline, "Modern, last 14 days", first.conversation_id)
    assert second.tools() == ["get_format_meta_rankings"]
    assert second.arguments("get_format_meta_rankings") == {"format": "Modern", "current_days": 14, "previous_days": 14}
    assert second.state["format"] == "Modern" and second.state["days"] == 14


async def test_rule_5_days_are_asked_for_then_a_bare_number_answers(offline: Conversations) -> None:
    first = await run_turn(offline, "What are the top decks in Modern?")
    assert first.tools() == []
    assert "How many days" in first.text
    second = await run_turn(offline, "30", first.conversation_id)
    assert second.tools() == ["get_format_meta_rankings"]
    assert second.state["days"] == 30


async def test_dropdown_context_fills_the_slots(offline: Conversations) -> None:
    turn = await run_turn(offline, "Show me the meta", context={"format": "modern", "days": 30})
    assert turn.tools() == ["get_format_meta_rankings"]
    assert turn.events[0].data["format"] == "Modern"


async def test_rule_2_optimising_needs_a_decklist(offline: Conversations) -> None:
    turn = await run_turn(offline, "Optimize my sideboard", context={"format": "Modern", "days": 30})
    assert turn.tools() == []
    assert "paste your decklist" in turn.text.lower()


async def test_rule_3_deck_questions_need_an_archetype(offline: Conversations) -> None:
    turn = await run_turn(offline, "What are my deck's bad matchups?", context={"format": "Modern", "days": 30})
    assert turn.tools() == []
    assert "Which archetype is your deck" in turn.text


async def test_rule_3_a_pasted_deck_is_enriched_classified_and_confirmed(
    offline: Conversations, modern_world: dict[str, Any]
) -> None:
    deck, _ = modern_deck("Boros Energy")
    # Given format and window, When the user pastes a list
    turn = await run_turn(offline, f"Here is my deck:\n{deck}", context={"format": "Modern", "days": 30})
    # Then the agent reads it, classifies it, and asks to confirm - no coaching tool yet
    assert turn.tools() == ["get_enriched_deck", "classify_deck"]
    expected = call(modern_world, "classify_deck", deck=deck, format="Modern")["archetype"]
    assert expected == "Boros Energy"
    assert f"looks like **{expected}**" in turn.text and "Is that right?" in turn.text
    assert turn.state["has_deck"] and turn.state["archetype"] is None
    assert turn.state["suggested_archetype"] == expected

    # When the user confirms, the archetype is set and the deck's spread follows
    confirmed = await run_turn(offline, "yes", turn.conversation_id)
    assert confirmed.state["archetype"] == "Boros Energy"
    assert confirmed.tools() == ["get_deck_matchup_stats"]
    stats = call(modern_world, "get_deck_matchup_stats", format="Modern", archetype="Boros Energy", days=30)
    assert f"overall {stats['overall']['win_rate']:.1f}%" in confirmed.text


async def test_the_confirmation_asked_again_says_what_it_kept(offline: Conversations) -> None:
    deck, _ = modern_deck("Boros Energy")
    # Given a pasted list whose archetype waits for a yes
    pasted = await run_turn(offline, deck, context={"format": "Modern"})
    assert "Is that right?" in pasted.text and not pasted.text.startswith(("Noted", "I will"))
    cid = pasted.conversation_id

    # When the player answers with the window instead, Then it is noted and the confirmation asked again
    window = await run_turn(offline, "30 days", cid)
    assert window.text.startswith("Noted: Modern, the last 30 days. Your deck looks like **Boros Energy**")
    assert window.tools() == [] and window.state["days"] == 30

    # When they ask a question instead, Then it is kept for after the confirmation, and answered on the yes
    asked = await run_turn(offline, "what are my worst matchups?", cid)
    assert asked.text.startswith("I will answer “what are my worst matchups?” once your deck's archetype is")
    assert asked.tools() == [] and "Is that right?" in asked.text
    confirmed = await run_turn(offline, "yes", cid)
    assert confirmed.tools() == ["get_deck_matchup_stats"] and "Worst matchups" in confirmed.text


@over_mcp_too
async def test_rule_4_strategy_fetches_matchup_stats_first(
    offline: Conversations, modern_world: dict[str, Any]
) -> None:
    deck, _ = modern_deck("Boros Energy")
    context = {"format": "Modern", "days": 30, "archetype": "Boros Energy"}
    turn = await run_turn(offline, f"How should I play against Jeskai Blink?\n{deck}", context=context)
    assert turn.tools() == ["get_enriched_deck", "get_deck_matchup_stats", "generate_deck_matchup_strategy"]
    assert turn.state["has_matchup_stats"] and turn.state["opponent_archetype"] == "Jeskai Blink"
    enriched = call(modern_world, "get_enriched_deck", deck=deck)
    stats = call(modern_world, "get_deck_matchup_stats", format="Modern", archetype="Boros Energy", days=30)
    facts = call(
        modern_world,
        "generate_deck_matchup_strategy",
        card_details=enriched["card_details"],
        archetype="Boros Energy",
        opponent_archetype="Jeskai Blink",
        matchup_stats=stats,
        format="Modern",
    )
    assert "**Boros Energy vs Jeskai Blink**" in turn.text
    for key_card in facts["opponent_key_cards"]:
        assert key_card["name"] in turn.text
    record = facts["record"]
    assert f"{record['wins']}-{record['losses']}-{record['draws']}" in turn.text


@over_mcp_too
async def test_meta_then_deck_then_meta_keeps_the_state(offline: Conversations, modern_world: dict[str, Any]) -> None:
    meta = await run_turn(offline, "What are the top decks in Modern over the last 30 days?")
    cid = meta.conversation_id
    assert meta.tools() == ["get_format_meta_rankings"]

    deck, _ = modern_deck("Boros Energy")
    pasted = await run_turn(offline, f"Now my deck, how are its matchups?\n{deck}", cid)
    assert pasted.tools() == ["get_enriched_deck", "classify_deck"]
    assert pasted.state["format"] == "Modern" and pasted.state["days"] == 30

    confirmed = await run_turn(offline, "yes that's right", cid)
    assert confirmed.state["archetype"] == "Boros Energy" and confirmed.state["has_matchup_stats"]

    optimise = await run_turn(offline, "Optimize my mainboard", cid)
    assert optimise.tools() == ["optimize_mainboard"]
    assert optimise.arguments("optimize_mainboard")["archetype"] == "Boros Energy"

    back = await run_turn(offline, "And what are the top decks in Modern?", cid)
    assert back.tools() == ["get_format_meta_rankings"]
    assert back.state == {**confirmed.state, "current_workflow": "meta_research"}

    view = await offline.view(cid)  # type: ignore[arg-type]
    assert [m["role"] for m in view["messages"]] == ["user", "assistant"] * 5


@over_mcp_too
async def test_cube_draft_question_lists_every_matching_card(
    offline: Conversations, modern_world: dict[str, Any]
) -> None:
    turn = await run_turn(offline, "What green creatures were available in the Tarkir draft?")
    assert turn.tools() == ["get_draft_pool"]
    arguments = turn.arguments("get_draft_pool")
    assert arguments["draft_id"] == "tarkir" and arguments["color"] == "G" and arguments["type_contains"] == "Creature"
    pool = green_creatures(modern_world)
    assert f"{pool['total_cards']} creatures with green in their colour identity" in turn.text
    shown = pool["cards"][:60]
    for card in shown:
        assert card["card_name"] in turn.text
    redacted = [c for c in shown if c.get("drafted_by") == "[REDACTED]"]
    assert redacted and "taken by [REDACTED]" in turn.text


async def test_unknown_draft_is_asked_about_with_the_list(offline: Conversations) -> None:
    turn = await run_turn(offline, "Show me the cube draft pool")
    assert turn.tools() == []
    assert "Which cube draft" in turn.text and "`tarkir`" in turn.text


async def test_unclear_message_asks_which_workflow(offline: Conversations) -> None:
    turn = await run_turn(offline, "hello there")
    assert turn.tools() == []
    assert "Meta research" in turn.text and "Deck coaching" in turn.text and "Cube draft" in turn.text


def _failing(executor: ToolExecutor, tool: str, behaviour: str) -> ToolExecutor:
    async def execute(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if name == tool and behaviour == "raise":
            raise RuntimeError("the table is on fire")
        if name == tool and behaviour == "hang":
            await asyncio.Event().wait()  # until the caller's timeout cancels it
        return await executor(name, arguments)

    return execute


@over_mcp_too
async def test_a_failing_tool_is_reported_and_the_conversation_goes_on(
    modern_world: dict[str, Any], executor: ToolExecutor
) -> None:
    conversations = coach_from_settings(
        modern_world["settings"], executor=_failing(executor, "get_format_meta_rankings", "raise")
    )
    turn = await run_turn(conversations, "Top decks in Modern, last 30 days")
    assert turn.tool_events[-1]["status"] == "error" and "the table is on fire" in turn.tool_events[-1]["summary"]
    assert "Something went wrong while fetching the data" in turn.text
    assert turn.kinds[-2:] == ["state", "done"]
    after = await run_turn(conversations, "What green creatures were in the Tarkir draft?", turn.conversation_id)
    assert after.tools("complete") == ["get_draft_pool"]


async def test_a_tool_past_its_timeout_is_an_error_event(modern_world: dict[str, Any], executor: ToolExecutor) -> None:
    # 2 s for the turn whose tool hangs (until cancelled); the next turn runs with the usual timeout, so a loaded
    # machine's slow lookups cannot time out where the test expects an answer
    settings = modern_world["settings"].model_copy(update={"tool_timeout_seconds": 2})
    conversations = coach_from_settings(settings, executor=_failing(executor, "get_format_meta_rankings", "hang"))
    turn = await run_turn(conversations, "Top decks in Modern, last 30 days")
    assert turn.tool_events[-1] == {
        "tool": "get_format_meta_rankings",
        "status": "error",
        "summary": "get_format_meta_rankings did not answer within 2 seconds",
    }
    assert "did not answer within 2 seconds" in turn.text and OFFLINE_NOTE in turn.text
    # and the conversation goes on (the same one, stored in the checkpoint table)
    patient = coach_from_settings(modern_world["settings"], executor=executor)
    again = await run_turn(patient, "list the archetypes", turn.conversation_id)
    assert again.tools("complete") == ["get_format_archetypes"]


async def test_bad_input_is_an_error_event(offline: Conversations) -> None:
    empty = await run_turn(offline, "  ")
    assert empty.kinds == ["error"] and empty.events[0].data["field"] == "message"
    long = await run_turn(offline, "x" * 8001)
    assert long.kinds == ["error"] and "8001 characters" in long.events[0].data["message"]
    bad_format = await run_turn(offline, "hi", context={"format": "Commander"})
    assert bad_format.events[0].data["field"] == "context.format"
    bad_days = await run_turn(offline, "hi", context={"days": 0})
    assert bad_days.events[0].data["field"] == "context.days"


async def test_a_deck_review_without_a_deck_asks_for_it(offline: Conversations) -> None:
    turn = await run_turn(offline, "Can you review my deck?", context={"format": "Modern", "days": 14})
    assert turn.tools() == []
    assert "paste your decklist" in turn.text and "None" not in turn.text


async def test_a_deck_named_in_full_is_taken_though_the_window_has_none(offline: Conversations) -> None:
    # Given a pasted Boros Energy list over 14 days, a window without Mardu Energy (it is in the longer data)
    deck, _ = modern_deck("Boros Energy")
    pasted = await run_turn(offline, f"Here is my deck:\n{deck}", context={"format": "Modern", "days": 14})
    assert "Mardu Energy" not in await offline.deps.lookups.archetypes("Modern", 14)
    assert "Mardu Energy" in await offline.deps.lookups.archetypes("Modern", 365)
    # When the player says which deck it is by its full name
    named = await run_turn(offline, "no, it's Mardu Energy", pasted.conversation_id)
    # Then that is the deck (it was read as "Energy", the window's Boros Energy, and confirmed as the wrong deck)
    assert named.state["archetype"] == "Mardu Energy"
    assert "your deck is **Mardu Energy**" in named.text and "**Boros Energy**" not in named.text


async def test_no_to_the_suggested_archetype_asks_which_one_it_is(offline: Conversations) -> None:
    # Given a pasted Boros Energy list, classified and suggested
    deck, _ = modern_deck("Boros Energy")
    pasted = await run_turn(offline, f"Here is my deck:\n{deck}", context={"format": "Modern", "days": 30})
    assert pasted.state["suggested_archetype"] == "Boros Energy"
    archetypes = await offline.deps.lookups.archetypes("Modern")

    # When the user says no
    refused = await run_turn(offline, "no", pasted.conversation_id)

    # Then the coach asks which archetype it is, listing the others, and does not suggest it again
    assert refused.tools() == [] and "Is that right?" not in refused.text
    assert "Which archetype is your deck, then?" in refused.text
    assert next(a for a in archetypes if a != "Boros Energy") in refused.text and "Boros Energy" not in refused.text
    assert refused.state["suggested_archetype"] is None and refused.state["archetype"] is None

    # and the archetype the user names is taken
    named = await run_turn(offline, "Jeskai Blink", pasted.conversation_id)
    assert named.state["archetype"] == "Jeskai Blink"
    assert named.tools() == ["get_deck_matchup_stats"]
