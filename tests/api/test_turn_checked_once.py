"""A turn's message and context are checked once: by the HTTP layer for ``/chat`` (the coach's own check,
called once), by ``Conversations.turn`` for in-process callers; ``Conversations.run`` checks nothing again."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from meta_mage.agent.conversation import Conversations, TurnRequest
from meta_mage.agent.state import TurnContext
from meta_mage.api.factory import build_app
from meta_mage.wiring import coach_from_settings


def _count_checks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, Any]]:
    calls: list[tuple[Any, Any]] = []
    check = Conversations._validate

    def counted(self: Conversations, message: Any, context: Any) -> tuple[str, TurnContext]:
        calls.append((message, context))
        return check(self, message, context)

    monkeypatch.setattr(Conversations, "_validate", counted)
    return calls


async def test_chat_checks_the_message_and_context_once(
    modern_world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _count_checks(monkeypatch)
    app = build_app(modern_world["settings"], modern_world["db"])
    body = {"message": "What are the top decks?", "context": {"format": "modern", "days": 30}}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        response = await client.post(
            "/chat", content=json.dumps(body).encode(), headers={"content-type": "application/json"}
        )
    assert response.status_code == 200 and "event: done" in response.text
    assert calls == [("What are the top decks?", {"format": "modern", "days": 30})]
    assert '"format": "Modern"' in response.text  # the checked context (its format normalised) reached the turn


async def test_in_process_turn_checks_once_and_run_not_at_all(
    modern_world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    conversations = coach_from_settings(modern_world["settings"], dynamodb=modern_world["db"])
    calls = _count_checks(monkeypatch)
    events = [e async for e in conversations.turn("Top decks in Modern, last 30 days", None, {"days": 30})]
    assert [e.event for e in events][-2:] == ["state", "done"] and len(calls) == 1

    calls.clear()
    request = conversations.request("List the archetypes", {"format": "Modern"})
    assert request == TurnRequest("List the archetypes", TurnContext(format="Modern"))
    events = [e async for e in conversations.run(request)]
    assert [e.event for e in events][-2:] == ["state", "done"] and len(calls) == 1
    assert events[0].data["format"] == "Modern"


def test_the_request_is_checked_and_a_new_id_made_canonical(modern_world: dict[str, Any]) -> None:
    conversations = coach_from_settings(modern_world["settings"], dynamodb=modern_world["db"])
    made = "0B7D5A8E-7C55-4B1E-9D53-3C1C8F5E2A10"
    request = conversations.request("hi", None, made, create=True, lock_owner="owner-1")
    assert request == TurnRequest("hi", TurnContext(), made.lower(), create=True, lock_owner="owner-1")
    with pytest.raises(Exception, match="characters; the limit is") as refused:
        conversations.request("x" * (modern_world["settings"].max_message_chars + 1))
    assert getattr(refused.value, "field", None) == "message"
