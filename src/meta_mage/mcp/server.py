"""The tool registry served over MCP: one catalog (names, input schemas and descriptions straight from
the registry), validated calls in a worker thread, errors as MCP tool errors. Stateless streamable HTTP
with JSON responses (an ASGI app for uvicorn, locally or behind the Lambda Web Adapter) or stdio."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from meta_mage import __version__
from meta_mage.config import Settings
from meta_mage.errors import MetaMageError
from meta_mage.mcp import MCP_PATH, WORKFLOW_META
from meta_mage.tools.context import ToolContext
from meta_mage.tools.registry import Tool, ToolRegistry, build_registry

logger = logging.getLogger(__name__)

SERVER_NAME = "meta-mage"
INSTRUCTIONS = (
    "Magic: The Gathering tournament analytics over real results: format meta rankings and matchups, "
    "coaching facts for a pasted decklist, and cube draft pools. Errors name the offending field."
)


def mcp_tool(tool: Tool) -> types.Tool:
    """The registry tool as an MCP tool definition (same name, description and input schema)."""
    return types.Tool(
        name=tool.name,
        description=tool.description,
        inputSchema=tool.input_schema(),
        outputSchema=tool.output_model.model_json_schema(mode="serialization"),
        _meta={WORKFLOW_META: tool.workflow},
    )


def tool_error(name: str, exc: Exception) -> types.CallToolResult:
    """An MCP tool error whose text is the error as JSON (``{"error", "message", "field", "allowed"}``)."""
    if isinstance(exc, MetaMageError):
        body: dict[str, object] = exc.to_dict()
    else:  # the message the in-process agent would show for a tool bug
        logger.exception("tool %s failed", name)
        body = {"error": "tool_failed", "message": f"{name} failed: {type(exc).__name__}: {exc}"}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(body, ensure_ascii=False))], isError=True
    )


def build_mcp_server(registry: ToolRegistry, context: ToolContext) -> Server[Any, Any]:
    """A low-level MCP server listing every registry tool and running calls through ``registry.call``."""
    server: Server[Any, Any] = Server(SERVER_NAME, version=__version__, instructions=INSTRUCTIONS)
    tools = [mcp_tool(tool) for tool in registry.tools.values()]

    @server.list_tools()  # type: ignore[no-untyped-call, untyped-decorator]
    async def list_tools() -> list[types.Tool]:
        return tools

    # validate_input=False: the registry validates like user input, with messages naming the field
    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        try:
            result = await anyio.to_thread.run_sync(registry.call, name, arguments, context)
        except Exception as exc:  # every failure is a tool error; the server keeps serving
            return tool_error(name, exc)
        text = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structuredContent=result, isError=False
        )

    return server


class _McpEndpoint:
    """The session manager as a plain ASGI endpoint (Starlette routes a non-function endpoint as ASGI)."""

    def __init__(self, manager: StreamableHTTPSessionManager) -> None:
        self.manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.manager.handle_request(scope, receive, send)


def build_mcp_app(
    settings: Settings,
    dynamodb: Any | None = None,
    *,
    registry: ToolRegistry | None = None,
    allowed_hosts: list[str] | None = None,
) -> Starlette:
    """The ASGI app: stateless streamable-HTTP MCP (JSON responses) at ``/mcp`` and ``GET /healthz``.

    ``allowed_hosts`` turns on the SDK's DNS-rebinding protection (Host header check) for a server on a
    developer's machine; behind a Lambda function URL the host is the URL's own, so it stays off.
    """
    registry = registry or build_registry()
    server = build_mcp_server(registry, ToolContext.from_settings(settings, dynamodb))
    security = (
        TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=allowed_hosts)
        if allowed_hosts
        else None
    )
    manager = StreamableHTTPSessionManager(server, stateless=True, json_response=True, security_settings=security)

    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "tools": len(registry.tools)})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            yield

    return Starlette(
        routes=[Route(MCP_PATH, _McpEndpoint(manager)), Route("/healthz", healthz, methods=["GET"])],
        lifespan=lifespan,
    )


def loopback_hosts(port: int) -> list[str]:
    """Host headers a loopback server accepts."""
    return [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]


async def serve_stdio(settings: Settings, dynamodb: Any | None = None) -> None:
    """Serve the registry over stdin/stdout until the client closes them (logs go to stderr)."""
    server = build_mcp_server(build_registry(), ToolContext.from_settings(settings, dynamodb))
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
