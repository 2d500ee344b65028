"""Agent fixtures: conversations over the session's Modern world, and a turn runner."""

from __future__ import annotations

import copy
import functools
import gc
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from meta_mage.agent.conversation import AgentEvent, Conversations
from meta_mage.agent.tools import ToolExecutor, in_process_executor
from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import Settings
from meta_mage.mcp.client import McpToolExecutor
from meta_mage.wiring import coach_from_settings
from tests.conftest import demo_members


@dataclass
class Turn:
    """What one turn streamed."""

    events: list[AgentEvent]
    conversation_id: str | None = None
    text: str = ""
    tool_events: list[dict[str, Any]] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)

    @property
    def kinds(self) -> list[str]:
        return [e.event for e in self.events]

    def tools(self, status: str = "calling") -> list[str]:
        return [e["tool"] for e in self.tool_events if e["status"] == status]

    def arguments(self, tool: str) -> dict[str, Any]:
        return next(e["arguments"] for e in self.tool_events if e["tool"] == tool and e["status"] == "calling")


async def run_turn(
    conversations: Conversations, message: Any, conversation_id: str | None = None, context: Any = None
) -> Turn:
    turn = Turn(events=[])
    async for event in conversations.turn(message, conversation_id, context):
        turn.events.append(event)
        if event.event == "metadata":
            turn.conversation_id = event.data["conversation_id"]
        elif event.event == "content":
            turn.text += event.data["text"]
        elif event.event == "tool_call":
            turn.tool_events.append(event.data)
        elif event.event == "state":
            turn.state = event.data
    return turn


@pytest.fixture(scope="module")
def frozen_world(modern_world: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The Modern world, moved out of the garbage collector's sight for a module: the collector's full passes
    over its millions of objects, set off by the garbage of the turns, were a quarter of the journeys' time."""
    gc.collect()
    gc.freeze()
    yield modern_world
    gc.unfreeze()


TRANSPORTS = ["in_process", "mcp"]
# Routing does not depend on the transport, so the scenarios run in process; the few that carry each tool
# family (meta research, deck, draft) and a tool error over MCP as well are marked with this:
over_mcp_too = pytest.mark.parametrize("executor", TRANSPORTS, indirect=True)


@pytest.fixture()
def executor(request: pytest.FixtureRequest, modern_world: dict[str, Any]) -> ToolExecutor:
    """The tools in process; a test marked ``over_mcp_too`` also runs with the same tools through the MCP
    server on loopback."""
    if getattr(request, "param", "in_process") == "mcp":
        return McpToolExecutor(request.getfixturevalue("mcp_url"))
    return in_process_executor(modern_world["registry"], modern_world["context"])


@pytest.fixture()
def offline(modern_world: dict[str, Any], executor: ToolExecutor) -> Conversations:
    """The coach in offline mode (no model configured) over the Modern world."""
    return coach_from_settings(modern_world["settings"], dynamodb=modern_world["db"], executor=executor)


def modern_deck(archetype: str) -> tuple[str, dict[str, Any]]:
    """A real demo Modern decklist of ``archetype`` as pasted text, with (a copy of) its source deck."""
    text, deck = _modern_deck(archetype)
    return text, copy.deepcopy(deck)


@functools.cache
def _modern_deck(archetype: str) -> tuple[str, dict[str, Any]]:
    """Read once per archetype: the archive is read and every deck classified until one matches."""
    classifier = get_classifier(Settings().archetype_rules_dir)
    for _, data in sorted(demo_members(formats=("Modern",))):
        for deck in json.loads(data).get("Decks") or []:
            main = {c["CardName"]: c["Count"] for c in deck.get("Mainboard") or []}
            side = {c["CardName"]: c["Count"] for c in deck.get("Sideboard") or []}
            if sum(main.values()) < 60 or sum(side.values()) != 15:
                continue
            if classifier.classify("Modern", main, side).archetype == archetype:
                lines = (
                    [f"{n} {c}" for c, n in main.items()] + ["", "Sideboard"] + [f"{n} {c}" for c, n in side.items()]
                )
                return "\n".join(lines), deck
    raise LookupError(f"no demo {archetype} deck")
