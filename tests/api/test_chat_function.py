"""The chat function as the Lambda Web Adapter runs it: each function-URL sample event of events/ is turned
into the HTTP request the adapter sends to uvicorn, and answered by the chat function's app over moto."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from meta_mage.api.factory import build_app
from meta_mage.local.chat_client import sse_events
from tests.conftest import call

EVENTS = Path(__file__).resolve().parents[2] / "events"


def adapter_request(event: dict[str, Any]) -> httpx.Request:
    """The request the Lambda Web Adapter makes from a function-URL (payload 2.0) event."""
    body = event.get("body") or ""
    content = base64.b64decode(body) if event.get("isBase64Encoded") else body.encode()
    query = f"?{event['rawQueryString']}" if event.get("rawQueryString") else ""
    return httpx.Request(
        event["requestContext"]["http"]["method"],
        f"http://127.0.0.1:8080{event['rawPath']}{query}",
        headers=event["headers"],
        content=content,
    )


@pytest.fixture()
def chat_function_app(modern_world: dict[str, Any]) -> FastAPI:
    # the same wiring as meta_mage.api.chat_function, on the test tables
    return build_app(modern_world["settings"], modern_world["db"], serve_reads=False)


async def send(app: FastAPI, event_file: str) -> httpx.Response:
    event = json.loads((EVENTS / event_file).read_text())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app)) as client:
        return await client.send(adapter_request(event))


async def test_chat_event_streams_a_turn(chat_function_app: FastAPI, modern_world: dict[str, Any]) -> None:
    response = await send(chat_function_app, "chat.json")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    events = sse_events(response.text)
    assert events[0][0] == "metadata" and events[-1][0] == "done"
    top = call(modern_world, "get_format_meta_rankings", format="Modern", current_days=30, previous_days=30)["rows"][0]
    assert top["name"] in "".join(d["text"] for kind, d in events if kind == "content")


async def test_readiness_path_answers_and_reads_are_left_to_the_small_functions(chat_function_app: FastAPI) -> None:
    response = await send(chat_function_app, "chat_healthz.json")
    assert response.status_code == 200 and response.json()["status"] == "ok"
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=chat_function_app), base_url="http://t") as client:
        assert (await client.get("/formats")).status_code == 404


def test_chat_function_module_builds_its_app_from_the_environment() -> None:
    from meta_mage.api import chat_function

    assert isinstance(chat_function.app, FastAPI)
    paths = set(chat_function.app.openapi()["paths"])
    assert {"/chat", "/conversations/{conversation_id}", "/healthz"} <= paths and "/formats" not in paths
