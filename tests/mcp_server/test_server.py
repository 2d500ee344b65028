"""The MCP server driven by the SDK's own client over loopback: the catalog is the registry's, every
tool answers what ``registry.call`` answers, bad input is a tool error naming the field, and the
server keeps serving."""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any

import httpx
import pytest

from meta_mage.config import get_settings
from meta_mage.errors import MetaMageError
from meta_mage.mcp.server import build_mcp_app, loopback_hosts
from tests.conftest import call
from tests.mcp_server.conftest import mcp_session
from tests.servers import free_port, serving


async def test_tools_list_is_the_registry_catalog(mcp_url: str, modern_world: dict[str, Any]) -> None:
    async with mcp_session(mcp_url) as session:
        listed = (await session.list_tools()).tools
    catalog = modern_world["registry"].catalog()
    assert [t.name for t in listed] == [entry["name"] for entry in catalog]
    for tool, entry in zip(listed, catalog, strict=True):
        assert tool.description == entry["description"]
        assert tool.inputSchema == entry["input_schema"]
        assert "workflow" not in entry and not tool.meta  # which workflows use a tool is the agent's to say
        assert tool.outputSchema and tool.outputSchema["type"] == "object"


async def test_every_tool_answers_what_the_registry_answers(
    mcp_url: str, modern_world: dict[str, Any], valid_calls: dict[str, dict[str, Any]]
) -> None:
    async with mcp_session(mcp_url) as session:
        results = {name: await session.call_tool(name, arguments) for name, arguments in valid_calls.items()}
    for name, arguments in valid_calls.items():
        result = results[name]  # the SDK has checked structuredContent against the tool's outputSchema
        assert not result.isError, (name, result.content)
        expected = call(modern_world, name, **arguments)
        assert result.structuredContent == expected, name
        assert json.loads(result.content[0].text) == expected, name  # type: ignore[union-attr]


INVALID: list[tuple[str, dict[str, Any], str | None]] = [
    ("get_format_meta_rankings", {"format": "Commander"}, "format"),
    ("get_format_meta_rankings", {"format": "Modern", "current_days": 0}, "current_days"),
    ("get_format_matchup_stats", {"format": "Modern", "days": "many"}, "days"),
    ("get_format_archetypes", {}, "format"),
    ("list_formats", {"verbose": True}, "verbose"),
    ("get_enriched_deck", {"deck": "   "}, "deck"),
    ("classify_deck", {"deck": "4 Lightning Bolt", "format": "Modern", "extra": 1}, "extra"),
    ("get_deck_matchup_stats", {"archetype": "Goblin Storm", "format": "Modern"}, "archetype"),
    ("get_archetype_page", {"archetype": "Goblin Storm", "format": "Modern"}, "archetype"),
    ("get_archetype_page", {"archetype": "Boros Energy", "format": "Modern", "days": 400}, "days"),
    ("optimize_sideboard", {"card_details": [], "archetype": "Boros Energy", "format": "Modern"}, "card_details"),
    ("get_draft_pool", {"draft_id": "tarkir", "color": "P"}, "color"),
    ("get_draft_pool", {"draft_id": "nope"}, "draft_id"),
    ("no_such_tool", {}, "tool"),
]


def _registry_error(world: dict[str, Any], name: str, arguments: dict[str, Any]) -> dict[str, object]:
    with pytest.raises(MetaMageError) as raised:
        world["registry"].call(name, arguments, world["context"])
    return raised.value.to_dict()


async def test_bad_arguments_are_tool_errors_naming_the_field_and_the_server_keeps_serving(
    mcp_url: str, modern_world: dict[str, Any]
) -> None:
    async with mcp_session(mcp_url) as session:
        for name, arguments, field in INVALID:
            result = await session.call_tool(name, arguments)
            assert result.isError, (name, arguments)
            body = json.loads(result.content[0].text)  # type: ignore[union-attr]
            assert body == _registry_error(modern_world, name, arguments)
            assert body["field"] == field and body["error"] in {"invalid_argument", "not_found"}
            assert field in body["message"], body
            # each error leaves the server answering
            assert not (await session.call_tool("list_formats", {})).isError


async def test_a_new_client_after_errors_is_served(mcp_url: str) -> None:
    async with mcp_session(mcp_url) as first:
        assert (await first.call_tool("get_format_archetypes", {"format": "Vintage Cube"})).isError
    async with mcp_session(mcp_url) as second:
        result = await second.call_tool("list_drafts", {})
        assert not result.isError and result.structuredContent
        assert [d["draft_id"] for d in result.structuredContent["drafts"]] == ["tarkir"]


async def test_health_and_host_check(mcp_url: str, modern_world: dict[str, Any]) -> None:
    async with httpx.AsyncClient() as http:
        health = await http.get(mcp_url.removesuffix("/mcp") + "/healthz")
        assert health.json() == {"status": "ok", "tools": len(modern_world["registry"].names())}

    # a loopback server checks the Host header (DNS rebinding); the Lambda one does not
    port = free_port()
    app = build_mcp_app(modern_world["settings"], modern_world["db"], allowed_hosts=loopback_hosts(port))
    with serving(app, port) as base:
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        headers = {"accept": "application/json, text/event-stream"}
        async with httpx.AsyncClient() as http:
            ok = await http.post(f"{base}/mcp", json=ping, headers=headers)
            rebound = await http.post(f"{base}/mcp", json=ping, headers={**headers, "host": "evil.example:80"})
    assert ok.status_code == 200 and ok.headers["content-type"].startswith("application/json")
    assert rebound.status_code == 421


async def test_the_lambda_entry_module_serves_the_configured_tables(
    modern_world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = modern_world["settings"]
    for key in ("meta_table", "cards_table", "drafts_table"):
        monkeypatch.setenv(f"META_MAGE_{key.upper()}", getattr(settings, key))
    get_settings.cache_clear()
    try:
        sys.modules.pop("meta_mage.mcp.function", None)
        function = importlib.import_module("meta_mage.mcp.function")  # what uvicorn loads on Lambda
    finally:
        get_settings.cache_clear()
    with serving(function.app) as base:
        async with mcp_session(f"{base}/mcp") as session:
            result = await session.call_tool("list_formats", {})
    assert not result.isError and result.structuredContent == call(modern_world, "list_formats")
