"""uvicorn for the local servers (``meta-mage serve``, ``meta-mage mcp``): its own limits from the settings
(keep-alive, connections, header size), plus a deadline uvicorn lacks for a connection that has not sent a
whole request line and headers, or whose refused body is still arriving. A body the app is reading gets
its deadline from ``meta_mage.api.request_body.BodyLimit``."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from meta_mage.config import Settings

logger = logging.getLogger(__name__)


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
        self._watch()

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


def server_options(settings: Settings) -> dict[str, Any]:
    """``uvicorn.Config`` / ``uvicorn.run`` keyword arguments for a local server under ``settings``."""
    return {
        "http": deadline_protocol(settings.header_timeout_seconds, settings.keep_alive_seconds),
        "timeout_keep_alive": settings.keep_alive_seconds,
        "limit_concurrency": settings.max_connections,
        "h11_max_incomplete_event_size": settings.max_header_bytes,
    }
