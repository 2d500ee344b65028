"""The agent's MCP executor (langchain-mcp-adapters over streamable HTTP): the same results and the
same exceptions as the in-process executor, a clear error when the server is down, and the chat app
wired to an MCP server (tools and /welcome catalog)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from meta_mage.agent.tools import AgentTools, in_process_executor
from meta_mage.api.factory import build_app
from meta_mage.errors import MetaMageError
from meta_mage.mcp.client import McpToolExecutor, ToolFailed, ToolServerUnavailable
from meta_mage.mcp.server import build_mcp_app
from meta_mage.tools.registry import Tool, ToolRegistry, build_registry
from meta_mage.wiring import coach_from_settings
from tests.agent.conftest import run_turn
from tests.mcp_server.test_server import INVALID
from tests.servers import free_port, serving


async def test_results_and_errors_match_the_in_process_executor(
    mcp_url: str, modern_world: dict[str, Any], valid_calls: dict[str, dict[str, Any]]
) -> None:
    remote = McpToolExecutor(mcp_url)
    local = in_process_executor(modern_world["registry"], modern_world["context"])
    assert await remote.catalog() == modern_world["registry"].catalog()
    for name in ("get_format_meta_rankings", "get_enriched_deck", "get_draft_pool"):
        # over MCP the JSON, in process the output model: the same data
        expected = (await local(name, valid_calls[name])).model_dump(mode="json")
        assert await remote(name, valid_calls[name]) == expected
    for name, arguments, _ in INVALID:
        with pytest.raises(MetaMageError) as here:
            await local(name, arguments)
        with pytest.raises(MetaMageError) as there:
            await remote(name, arguments)
        assert type(there.value) is type(here.value), name
        assert there.value.to_dict() == here.value.to_dict()


def _broken_registry() -> ToolRegistry:
    def explode(context: Any, params: Any) -> Any:
        raise RuntimeError("the table is on fire")

    listed = build_registry().tools["list_formats"]
    broken = Tool("list_formats", listed.description, listed.input_model, listed.output_model, explode)
    return ToolRegistry([broken])


async def test_a_tool_bug_on_the_server_reads_as_it_does_in_process(modern_world: dict[str, Any]) -> None:
    registry = _broken_registry()
    with serving(build_mcp_app(modern_world["settings"], modern_world["db"], registry=registry)) as base:
        remote = AgentTools(registry, McpToolExecutor(f"{base}/mcp"))
        local = AgentTools(registry, in_process_executor(registry, modern_world["context"]))
        there, here = await remote.run("list_formats", {}), await local.run("list_formats", {})
        assert there.error == here.error == "list_formats failed: RuntimeError: the table is on fire"
        with pytest.raises(ToolFailed):
            await remote.executor("list_formats", {})


async def test_an_unreachable_server_is_a_clear_error() -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    with pytest.raises(ToolServerUnavailable) as raised:
        await McpToolExecutor(url, timeout_seconds=2)("list_formats", {})
    assert url in raised.value.message and "unreachable" in raised.value.message
    outcome = await AgentTools(build_registry(), McpToolExecutor(url, timeout_seconds=2)).run("list_formats", {})
    assert outcome.error and url in outcome.error


async def test_configured_mcp_url_wires_the_agent_and_the_welcome_catalog(modern_world: dict[str, Any]) -> None:
    # a server with fewer tools than the registry shows that /welcome lists what the server serves
    full = build_registry()
    subset = ToolRegistry([full.tools["list_formats"], full.tools["get_format_meta_rankings"]])
    app = build_mcp_app(modern_world["settings"], modern_world["db"], registry=subset)
    with serving(app) as base:
        settings = modern_world["settings"].model_copy(update={"mcp_url": f"{base}/mcp"})
        conversations = coach_from_settings(settings, dynamodb=modern_world["db"])
        assert isinstance(conversations.deps.tools.executor, McpToolExecutor)
        turn = await run_turn(conversations, "Top decks in Modern, last 30 days")
        assert turn.tools("complete") == ["get_format_meta_rankings"]

        chat = build_app(settings, modern_world["db"])
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=chat), base_url="http://test") as http:
            welcome = (await http.get("/welcome")).json()
    assert welcome["tool_count"] == 2
    assert welcome["tool_catalog"] == subset.catalog()
    assert [t["name"] for t in welcome["workflows"][0]["tool_details"]] == ["list_formats", "get_format_meta_rankings"]


def test_function_urls_are_signed_with_sigv4_and_loopback_is_not() -> None:
    from meta_mage.mcp.client import function_url_auth

    assert function_url_auth("http://127.0.0.1:8001/mcp") is None
    auth = function_url_auth("https://abcdefghijklmnop.lambda-url.eu-west-1.on.aws/mcp")
    assert auth is not None
    request = httpx.Request("POST", "https://abcdefghijklmnop.lambda-url.eu-west-1.on.aws/mcp", content=b"{}")
    signed = next(auth.auth_flow(request))
    authorization = signed.headers["authorization"]
    assert authorization.startswith("AWS4-HMAC-SHA256 Credential=")
    assert "/eu-west-1/lambda/aws4_request" in authorization and "SignedHeaders=content-type;host;x-amz-date" in (
        authorization
    )
