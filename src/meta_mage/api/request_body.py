"""Request bodies: capped as they stream in, given a deadline to arrive, parsed as JSON without a 500
whatever their nesting or numbers; and a client that goes away logged as one line. ``BodyLimit`` is an
ASGI middleware for the chat app and the MCP server."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from typing import Any

import anyio
import anyio.lowlevel
from starlette.requests import ClientDisconnect
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from meta_mage.api.errors import PayloadTooLarge, RequestTimeout, UnsupportedMediaType
from meta_mage.api.middleware import HttpMiddleware
from meta_mage.errors import InvalidArgument, MetaMageError, clip

logger = logging.getLogger(__name__)

Refusal = Callable[[int, MetaMageError], Response]


class _NotJson(ValueError):
    """A constant Python's parser accepts but JSON does not have (NaN, Infinity)."""


def _no_constant(name: str) -> Any:
    raise _NotJson(f"{name} is not a JSON value; send a number or null")


def load_json(raw: bytes) -> Any:
    """``raw`` parsed as JSON; InvalidArgument naming the problem for anything else: malformed or non-UTF-8
    text, nesting too deep for the parser, a number too long for Python's int (4,300 digits), NaN."""
    try:
        return json.loads(raw, parse_constant=_no_constant)
    except RecursionError:
        raise InvalidArgument("request body is not valid JSON we accept: it is nested too deeply") from None
    except UnicodeDecodeError as exc:
        raise InvalidArgument(
            f"request body is not valid JSON: it is not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    except json.JSONDecodeError as exc:
        raise InvalidArgument(f"request body is not valid JSON: {exc}") from None
    except _NotJson as exc:
        raise InvalidArgument(f"request body is not valid JSON: {exc}") from None
    except ValueError:  # int() refuses more digits than sys.get_int_max_str_digits()
        raise InvalidArgument(
            f"request body is not valid JSON we accept: a number has more than {sys.get_int_max_str_digits()} digits"
        ) from None


JSON_MEDIA_TYPE = "application/json"


def require_json(content_type: str | None) -> None:
    """UnsupportedMediaType naming ``content_type`` unless it is ``application/json`` (parameters such as
    ``charset`` aside): a form another site submits (text/plain, urlencoded, multipart) is not a request."""
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    if media_type != JSON_MEDIA_TYPE:
        named = clip(content_type) if content_type else "none"
        raise UnsupportedMediaType(
            f"request body: Content-Type {named} is not accepted; send {JSON_MEDIA_TYPE}", field="content-type"
        )


def json_refusal(status: int, error: MetaMageError) -> Response:
    """The refusal in the chat app's error shape (``{"error", "message"}``)."""
    return JSONResponse(error.to_dict(), status_code=status)


class BodyRefused(Exception):
    """The request body broke a limit before the app had all of it."""

    def __init__(self, status: int, error: MetaMageError) -> None:
        super().__init__(error.message)
        self.status = status
        self.error = error


class _Exchange:
    """One request's ``receive`` and ``send``, watched: the body counted against the limit and the deadline,
    whether the client went away, and how much of the response was sent."""

    def __init__(self, receive: Receive, send: Send, max_bytes: int, timeout: float) -> None:
        self._receive, self._send = receive, send
        self.max_bytes, self.timeout = max_bytes, timeout
        self.deadline = anyio.current_time() + timeout
        self.received = self.sent = 0
        self.body_complete = self.disconnected = self.response_started = self.response_complete = False

    async def receive(self) -> Message:
        if self.body_complete or self.disconnected:
            message = await self._receive()
        else:
            try:
                with anyio.fail_after(max(self.deadline - anyio.current_time(), 0)):
                    message = await self._receive()
            except TimeoutError:
                raise BodyRefused(
                    408,
                    RequestTimeout(
                        f"request body: {self.received} bytes arrived in {self.timeout:g} s, not the whole body; "
                        "send it at once"
                    ),
                ) from None
            if message["type"] == "http.request":
                self.received += len(message.get("body", b""))
                if self.received > self.max_bytes:
                    error = f"request body: more than {self.max_bytes} bytes arrived; the limit is {self.max_bytes}"
                    raise BodyRefused(413, PayloadTooLarge(error))
                self.body_complete = not message.get("more_body", False)
        if message["type"] == "http.disconnect" and not self.response_complete:
            self.disconnected = True
        return message

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.response_started = True
        elif message["type"] == "http.response.body":
            self.sent += len(message.get("body", b""))
            self.response_complete = not message.get("more_body", False)
        await self._send(message)
        if not self.response_complete:
            # Let the event loop run: a connection the client dropped is then seen after this one write
            # (uvicorn drops every later send), not after hundreds more, each logging asyncio's
            # "socket.send() raised exception."
            await anyio.lowlevel.checkpoint()

    def where(self) -> str:
        if not self.body_complete:
            return f"before its request body was complete ({self.received} bytes received)"
        if not self.response_started:
            return "before the response started"
        return f"after {self.sent} bytes of the response"


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class BodyLimit(HttpMiddleware):
    """Refuse a request body over ``max_bytes`` as it streams in (413; at once when its Content-Length says
    so), or one that has not all arrived ``timeout`` seconds after the request started (408); log a client
    that disconnects before its response is complete as one INFO line. ``refusal`` renders a refusal."""

    def __init__(self, app: ASGIApp, *, max_bytes: int, timeout: float, refusal: Refusal = json_refusal) -> None:
        super().__init__(app)
        self.max_bytes = max_bytes
        self.timeout = timeout
        self.refusal = refusal

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            error = PayloadTooLarge(f"request body is {declared} bytes; the limit is {self.max_bytes}")
            await self._refuse(scope, receive, send, 413, error)
            return
        exchange = _Exchange(receive, send, self.max_bytes, self.timeout)
        try:
            await self.app(scope, exchange.receive, exchange.send)
        except BodyRefused as refused:
            if exchange.response_started:
                raise
            await self._refuse(scope, receive, send, refused.status, refused.error)
        except ClientDisconnect:
            if not exchange.disconnected:
                raise
        finally:
            if exchange.disconnected:
                logger.info("client disconnected: %s %s %s", scope["method"], clip(scope["path"]), exchange.where())

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, status: int, error: MetaMageError) -> None:
        # The connection stays open: closing it with the body's rest unread would reset it, and the client
        # would not see this answer. The server drops the rest unread (the local server's protocol bounds
        # how long, see meta_mage.local.http_server).
        await self.refusal(status, error)(scope, receive, send)
