"""``/chat`` with ``META_MAGE_MODEL`` set to the inference profile: the real ChatBedrockConverse, botocore's
event-stream parsing, the real graph and checkpointer, over real uvicorn, against the loopback Bedrock Runtime.
Each test asserts the SSE stream the client gets and the requests Bedrock got (all valid and complete)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import boto3
import httpx
import pytest

from meta_mage.api.factory import build_app
from meta_mage.local.chat_client import sse_events
from tests.agent.conftest import modern_deck
from tests.bedrock_loopback.server import (
    DEFAULT_MODEL_ID,
    ConnectionCut,
    LoopbackBedrock,
    ModelStreamError,
    Reply,
    Text,
    Throttling,
    ToolCall,
    running_bedrock,
)
from tests.conftest import call, green_creatures
from tests.servers import serving


@pytest.fixture()
def chat(modern_world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, LoopbackBedrock]]:
    """The chat app on uvicorn with the Bedrock model configured and Bedrock on loopback; script its turns."""
    with running_bedrock() as (url, bedrock):
        monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", url)
        monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)  # a session that reads the endpoint from the env
        settings = modern_world["settings"].model_copy(update={"model": DEFAULT_MODEL_ID})
        with serving(build_app(settings, modern_world["db"])) as base:
            yield base, bedrock


def turn(base: str, message: str, conversation_id: str | None = None, **context: Any) -> list[tuple[str, Any]]:
    body: dict[str, Any] = {"message": message, "conversation_id": conversation_id}
    if context:
        body["context"] = context
    response = httpx.post(f"{base}/chat", json=body, timeout=60)
    assert response.status_code == 200, response.text
    return sse_events(response.text)


def text_of(events: list[tuple[str, Any]]) -> str:
    return "".join(data["text"] for kind, data in events if kind == "content")


def route(workflow: str, task: str, **slots: Any) -> Reply:
    """The router's answer: Bedrock's tool call of the RouteDecision schema (LangChain's structured output)."""
    return Reply(ToolCall("RouteDecision", {"workflow": workflow, "task": task, "confidence": 0.95, **slots}))


TOP_DECKS = "What are the top decks in Modern over the last 30 days?"


def ends_once(events: list[tuple[str, Any]]) -> str:
    """The one closing event (``done`` or ``error``), after everything else."""
    closing = [kind for kind, _ in events if kind in ("done", "error")]
    assert len(closing) == 1 and events[-1][0] == closing[0], [kind for kind, _ in events]
    return closing[0]


def conversation_of(events: list[tuple[str, Any]]) -> str:
    return str(next(data["conversation_id"] for kind, data in events if kind == "metadata"))


def data_block(body: dict[str, Any], name: str) -> Any:
    """A fenced data block of the last message Bedrock got (the player's turn), parsed."""
    text = "".join(block.get("text", "") for block in body["messages"][-1]["content"])
    start = text.index(f'<data name="{name}">\n') + len(f'<data name="{name}">\n')
    return json.loads(text[start : text.index("\n</data>", start)])


def system_text(body: dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in body.get("system", []))


def top_row(world: dict[str, Any], days: int = 30) -> dict[str, Any]:
    rankings = call(world, "get_format_meta_rankings", format="Modern", current_days=days, previous_days=days)
    return dict(rankings["rows"][0])


async def test_a_meta_question_and_a_follow_up_through_bedrock(
    chat: tuple[str, LoopbackBedrock], modern_world: dict[str, Any]
) -> None:
    base, bedrock = chat
    top = top_row(modern_world)
    prose = f"{top['name']} leads Modern at {top['meta_share']:.1f}% of the field, from {top['decks']} decks."
    bedrock.script += [Reply(Text(prose))]
    first = turn(base, TOP_DECKS)
    assert ends_once(first) == "done"
    # the rules routed and planned the call: one Bedrock request, the answer, over the fenced results
    assert text_of(first).startswith(prose)
    assert f"| 1 | {top['name']} | {top['meta_share']:.1f}% |" in text_of(first)  # the tool's own table
    assert [d["status"] for k, d in first if k == "tool_call"] == ["calling", "complete"]
    assert [d for k, d in first if k == "grounding"] == [{"unmatched": []}]
    assert all(r.valid for r in bedrock.requests), [r.error for r in bedrock.requests]
    (answer,) = bedrock.bodies
    assert "toolConfig" not in answer and system_text(answer).startswith("You are MTG Meta Mage")
    assert top["name"] not in system_text(answer)
    rows = data_block(answer, "tool_result:get_format_meta_rankings")["rows"]
    assert rows["rows"][0][rows["columns"].index("name")] == top["name"]

    # a second turn on the stored conversation (the checkpoint read back): the history Bedrock gets alternates
    week = top_row(modern_world, 7)
    wrong = week["meta_share"] + 10  # a figure no tool returned: marked where it stands, never shown bare
    bedrock.script += [Reply(Text(f"Over a week {week['name']} holds {wrong:.1f}% of the field."))]
    second = turn(base, "and the last 7 days?", conversation_of(first))
    assert ends_once(second) == "done"
    assert f"holds ~~{wrong:.1f}%~~ ⚠ *not in the data* of the field." in text_of(second)
    assert [d for k, d in second if k == "grounding"] == [
        {"unmatched": [{"kind": "percentage", "figure": f"{wrong:.1f}%"}]}
    ]
    assert all(r.valid for r in bedrock.requests), [r.error for r in bedrock.requests]
    assert len(bedrock.requests) == 2
    history = bedrock.bodies[1]["messages"]
    assert [m["role"] for m in history[:3]] == ["user", "assistant", "user"]
    assert history[0]["content"][0]["text"] == TOP_DECKS
    # the first answer's table (names from the data) is read again inside a fence, the model's own words outside
    earlier = "".join(block.get("text", "") for block in history[1]["content"])
    outside = re.sub(r'<data name="[^"]+">\n.*?\n</data>', " ", earlier, flags=re.S)
    assert earlier.startswith(prose) and f"| 1 | {top['name']} |" not in outside
    assert f"| 1 | {top['name']} |" in earlier.split('<data name="table">')[1]


async def test_deck_coaching_keeps_its_blocking_rules_through_bedrock(chat: tuple[str, LoopbackBedrock]) -> None:
    base, bedrock = chat
    deck, _ = modern_deck("Boros Energy")
    # the list first, in a fresh conversation: the archetype is confirmed before any advice, with no model request
    first = turn(base, f"{deck}\n\nhow do I play against Jeskai Blink in Modern, last 30 days?")
    assert ends_once(first) == "done"
    assert "Your deck looks like **Boros Energy** in Modern" in text_of(first)
    assert bedrock.requests == []
    bedrock.script += [Reply(Text("Keep your removal for their blink creatures and side in your graveyard hate."))]
    second = turn(base, "yes", conversation_of(first))
    assert ends_once(second) == "done", second
    tools = [(d["tool"], d["status"]) for k, d in second if k == "tool_call"]
    assert ("generate_deck_matchup_strategy", "complete") in tools
    assert text_of(second).startswith("Keep your removal")
    assert all(r.valid for r in bedrock.requests), [r.error for r in bedrock.requests]
    (answer,) = bedrock.bodies
    assert "Ocelot Pride" not in system_text(answer)  # the deck is data in the player's turn
    deck = data_block(answer, "players_deck")
    assert deck["columns"] == ["quantity", "name", "section"] and any(r[1] == "Ocelot Pride" for r in deck["rows"])


async def test_a_cube_question_through_bedrock(chat: tuple[str, LoopbackBedrock], modern_world: dict[str, Any]) -> None:
    base, bedrock = chat
    pool = green_creatures(modern_world)
    taken = next(c for c in pool["cards"] if c["drafted"])
    bedrock.script += [Reply(Text(f"{taken['card_name']} went to {taken['drafted_by']}."))]
    events = turn(base, "What green creatures were in the tarkir draft, and who took them?")
    assert ends_once(events) == "done"
    assert text_of(events).startswith(f"{taken['card_name']} went to {taken['drafted_by']}.")
    assert [d for k, d in events if k == "grounding"] == [{"unmatched": []}]
    assert all(r.valid for r in bedrock.requests), [r.error for r in bedrock.requests]
    assert len(bedrock.requests) == 1


async def test_throttling_is_retried_by_botocore(chat: tuple[str, LoopbackBedrock]) -> None:
    base, bedrock = chat
    bedrock.script += [Throttling(), Reply(Text("Jeskai Blink leads."))]
    events = turn(base, TOP_DECKS)
    assert ends_once(events) == "done"
    attempts = [r.headers.get("amz-sdk-request", "") for r in bedrock.requests[:2]]
    assert "attempt=1" in attempts[0] and "attempt=2" in attempts[1], attempts
    assert text_of(events).startswith("Jeskai Blink leads.")


def broken_stream_turn(base: str, bedrock: LoopbackBedrock) -> list[tuple[str, Any]]:
    """The top-decks question answered by a model whose stream breaks after seven events; the events shown."""
    bedrock.script += [ModelStreamError(Reply(Text("Jeskai Blink is the most played deck. And then it")), 7)]
    events = turn(base, TOP_DECKS)
    assert ends_once(events) == "done"
    return events


async def test_a_stream_error_mid_answer_ends_clearly_and_stores_one_answer(
    chat: tuple[str, LoopbackBedrock],
) -> None:
    base, bedrock = chat
    # the partial text is followed by a line saying so, then the answer from the data; one done
    events = broken_stream_turn(base, bedrock)
    shown = text_of(events)
    assert shown.startswith("Jeskai Blink is the most played deck. \n\n_The language model's answer broke off")
    assert "answer broke off here; the answer below is composed from the data" in shown
    assert "**Top decks in Modern**" in shown.split("broke off here")[1]
    assert any("unavailable" in d["content"] for k, d in events if k == "thinking")
    # the conversation keeps one answer: the data's, not the broken one
    stored = httpx.get(f"{base}/conversations/{conversation_of(events)}", timeout=10).json()
    answers = [m["content"] for m in stored["messages"] if m["role"] == "assistant"]
    assert len(answers) == 1 and answers[0].startswith("**Top decks in Modern**")


async def test_welcome_is_written_through_converse(chat: tuple[str, LoopbackBedrock]) -> None:
    from meta_mage.api import handlers

    base, bedrock = chat
    handlers.welcome_model.cache_clear()  # made from this test's settings
    bedrock.script += [Reply(Text("Welcome, planeswalker! Ask me about Modern or paste your list."))]
    body = httpx.get(f"{base}/welcome", timeout=30).json()
    handlers.welcome_model.cache_clear()
    assert body["message"] == "Welcome, planeswalker! Ask me about Modern or paste your list."
    (request,) = bedrock.requests
    assert request.operation == "Converse" and request.valid
    assert request.body["messages"][0]["role"] == "user" and request.body["inferenceConfig"]["maxTokens"] >= 1


async def test_an_unsure_router_asks_back(chat: tuple[str, LoopbackBedrock]) -> None:
    base, bedrock = chat
    bedrock.script += [
        Reply(ToolCall("RouteDecision", {"workflow": "meta_research", "task": "rankings", "confidence": 0.3}))
    ]
    events = turn(base, "tron?")
    assert ends_once(events) == "done"
    assert text_of(events).startswith("I can help in three ways. Which do you mean?")
    assert len(bedrock.requests) == 1 and bedrock.requests[0].valid  # no workflow step on a guess


async def test_a_connection_cut_mid_answer_ends_with_the_datas_answer(chat: tuple[str, LoopbackBedrock]) -> None:
    base, bedrock = chat
    bedrock.script += [
        ConnectionCut(Reply(Text("Jeskai Blink is the most played deck, and Boros Energy comes second with")))
    ]
    events = turn(base, TOP_DECKS)
    assert ends_once(events) == "done"
    assert "**Top decks in Modern**" in text_of(events)
