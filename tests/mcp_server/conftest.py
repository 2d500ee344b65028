"""MCP fixtures: an SDK client session on the loopback server, and valid arguments for every tool."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.agent.conftest import modern_deck
from tests.conftest import call


@asynccontextmanager
async def mcp_session(url: str) -> AsyncIterator[ClientSession]:
    """An initialized MCP client session (the SDK's own client) on ``url``. Used inside each test, not
    as a fixture: anyio's cancel scopes must be left in the task that entered them."""
    async with streamable_http_client(url) as (read, write, _), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@pytest.fixture(scope="session")
def valid_calls(modern_world: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Valid arguments for every tool of the registry, over the Modern world's data."""
    deck, _ = modern_deck("Boros Energy")
    cards = call(modern_world, "get_enriched_deck", deck=deck)["card_details"]
    stats = call(modern_world, "get_deck_matchup_stats", format="Modern", archetype="Boros Energy", days=30)
    coaching = {"card_details": cards, "archetype": "Boros Energy", "format": "Modern"}
    calls = {
        "list_formats": {},
        "get_format_meta_rankings": {"format": "Modern", "current_days": 30, "group_by": "strategy"},
        "get_format_matchup_stats": {"format": "Modern", "days": 30},
        "get_format_archetypes": {"format": "modern"},
        "get_enriched_deck": {"deck": deck},
        "classify_deck": {"deck": deck, "format": "Modern"},
        "get_deck_matchup_stats": {"archetype": "Boros Energy", "format": "Modern", "days": 30},
        "generate_deck_matchup_strategy": {
            **coaching,
            "opponent_archetype": "Jeskai Blink",
            "matchup_stats": stats,
        },
        "optimize_mainboard": {**coaching, "top_n": 3},
        "optimize_sideboard": coaching,
        "get_card_evidence": {"card": "Fatal Push", "format": "Modern", "opponent_archetype": "Boros Energy"},
        "get_archetype_page": {"format": "Modern", "archetype": "Boros Energy", "days": 30},
        "list_drafts": {},
        "get_draft_pool": {
            "draft_id": "tarkir",
            "color": "G",
            "include_draft_results": True,
            "include_card_details": True,
        },
    }
    assert set(calls) == set(modern_world["registry"].names())
    return calls
