"""The tool registry served over MCP: one catalog (names, input schemas and descriptions straight from
the registry), validated calls in a worker thread, errors as MCP tool errors. Stateless streamable HTTP
with JSON responses (an ASGI app for uvicorn, locally or behind the Lambda Web Adapter) or stdio."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any, get_args

import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from meta_mage import __version__
from meta_mage.api.request_body import BodyLimit, load_json
from meta_mage.api.routes import snapstart
from meta_mage.config import Settings
from meta_mage.errors import InvalidArgument, MetaMageError, echo
from meta_mage.mcp import MCP_PATH
from meta_mage.models.json import JsonObject
from meta_mage.snapstart import RestoreHooks
from meta_mage.tools.context import ToolContext
from meta_mage.tools.registry import Tool, ToolRegistry
from meta_mage.tools.runner import run_tool
from meta_mage.wiring import Wiring

logger = logging.getLogger(__name__)

SERVER_NAME = "meta-mage"
INSTRUCTIONS = (
    "Magic: The Gathering tournament analytics over real results: format meta rankings and matchups, "
    "coaching facts for a pasted decklist, and cube draft pools. Errors name the offending field."
)


def mcp_tool(tool: Tool[Any]) -> types.Tool:
    """The registry tool as an MCP tool definition (same name, description and input schema)."""
    return types.Tool(
        name=tool.name,
        description=tool.description,
        inputSchema=tool.input_schema(),
        outputSchema=tool.output_model.model_json_schema(mode="serialization"),
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


def build_mcp_server(registry: ToolRegistry, context: Callable[[], ToolContext]) -> Server[Any, Any]:
    """A low-level MCP server listing every registry tool and running calls through ``run_tool``, over the
    tool context ``context()`` returns at each call (a SnapStart restore replaces it)."""
    server: Server[Any, Any] = Server(SERVER_NAME, version=__version__, instructions=INSTRUCTIONS)
    tools = [mcp_tool(tool) for tool in registry.tools.values()]

    @server.list_tools()  # type: ignore[no-untyped-call, untyped-decorator]
    async def list_tools() -> list[types.Tool]:
        return tools

    # validate_input=False: the registry validates like user input, with messages naming the field
    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def call_tool(name: str, arguments: JsonObject) -> types.CallToolResult:
        try:  # in a worker thread, CPU-heavy tools under the CPU limit, under the context's deadline
            result = (await run_tool(registry, name, arguments, context())).model_dump(mode="json")
        except Exception as exc:  # every failure is a tool error; the server keeps serving
            return tool_error(name, exc)
        text = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structuredContent=result, isError=False
        )

    return server


CLIENT_METHODS = frozenset(
    method
    for request in get_args(types.ClientRequest.model_fields["root"].annotation)
    for method in get_args(request.model_fields["method"].annotation)
)


def request_problem(message: Any) -> tuple[Any, int, str, str] | None:
    """``(id, code, message, field)`` for a JSON-RPC request (parsed) the SDK would refuse without naming
    the problem ("Invalid request parameters"): an unknown method, or a ``tools/call`` whose ``params``,
    ``name`` or ``arguments`` has the wrong shape. None for anything else (the SDK handles it)."""
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return None
    if isinstance(message.get("id"), bool) or not isinstance(message.get("id"), str | int):
        return None  # a notification (no id) or a malformed id: the SDK's own answer
    request_id, method, params = message["id"], message["method"], message.get("params")
    if method not in CLIENT_METHODS:
        return request_id, types.METHOD_NOT_FOUND, f"method: unknown method {echo(method)}", "method"
    if method != "tools/call":
        return None
    if not isinstance(params, dict):
        return request_id, types.INVALID_PARAMS, "params: must be an object with name and arguments", "params"
    if not isinstance(params.get("name"), str):
        return request_id, types.INVALID_PARAMS, "params.name: the tool's name (a string) is required", "params.name"
    if params.get("arguments") is not None and not isinstance(params["arguments"], dict):
        return (
            request_id,
            types.INVALID_PARAMS,
            "params.arguments: must be an object of the tool's arguments by name",
            "params.arguments",
        )
    return None


async def _read_body(receive: Receive) -> tuple[bytes, Receive]:
    """The whole request body, and a ``receive`` that hands it to the next reader again; ClientDisconnect
    when the client leaves before it is all sent (``BodyLimit`` caps its size and logs the disconnect)."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise ClientDisconnect()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    body = b"".join(chunks)
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return body, replay


class _McpEndpoint:
    """The session manager as a plain ASGI endpoint (Starlette routes a non-function endpoint as ASGI).

    The server is stateless with JSON responses, so it sends no server-initiated messages: a ``GET``
    (the optional SSE stream) gets 405, as the MCP spec allows, instead of a stream that never ends
    and would hold the Lambda invocation until its timeout.
    """

    def __init__(self, manager: StreamableHTTPSessionManager) -> None:
        self.manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") == "GET":
            error = types.JSONRPCError(
                jsonrpc="2.0",
                id="server-error",
                error=types.ErrorData(
                    code=types.INVALID_REQUEST,
                    message="Method Not Allowed: this stateless server has no SSE stream; POST JSON-RPC requests",
                ),
            )
            response = JSONResponse(
                error.model_dump(by_alias=True, exclude_none=True), status_code=405, headers={"Allow": "POST, DELETE"}
            )
            await response(scope, receive, send)
            return
        if scope.get("method") == "POST":
            body, receive = await _read_body(receive)
            try:
                # parsed here too: the SDK's parser answers deep nesting, a 5,000-digit id or bytes that
                # are not UTF-8 with a 500
                parsed = load_json(body)
            except InvalidArgument as exc:
                await _rpc_error(400, types.PARSE_ERROR, f"Parse error: {exc.message}")(scope, receive, send)
                return
            problem = request_problem(parsed)
            if problem is not None:
                request_id, code, text, field = problem
                refusal = types.JSONRPCError(
                    jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=text, data={"field": field})
                )
                await JSONResponse(refusal.model_dump(by_alias=True, exclude_none=True))(scope, receive, send)
                return
        await self.manager.handle_request(scope, receive, send)


def _rpc_error(status: int, code: int, message: str) -> Response:
    """A JSON-RPC error for a request refused before its id is known (the id the SDK uses then)."""
    error = types.JSONRPCError(jsonrpc="2.0", id="server-error", error=types.ErrorData(code=code, message=message))
    return JSONResponse(error.model_dump(by_alias=True, exclude_none=True), status_code=status)


def _body_refusal(status: int, error: MetaMageError) -> Response:
    """``BodyLimit``'s refusal (a body over the limit or too slow) as a JSON-RPC error."""
    return _rpc_error(status, types.INVALID_REQUEST, error.message)


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
    wiring = Wiring(settings, dynamodb, registry)
    registry = wiring.registry
    context = wiring.tool_context

    def rebuild() -> None:  # after a SnapStart restore: the same server over new clients
        nonlocal context
        context = Wiring(settings, dynamodb, registry).tool_context

    server = build_mcp_server(registry, lambda: context)
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

    limit = Middleware(
        BodyLimit,
        max_bytes=settings.mcp_max_body_bytes,
        timeout=settings.body_timeout_seconds,
        refusal=_body_refusal,
    )
    app = Starlette(
        routes=[
            Route(MCP_PATH, _McpEndpoint(manager)),
            Route("/healthz", healthz, methods=["GET"]),
            *snapstart.ROUTES,
        ],
        middleware=[limit],
        lifespan=lifespan,
    )
    app.state.snapstart = RestoreHooks(rebuild)
    return app


def loopback_hosts(port: int) -> list[str]:
    """Host headers a loopback server accepts."""
    return [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]


async def serve_stdio(settings: Settings, dynamodb: Any | None = None) -> None:
    """Serve the registry over stdin/stdout until the client closes them (logs go to stderr)."""
    wiring = Wiring(settings, dynamodb)
    context = wiring.tool_context
    server = build_mcp_server(wiring.registry, lambda: context)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
