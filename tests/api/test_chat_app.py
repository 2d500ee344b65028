"""The FastAPI app over moto: SSE chat, conversations, reads, errors mapped to HTTP."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from meta_mage.api.factory import build_app
from meta_mage.local.chat_client import sse_events
from meta_mage.storage.locks import LocksRepository
from tests.conftest import call


@pytest.fixture()
def app(modern_world: dict[str, Any]) -> FastAPI:
    return build_app(modern_world["settings"], modern_world["db"], serve_page=True)


@pytest.fixture()
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http


async def chat(client: httpx.AsyncClient, body: Any) -> tuple[httpx.Response, list[tuple[str, dict[str, Any]]]]:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    response = await client.post("/chat", content=content, headers={"content-type": "application/json"})
    return response, sse_events(response.text) if response.status_code == 200 else []


async def test_chat_streams_events_and_the_conversation_can_be_read(
    client: httpx.AsyncClient, modern_world: dict[str, Any]
) -> None:
    response, events = await chat(
        client,
        {"message": "What are the top decks?", "conversation_id": None, "context": {"format": "Modern", "days": 30}},
    )
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    kinds = [k for k, _ in events]
    assert kinds[0] == "metadata" and kinds[-2:] == ["state", "done"] and "tool_call" in kinds
    cid = events[0][1]["conversation_id"]
    text = "".join(d["text"] for k, d in events if k == "content")
    top = call(modern_world, "get_format_meta_rankings", format="Modern", current_days=30, previous_days=30)["rows"][0]
    assert f"| 1 | {top['name']} | {top['meta_share']:.1f}% |" in text

    view = await client.get(f"/conversations/{cid}")
    assert view.status_code == 200
    assert view.json()["state"]["format"] == "Modern" and len(view.json()["messages"]) == 2


async def test_unknown_expired_and_malformed_requests(client: httpx.AsyncClient) -> None:
    unknown = "0b7d5a8e-7c55-4b1e-9d53-3c1c8f5e2a10"
    response, _ = await chat(client, {"message": "hi", "conversation_id": unknown})
    assert response.status_code == 404 and response.json()["error"] == "conversation_not_found"
    assert (await client.get(f"/conversations/{unknown}")).status_code == 404
    assert (await client.get("/conversations/not-a-uuid")).json()["field"] == "conversation_id"

    response, _ = await chat(client, b"{not json")
    assert response.status_code == 400 and "not valid JSON" in response.json()["message"]
    response, _ = await chat(client, {"message": "x" * 8001})
    assert response.status_code == 413 and response.json()["field"] == "message"
    response, _ = await chat(client, {"message": "hi", "context": {"days": 0}})
    assert response.status_code == 400 and response.json()["field"] == "context.days"
    response, _ = await chat(client, {"message": "hi", "extra": 1})
    assert response.status_code == 400 and response.json()["field"] == "extra"
    response, _ = await chat(client, json.dumps({"message": "a" * 70_000}).encode())
    assert response.status_code == 413


async def test_a_second_chat_on_the_same_conversation_gets_409(
    client: httpx.AsyncClient, modern_world: dict[str, Any]
) -> None:
    # Given a conversation whose lock another request holds (as while a turn is streaming)
    _, events = await chat(client, {"message": "hello"})
    cid = events[0][1]["conversation_id"]
    other = LocksRepository(modern_world["db"].Table(modern_world["settings"].locks_table))
    assert other.acquire(f"conversation#{cid}", "another-request", 60)
    # When a second message arrives, Then it is refused with 409 and nothing is written
    response, _ = await chat(client, {"message": "what about Legacy?", "conversation_id": cid})
    assert response.status_code == 409 and response.json()["error"] == "conflict"
    assert len((await client.get(f"/conversations/{cid}")).json()["messages"]) == 2
    # When the first request is done, the conversation takes messages again
    other.release(f"conversation#{cid}", "another-request")
    response, _ = await chat(client, {"message": "what about Legacy?", "conversation_id": cid})
    assert response.status_code == 200


async def test_reads_welcome_and_page(client: httpx.AsyncClient, modern_world: dict[str, Any]) -> None:
    assert (await client.get("/healthz")).json()["status"] == "ok"
    assert (await client.get("/formats")).json()["formats"] == ["Modern"]
    archetypes = await client.get("/archetypes", params={"format": "modern", "days": "30"})
    expected = call(modern_world, "get_format_archetypes", format="Modern", days=30)["archetypes"]
    assert archetypes.json()["archetypes"] == expected
    missing = await client.get("/archetypes")
    assert missing.status_code == 400 and missing.json()["field"] == "format"
    bad = await client.get("/archetypes", params={"format": "Commander"})
    assert bad.status_code == 400 and "allowed" in bad.json()["message"]

    assert (await client.get("/drafts")).json()["drafts"][0]["draft_id"] == "tarkir"
    pool = await client.get("/drafts/tarkir/pool", params={"color": "G", "include_draft_results": "true"})
    assert (
        pool.json()["total_cards"] == call(modern_world, "get_draft_pool", draft_id="tarkir", color="G")["total_cards"]
    )
    assert (await client.get("/drafts/nope/pool")).status_code == 404
    assert (await client.get("/drafts/tarkir/pool", params={"colour": "G"})).json()["field"] == "colour"

    welcome = (await client.get("/welcome")).json()
    assert welcome["available_formats"] == ["Modern"] and welcome["tool_count"] == 14
    view = await client.get(f"/conversations/{welcome['conversation_id']}")
    assert view.json()["messages"][0]["content"] == welcome["message"]
    page = await client.get("/")
    assert page.status_code == 200 and '<script src="/static/chat.js">' in page.text
    script = await client.get("/static/chat.js")
    assert script.status_code == 200 and 'fetch("/chat"' in script.text


async def test_concurrent_conversations_do_not_cross(client: httpx.AsyncClient) -> None:
    questions = [("Modern", 7), ("Modern", 14), ("Modern", 21), ("Modern", 30)]
    results = await asyncio.gather(
        *(chat(client, {"message": f"top decks in {f} over the last {d} days"}) for f, d in questions)
    )
    ids = {events[0][1]["conversation_id"] for _, events in results}
    assert len(ids) == len(questions)
    for (_, days), (_, events) in zip(questions, results, strict=True):
        state = next(d for k, d in events if k == "state")
        assert state["days"] == days
