"""What a player reads names no internal field and no tool: every thinking line, tool summary, error and answer
of conversations that touch each workflow, each blocking rule and each kind of question."""

from __future__ import annotations

import re
from typing import Any

from meta_mage.agent.state import ConversationState
from meta_mage.agent.tool_specs import TOOLS
from meta_mage.wiring import coach_from_settings
from tests.agent.conftest import modern_deck, run_turn

# identifiers a player must never read: the state's slots with an underscore, the tools' names
INTERNAL = sorted({name for name in ConversationState.model_fields if "_" in name} | set(TOOLS), key=len, reverse=True)
INTERNAL_WORD = re.compile(rf"\b(?:{'|'.join(map(re.escape, INTERNAL))})\b")


def read_by_the_player(events: list[Any]) -> list[str]:
    said: list[str] = []
    for event in events:
        if event.event == "content":
            said.append(event.data["text"])
        elif event.event == "thinking":
            said.append(event.data["content"])
        elif event.event == "tool_call":
            said.append(str(event.data.get("summary", "")))
        elif event.event == "error":
            said.append(str(event.data.get("message", "")))
    return said


async def test_no_player_facing_line_names_a_field_or_a_tool(modern_world: dict[str, Any]) -> None:
    deck, _ = modern_deck("Boros Energy")
    conversations = [
        ["What are the top decks in Modern?", "30"],
        ["How does Boros Energy do against Jeskai Blink in Modern over the last 30 days?"],
        ["Show me the Modern matchups for the last 30 days", "and what should I play?"],
        [deck, "Modern, 30 days", "yes", "How should I sideboard against Jeskai Blink?", "and against Affinity?"],
        ["How do I play my deck against Tron?", deck, "Modern", "30", "no", "Boros Energy"],
        ["What green creatures were in the tarkir draft, and who took them?", "why?"],
        ["tron?"],
        ["Is Fatal Push good against Boros Energy in Modern over the last 30 days?"],
    ]
    coach = coach_from_settings(modern_world["settings"], dynamodb=modern_world["db"])
    found: list[tuple[str, str]] = []
    for messages in conversations:
        conversation_id = None
        for message in messages:
            turn = await run_turn(coach, message, conversation_id)
            conversation_id = turn.conversation_id
            for line in read_by_the_player(turn.events):
                found += [(message[:40], hit) for hit in INTERNAL_WORD.findall(line)]
    assert found == []
