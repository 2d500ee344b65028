"""The agent's tools over MCP: a ``ToolExecutor`` backed by ``langchain-mcp-adapters`` (streamable HTTP)
that raises what the in-process executor raises, and the tool catalog read from the server."""

from __future__ import annotations

import asyncio
import functools
import json
import ssl
import uuid
from collections.abc import Generator
from datetime import timedelta
from typing import Any

import httpx
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, ToolException
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.sessions import StreamableHttpConnection

from meta_mage.errors import InvalidArgument, MetaMageError, NotFound
from meta_mage.models.json import JsonObject

SERVER = "meta_mage"
_ERRORS: dict[str, type[MetaMageError]] = {cls.code: cls for cls in (InvalidArgument, NotFound)}


class ToolFailed(MetaMageError):
    """A tool failed on the MCP server for a reason other than its input (its message says which)."""

    code = "tool_failed"


class ToolServerUnavailable(MetaMageError):
    """The MCP server could not be reached or did not answer the protocol."""

    code = "tool_server_unavailable"


def error_from_text(text: str) -> MetaMageError:
    """The domain error an MCP tool error carries (the server sends ``MetaMageError.to_dict()`` as JSON)."""
    try:
        body = json.loads(text)
    except json.JSONDecodeError:
        return ToolFailed(text)
    if not isinstance(body, dict) or not isinstance(body.get("message"), str):
        return ToolFailed(text)
    cls = _ERRORS.get(str(body.get("error")), ToolFailed)
    return cls(body["message"], field=body.get("field"), allowed=body.get("allowed"))


@functools.cache
def _tls() -> ssl.SSLContext:
    return httpx.create_ssl_context()


def _http_client(
    headers: dict[str, str] | None = None, timeout: httpx.Timeout | None = None, auth: httpx.Auth | None = None
) -> httpx.AsyncClient:
    """The SDK's default client, sharing one TLS context: the adapters open a client per tool call, and
    httpx would otherwise load the CA bundle each time (about 20 ms)."""
    return httpx.AsyncClient(headers=headers, timeout=timeout, auth=auth, verify=_tls())


def _root(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


class LambdaUrlSigV4(httpx.Auth):
    """Sign requests to an ``AWS_IAM`` Lambda function URL with SigV4 (service ``lambda``)."""

    requires_request_body = True

    def __init__(self, region: str) -> None:
        self.region = region

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        from meta_mage.storage.probe import sigv4_headers

        content_type = request.headers.get("content-type", "application/json")
        headers = sigv4_headers(request.method, str(request.url), request.content, content_type, self.region, "lambda")
        if headers is None:
            raise ToolServerUnavailable(f"no AWS credentials to sign requests to {request.url.host}")
        request.headers.update(headers)
        yield request


def function_url_auth(url: str) -> httpx.Auth | None:
    """SigV4 for a Lambda function URL (``https://<id>.lambda-url.<region>.on.aws/...``), else None."""
    host = httpx.URL(url).host
    parts = host.split(".")
    if len(parts) >= 4 and parts[1] == "lambda-url" and host.endswith(".on.aws"):
        return LambdaUrlSigV4(parts[2])
    return None


class McpToolExecutor:
    """Call the registry's tools on an MCP server; a ``ToolExecutor`` for ``AgentTools`` and ``Lookups``.

    Tool errors come back as ``InvalidArgument`` / ``NotFound`` with the server's message and field (what
    ``registry.call`` raises in process), other tool failures as ``ToolFailed``, and transport failures
    as ``ToolServerUnavailable`` naming the URL.
    """

    def __init__(self, url: str, *, timeout_seconds: float = 30) -> None:
        self.url = url
        connection: StreamableHttpConnection = {
            "transport": "streamable_http",
            "url": url,
            "timeout": timedelta(seconds=timeout_seconds),
            "httpx_client_factory": _http_client,
        }
        auth = function_url_auth(url)
        if auth is not None:
            connection["auth"] = auth
        self.client = MultiServerMCPClient({SERVER: connection}, handle_tool_errors=False)
        self._tools: dict[str, BaseTool] | None = None

    def _unavailable(self, exc: BaseException) -> ToolServerUnavailable:
        root = _root(exc)
        unreachable = isinstance(root, httpx.ConnectError | httpx.ConnectTimeout | OSError)
        what = "is unreachable" if unreachable else "did not answer"
        reason = f"{type(root).__name__}: {root}" if str(root) else type(root).__name__
        return ToolServerUnavailable(f"the MCP tool server at {self.url} {what} ({reason})")

    async def tools(self) -> dict[str, BaseTool]:
        """The server's tools as LangChain tools, listed once and kept."""
        if self._tools is None:
            try:
                listed = await self.client.get_tools(server_name=SERVER)
            except Exception as exc:
                raise self._unavailable(exc) from exc
            self._tools = {tool.name: tool for tool in listed}
        return self._tools

    async def catalog(self) -> list[JsonObject]:
        """The registry's ``catalog()`` entries, as the MCP server lists them."""
        return [
            {
                "name": tool.name,
                "description": tool.description,
                "input_schema": tool.args_schema,
            }
            for tool in (await self.tools()).values()
        ]

    def catalog_sync(self) -> list[JsonObject]:
        """``catalog()`` for synchronous callers (a worker thread, never the event loop's own)."""
        return asyncio.run(self.catalog())

    async def __call__(self, name: str, arguments: JsonObject) -> JsonObject:
        tools = await self.tools()
        if name not in tools:
            listed = ", ".join(tools)
            raise InvalidArgument(f"unknown tool {name!r}; tools: {listed}", field="tool", allowed=list(tools))
        call = {"type": "tool_call", "name": name, "args": arguments, "id": f"call_{uuid.uuid4().hex}"}
        try:
            message = await tools[name].ainvoke(call)
        except ToolException as exc:
            raise error_from_text(str(exc)) from None
        except Exception as exc:
            raise self._unavailable(exc) from exc
        return self._result(message)

    @staticmethod
    def _result(message: Any) -> JsonObject:
        artifact = getattr(message, "artifact", None) if isinstance(message, ToolMessage) else None
        if artifact and isinstance(artifact.get("structured_content"), dict):
            result: JsonObject = artifact["structured_content"]
            return result
        raise ToolFailed(f"the MCP tool server answered without structured content: {str(message)[:200]}")
