"""Scripted conversations through the LLM paths, driven by a fake streaming chat model."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage, ToolMessage

from meta_mage.agent.conversation import Conversations
from meta_mage.agent.testing import ScriptedChatModel, route, tool_call
from meta_mage.api.welcome import build_welcome
from meta_mage.wiring import coach_from_settings
from tests.agent.conftest import modern_deck, run_turn
from tests.conftest import call


def coach(world: dict[str, Any], *script: Any, **overrides: Any) -> tuple[Conversations, ScriptedChatModel]:
    model = ScriptedChatModel.of(*script)
    settings = world["settings"].model_copy(update=overrides)
    return coach_from_settings(settings, dynamodb=world["db"], model=model), model


def tool_result(messages: list[BaseMessage], name: str) -> dict[str, Any]:
    found = [m for m in messages if isinstance(m, ToolMessage) and m.name == name]
    assert found, f"no {name} result was sent to the model"
    result: dict[str, Any] = json.loads(str(found[-1].content))
    return result


async def test_meta_turn_routes_calls_the_tool_and_streams_the_llm_answer(modern_world: dict[str, Any]) -> None:
    def answer(messages: list[BaseMessage], tools: list[str]) -> str:
        top = tool_result(messages, "get_format_meta_rankings")["rows"][0]
        return f"The most played deck is {top['name']} at {top['meta_share']:.1f}% of the field."

    conversations, model = coach(
        modern_world,
        route("meta_research", "rankings", format="Modern", days=30),
        tool_call("get_format_meta_rankings"),
        answer,
    )
    turn = await run_turn(conversations, "What are the top decks in Modern this month?")

    expected = call(modern_world, "get_format_meta_rankings", format="Modern", current_days=30, previous_days=30)
    top = expected["rows"][0]
    prose = f"The most played deck is {top['name']} at {top['meta_share']:.1f}% of the field."
    # the model's prose, then the rankings table from the tool result (as in offline mode), figures checked
    assert turn.text.startswith(prose + "\n\n**Top decks in Modern**")
    assert f"| 1 | {top['name']} | {top['meta_share']:.1f}% |" in turn.text
    assert turn.kinds.count("content") > 5  # token chunks, not one blob
    grounding = [e.data for e in turn.events if e.event == "grounding"]
    assert grounding == [{"unmatched": []}]
    assert turn.arguments("get_format_meta_rankings") == {"format": "Modern", "current_days": 30, "previous_days": 30}
    router_call, workflow_call, answer_call = model.calls
    assert router_call["tools"] == ["RouteDecision"]
    assert workflow_call["tools"] == [
        "list_formats",
        "get_format_meta_rankings",
        "get_format_matchup_stats",
        "get_format_archetypes",
        "get_deck_matchup_stats",
        "get_card_evidence",
    ]
    assert isinstance(answer_call["messages"][0], SystemMessage)
    assert turn.state["format"] == "Modern" and turn.state["days"] == 30


async def test_state_owned_arguments_are_hidden_from_the_llm_and_filled_from_state(
    modern_world: dict[str, Any],
) -> None:
    conversations, _model = coach(
        modern_world,
        route("meta_research", "rankings", format="Modern", days=14),
        tool_call("get_format_meta_rankings", format="Legacy", current_days=365, group_by="strategy"),
        "Done.",
    )
    turn = await run_turn(conversations, "Modern meta by strategy, two weeks")
    assert turn.arguments("get_format_meta_rankings") == {
        "format": "Modern",
        "current_days": 14,
        "previous_days": 14,
        "group_by": "strategy",
    }
    schema = conversations.deps.tools.specs("meta_research")[1]["function"]["parameters"]
    assert not {"format", "current_days", "previous_days", "as_of"} & set(schema["properties"])


async def test_low_confidence_asks_which_workflow_without_tools(modern_world: dict[str, Any]) -> None:
    conversations, model = coach(modern_world, route("meta_research", "rankings", confidence=0.3))
    turn = await run_turn(conversations, "tron?")
    assert turn.tools() == [] and "Which do you mean?" in turn.text
    assert len(model.calls) == 1


async def test_a_tool_outside_the_workflow_or_against_a_rule_is_blocked(modern_world: dict[str, Any]) -> None:
    conversations, _model = coach(
        modern_world,
        route("meta_research", "rankings", format="Modern", days=30),
        tool_call("optimize_sideboard", top_n=3),
        "Sorry, I can only look at the meta here.",
    )
    turn = await run_turn(conversations, "top decks in Modern, 30 days")
    assert turn.tool_events == [
        {"tool": "optimize_sideboard", "status": "error", "summary": "optimize_sideboard is not a tool of the "
         "meta_research workflow"}
    ]  # fmt: skip
    assert turn.text == "Sorry, I can only look at the meta here."

    blocked, _ = coach(
        modern_world,
        route("deck_coaching", "deck_review", format="Modern", days=30),
        tool_call("generate_deck_matchup_strategy"),
        "I need your deck first.",
    )
    deck, _ = modern_deck("Boros Energy")
    turn = await run_turn(blocked, f"my deck\n{deck}", context={"archetype": "Boros Energy"})
    strategy = [e for e in turn.tool_events if e["tool"] == "generate_deck_matchup_strategy"]
    assert strategy == [
        {
            "tool": "generate_deck_matchup_strategy",
            "status": "error",
            "summary": "blocked: the opponent archetype is not known; ask the user which matchup",
        }
    ]


async def test_strategy_is_llm_prose_over_the_tools_facts(modern_world: dict[str, Any]) -> None:
    deck, _ = modern_deck("Boros Energy")
    seen: dict[str, Any] = {}

    def prose(messages: list[BaseMessage], tools: list[str]) -> str:
        facts = tool_result(messages, "generate_deck_matchup_strategy")
        seen["facts"], seen["system"] = facts, str(messages[0].content)
        key = facts["opponent_key_cards"][0]["name"]
        return f"Mulligan for interaction. Their key card is {key}. Early game: pressure. Sideboard in answers."

    conversations, _model = coach(
        modern_world,
        route("deck_coaching", "strategy", format="Modern", days=30, opponent="Jeskai Blink", has_decklist=True),
        tool_call("generate_deck_matchup_strategy"),
        prose,
    )
    turn = await run_turn(
        conversations, f"How do I play against Jeskai Blink?\n{deck}", context={"archetype": "Boros Energy"}
    )
    # the guard met rules 2 and 4 itself, then the LLM called the strategy tool with state-filled arguments
    assert turn.tools() == ["get_enriched_deck", "get_deck_matchup_stats", "generate_deck_matchup_strategy"]
    shown = turn.arguments("generate_deck_matchup_strategy")
    assert shown["archetype"] == "Boros Energy" and shown["opponent_archetype"] == "Jeskai Blink"
    assert shown["matchup_stats"] == "Boros Energy matchup statistics"
    facts = seen["facts"]
    assert facts["opponent_archetype"] == "Jeskai Blink" and facts["archetype"] == "Boros Energy"
    assert "Ocelot Pride" in seen["system"]  # the user's deck is in the workflow prompt
    assert f"Their key card is {facts['opponent_key_cards'][0]['name']}" in turn.text


async def test_llm_router_failure_falls_back_to_rules(modern_world: dict[str, Any]) -> None:
    conversations, _ = coach(
        modern_world, RuntimeError("ThrottlingException"), tool_call("get_format_meta_rankings"), "Here you go."
    )
    turn = await run_turn(conversations, "What are the top decks in Modern over 30 days?")
    assert any("keyword rules" in e.data.get("content", "") for e in turn.events if e.event == "thinking")
    assert turn.tools("complete") == ["get_format_meta_rankings"] and turn.text.startswith("Here you go.\n\n")


async def test_llm_answer_failure_falls_back_to_the_offline_answer(modern_world: dict[str, Any]) -> None:
    conversations, _ = coach(
        modern_world,
        route("meta_research", "rankings", format="Modern", days=30),
        TimeoutError("Bedrock read timeout"),
    )
    turn = await run_turn(conversations, "top decks in Modern")
    top = call(modern_world, "get_format_meta_rankings", format="Modern", current_days=30, previous_days=30)["rows"][0]
    assert f"| 1 | {top['name']} | {top['meta_share']:.1f}% |" in turn.text
    assert turn.kinds[-2:] == ["state", "done"]


async def test_only_the_last_ten_messages_reach_the_llm(modern_world: dict[str, Any]) -> None:
    turns = 7
    script: list[Any] = []
    for n in range(turns):
        script += [route("meta_research", "rankings", format="Modern", days=30), f"answer {n}"]
    conversations, model = coach(modern_world, *script, max_tool_rounds=1)
    cid = None
    for n in range(turns):
        turn = await run_turn(conversations, f"question {n}", cid)
        cid = turn.conversation_id
    last_answer_call = model.calls[-1]["messages"]
    history = [m for m in last_answer_call if not isinstance(m, SystemMessage)]
    assert len(history) == 11  # ten earlier messages + this question
    assert isinstance(history[-1], HumanMessage) and history[-1].content == f"question {turns - 1}"
    assert history[0].content == "question 1"
    view = await conversations.view(cid)  # type: ignore[arg-type]
    assert len(view["messages"]) == 2 * turns  # the checkpoint keeps more than the LLM window


async def test_a_conversation_opened_by_welcome_reaches_the_llm(modern_world: dict[str, Any]) -> None:
    # Given a conversation that starts with the welcome message (an assistant message)
    conversations, model = coach(
        modern_world,
        route("meta_research", "rankings", format="Modern", days=30),
        tool_call("get_format_meta_rankings"),
        "LLM answer.",
    )
    cid = await conversations.start({"message": "Welcome, planeswalker!", "available_formats": ["Modern"]})
    # When the user asks a question
    turn = await run_turn(conversations, "What are the top decks in Modern this month?", cid)
    # Then the model answers (Bedrock, like the fake, refuses a conversation that opens with the assistant)
    assert turn.text.startswith("LLM answer.") and not [
        e for e in turn.events if e.event == "thinking" and "unavailable" in str(e.data)
    ]
    for sent in model.calls:
        assert isinstance(next(m for m in sent["messages"] if not isinstance(m, SystemMessage)), HumanMessage)
    view = await conversations.view(cid)
    assert next(m["content"] for m in view["messages"]) == "Welcome, planeswalker!"


async def test_welcome_payload_from_registry_and_data(modern_world: dict[str, Any]) -> None:
    catalog = modern_world["registry"].catalog()
    formats = [f["format"] for f in call(modern_world, "list_formats")["formats"]]
    offline = build_welcome(catalog, formats)
    assert offline["available_formats"] == ["Modern"] and offline["tool_count"] == 13
    assert "offline mode" in offline["message"]
    names = {w["name"]: [t["name"] for t in w["tool_details"]] for w in offline["workflows"]}
    assert names["meta_research"][:1] == ["list_formats"] and "optimize_sideboard" in names["deck_coaching"]
    assert names["cube_draft"] == ["list_drafts", "get_draft_pool"]

    written = build_welcome(catalog, formats, ScriptedChatModel.of("Welcome, planeswalker! Ask me about Modern."))
    assert written["message"] == "Welcome, planeswalker! Ask me about Modern." and written["mode"] == "llm"

    conversations = coach_from_settings(modern_world["settings"], dynamodb=modern_world["db"])
    cid = await conversations.start(written)
    view = await conversations.view(cid)
    assert view["messages"] == [{"role": "assistant", "content": written["message"]}]
    state = await conversations.load(cid)
    assert state["available_formats"] == ["Modern"] and len(state["tool_catalog"]) == 13
