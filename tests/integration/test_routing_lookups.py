"""Router lookups run like tool calls: under the tools' timeout, and a failed one is reported (a WARNING log
line and a thinking note), not silently replaced by the built-in names."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from meta_mage.agent.conversation import AgentEvent, Conversations
from meta_mage.agent.tools import ToolExecutor
from meta_mage.wiring import Wiring


def failing_on(name: str, tools: ToolExecutor, *, hang: bool = False) -> ToolExecutor:
    """The in-process tools, except that ``name`` fails (or never answers, with ``hang``)."""

    async def execute(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if tool == name:
            if hang:
                await asyncio.sleep(60)
            raise RuntimeError("the table is on fire")
        return await tools(tool, arguments)

    return execute


async def events(coach: Conversations, message: str, context: dict[str, Any]) -> list[AgentEvent]:
    return [event async for event in coach.turn(message, None, context)]


@pytest.mark.parametrize("hang", [False, True], ids=["error", "timeout"])
async def test_a_failed_format_lookup_is_reported_and_the_turn_goes_on(
    modern_world: dict[str, Any], caplog: pytest.LogCaptureFixture, hang: bool
) -> None:
    # Given the format lookup fails (an error, or no answer within the tools' timeout)
    # (a hang needs a short timeout; the other tools run under it too, so it leaves them room on a loaded machine)
    timeout = 2.0 if hang else 30.0
    settings = modern_world["settings"].model_copy(update={"tool_timeout_seconds": timeout})
    wiring = Wiring(settings, modern_world["db"])
    coach = wiring.coach(executor=failing_on("list_formats", wiring.executor, hang=hang))

    # When the user asks a meta question
    with caplog.at_level(logging.WARNING, logger="meta_mage.agent.lookups"):
        turn = await events(coach, "What are the top decks in Modern?", {"format": "Modern", "days": 30})

    # Then the user is told, the log says why, and the answer still comes from the other tools
    notes = [e.data["content"] for e in turn if e.event == "thinking"]
    assert any("Could not read the formats with data" in note for note in notes)
    logged = [r.getMessage() for r in caplog.records if "routing lookup list_formats failed" in r.getMessage()]
    assert logged and ("within 2 seconds" in logged[0] if hang else "the table is on fire" in logged[0])
    called = [e.data["tool"] for e in turn if e.event == "tool_call" and e.data.get("status") == "complete"]
    assert "get_format_meta_rankings" in called
    assert turn[-1].event == "done"


async def test_a_lookup_that_finds_nothing_is_not_a_failure(modern_world: dict[str, Any]) -> None:
    # an unknown format is an answer (no names), not something to warn the user about
    coach = Wiring(modern_world["settings"], modern_world["db"]).coach()
    assert await coach.deps.lookups.archetypes("Vintage") == []
