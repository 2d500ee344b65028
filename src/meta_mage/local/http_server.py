"""uvicorn for the local servers (``meta-mage serve``, ``meta-mage mcp``): its own limits from the settings
(keep-alive, connections, header size), plus a deadline uvicorn lacks for a connection that has not sent a
whole request line and headers, or whose refused body is still arriving, and a request-head cap that holds
however the head's bytes arrive. A body the app is reading gets its deadline from
``meta_mage.api.request_body.BodyLimit``."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, TypedDict

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from meta_mage.config import Settings

logger = logging.getLogger(__name__)


HEAD_TOO_LARGE = 431  # Request Header Fields Too Large


def head_bytes(request: h11.Request) -> int:
    """The size of ``request``'s request line and headers as sent (less any spaces around header values)."""
    line = len(request.method) + len(request.target) + len(b"HTTP/") + len(request.http_version) + 4
    return line + sum(len(name) + len(value) + 4 for name, value in request.headers.raw_items()) + 2


class HeadCappedConnection(h11.Connection):
    """h11's server connection with its head cap applied to every request head.

    h11 caps only an incomplete event: a head that arrives in pieces is refused once more than the cap is
    buffered, but a larger one that arrives in one read is parsed whole. Here a complete head over the cap is
    refused too. The refusal is kept (``refused``), so the protocol can answer it with its status."""

    refused: h11.RemoteProtocolError | None = None

    def next_event(self) -> Any:
        limit = self._max_incomplete_event_size
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as exc:
            self.refused = self._too_large(f"more than {limit}") if exc.error_status_hint == HEAD_TOO_LARGE else exc
            raise self.refused from None
        if isinstance(event, h11.Request) and head_bytes(event) > limit:
            self.refused = self._too_large(str(head_bytes(event)))
            raise self.refused
        return event

    def _too_large(self, size: str) -> h11.RemoteProtocolError:
        message = f"request line and headers: {size} bytes; the limit is {self._max_incomplete_event_size}"
        return h11.RemoteProtocolError(message, HEAD_TOO_LARGE)


class DeadlineH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on the two states uvicorn leaves open forever.

    uvicorn arms its keep-alive timer only once a response is complete, and cancels it on any byte: a
    connection that sends nothing, or half a request line, or a header a minute, stays open. Here a
    connection has ``header_timeout`` seconds from opening (or from its last response) to send a request's
    whole head, and ``drain_timeout`` seconds after its response to finish a body the app did not read
    (a refused one: uvicorn drops the rest as it arrives)."""

    header_timeout: float = 10.0
    drain_timeout: float = 5.0
    _deadline: asyncio.TimerHandle | None = None
    _awaited = ""  # what the armed deadline waits for: "request head" or "body"

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # the same cap uvicorn gave its own connection (h11_max_incomplete_event_size), on every head
        self.conn = HeadCappedConnection(h11.SERVER, self.conn._max_incomplete_event_size)
        self._watch()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request h11 refused: here with h11's status (431 for a head over the cap) and
        the reason, as JSON."""
        refused = self.conn.refused if isinstance(self.conn, HeadCappedConnection) else None
        status = refused.error_status_hint if refused is not None else 400
        code = "request_header_fields_too_large" if status == HEAD_TOO_LARGE else "invalid_request"
        body = json.dumps({"error": code, "message": str(refused) if refused is not None else msg}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"connection", b"close"),
        ]
        for event in (h11.Response(status_code=status, headers=headers), h11.Data(data=body), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event))
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel()
        super().connection_lost(exc)

    def _watch(self) -> None:
        if self.transport.is_closing():
            return
        waiting = self.conn.their_state is h11.IDLE  # no whole request head yet
        draining = self.conn.our_state is not h11.SEND_BODY and self.conn.their_state is h11.SEND_BODY
        if self.cycle is not None and not self.cycle.response_complete:
            draining = False  # the app is still answering, and may still read the body
        awaited = "request head" if waiting else "body" if draining else ""
        if awaited != self._awaited:  # armed once per state: trickling bytes does not extend it
            self._cancel()
            if awaited:
                seconds = self.header_timeout if waiting else self.drain_timeout
                self._deadline = self.loop.call_later(seconds, self._expire)
                self._awaited = awaited

    def _cancel(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline, self._awaited = None, ""

    def _expire(self) -> None:
        if not self.transport.is_closing():
            logger.debug("closing a connection whose %s did not arrive in time", self._awaited)
            self.transport.close()
        self._deadline, self._awaited = None, ""


def deadline_protocol(header_timeout: float, drain_timeout: float) -> type[DeadlineH11Protocol]:
    """``DeadlineH11Protocol`` with these deadlines (uvicorn makes one protocol object per connection)."""
    return type(
        "ConfiguredDeadlineH11Protocol",
        (DeadlineH11Protocol,),
        {"header_timeout": header_timeout, "drain_timeout": drain_timeout},
    )


class ServerOptions(TypedDict):
    """The keyword arguments ``server_options`` gives ``uvicorn.Config`` / ``uvicorn.run``."""

    http: type[H11Protocol]
    timeout_keep_alive: int
    limit_concurrency: int
    h11_max_incomplete_event_size: int


def server_options(settings: Settings) -> ServerOptions:
    """``uvicorn.Config`` / ``uvicorn.run`` keyword arguments for a local server under ``settings``."""
    return {
        "http": deadline_protocol(settings.header_timeout_seconds, settings.keep_alive_seconds),
        "timeout_keep_alive": settings.keep_alive_seconds,
        "limit_concurrency": settings.max_connections,
        "h11_max_incomplete_event_size": settings.max_header_bytes,
    }
