"""Conversations players had, replayed over ``/chat`` in offline mode in the order they used (issue 36)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from meta_mage.api.factory import build_app
from tests.api.test_chat_app import chat


@pytest.fixture()
def app(modern_world: dict[str, Any]) -> FastAPI:
    return build_app(modern_world["settings"], modern_world["db"], serve_page=True)


@pytest.fixture()
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http


async def say(client: httpx.AsyncClient, message: str, conversation_id: str | None = None) -> tuple[str, str]:
    """The answer's text and the conversation id."""
    response, events = await chat(client, {"message": message, "conversation_id": conversation_id})
    assert response.status_code == 200, response.text
    return "".join(d["text"] for k, d in events if k == "content"), events[0][1]["conversation_id"]


async def test_a_format_outside_the_data_is_named_as_such_and_the_request_goes_on(client: httpx.AsyncClient) -> None:
    # Given a player asking about Commander, which the data does not hold
    text, cid = await say(client, "What are the top decks in Commander?")
    # Then the coach says so and names the formats it has, instead of only asking for a format
    assert text.startswith("I have no tournament data for Commander:") and "Modern" in text
    # and the request goes on once the player picks one, window given in the same message
    text, _ = await say(client, "Modern, 30 days", cid)
    assert text.startswith("**Top decks in Modern**")


async def test_what_a_card_answers_against_a_deck_is_a_card_question(client: httpx.AsyncClient) -> None:
    text, _ = await say(
        client, "what does Consign to Memory answer against Jeskai Blink in Modern over the last 30 days?"
    )
    assert text.startswith("**Consign to Memory against Jeskai Blink**, Modern")
    assert "What it does by its rules text:" in text
