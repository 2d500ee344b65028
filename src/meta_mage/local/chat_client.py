"""Server-sent events of ``POST /chat``: the one SSE parser (for the terminal client, the tests and
the benchmarks), the streaming client, and ``meta-mage chat``, a terminal client for the HTTP API."""

from __future__ import annotations

import contextlib
import json
import os
import select
import sys
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TextIO

import httpx

from meta_mage.local.terminal import can_draw, draw, render

SsePair = tuple[str, dict[str, Any]]


class _SseParser:
    """Line-by-line SSE state: ``event:`` and ``data:`` lines until a blank line ends the event;
    comments (pings) and events without data are left out."""

    def __init__(self) -> None:
        self.kind, self.data = "message", ""

    def feed(self, line: str) -> SsePair | None:
        """Take one line (without its ending); the finished event when the line ends one."""
        if line.startswith("event:"):
            self.kind = line[6:].strip()
        elif line.startswith("data:"):
            self.data += line[5:].strip()
        elif not line.strip():
            return self.end()
        return None

    def end(self) -> SsePair | None:
        """The event in progress, if it has data (a stream may end without its last blank line)."""
        pair = (self.kind, json.loads(self.data)) if self.data else None
        self.kind, self.data = "message", ""
        return pair


def parse_sse(lines: Iterable[str]) -> Iterator[SsePair]:
    """(event, data) pairs of SSE lines, pings left out."""
    parser = _SseParser()
    for line in lines:
        if (pair := parser.feed(line)) is not None:
            yield pair
    if (pair := parser.end()) is not None:
        yield pair


async def aparse_sse(lines: AsyncIterable[str]) -> AsyncGenerator[SsePair, None]:
    """(event, data) pairs of SSE lines as they arrive (e.g. ``response.aiter_lines()``), pings left out."""
    parser = _SseParser()
    async for line in lines:
        if (pair := parser.feed(line)) is not None:
            yield pair
    if (pair := parser.end()) is not None:
        yield pair


def sse_events(body: str) -> list[SsePair]:
    """(event, data) pairs of a whole SSE body, pings left out."""
    return list(parse_sse(body.replace("\r\n", "\n").split("\n")))


@dataclass(frozen=True)
class _Event:
    event: str
    data: dict[str, Any]


async def stream_chat(client: httpx.AsyncClient, body: dict[str, Any]) -> AsyncIterator[_Event]:
    """POST /chat and yield its server-sent events as they arrive (HTTP errors as ``error``)."""
    async with client.stream("POST", "/chat", json=body, timeout=None) as response:
        if response.status_code != 200:
            await response.aread()
            yield _Event("error", response.json())
            return
        async with contextlib.aclosing(aparse_sse(response.aiter_lines())) as pairs:
            async for kind, data in pairs:
                yield _Event(kind, data)


PASTE_GAP_SECONDS = 0.05


def read_message(prompt: str = "you> ", stream: TextIO | None = None) -> str | None:
    """One message from a terminal, or None at end of input. Everything that arrives together is one
    message: a pasted decklist comes in as many lines at once, and they all belong to it (a typed line
    ends at Enter). From a pipe, one line is one message."""
    stream = stream or sys.stdin
    if not stream.isatty():
        line = stream.readline()
        return line.rstrip("\n") if line else None
    print(prompt, end="", flush=True)
    fd = stream.fileno()
    chunks = [os.read(fd, 65536)]
    if not chunks[0]:
        return None
    while select.select([fd], [], [], PASTE_GAP_SECONDS)[0]:
        more = os.read(fd, 65536)
        if not more:
            break
        chunks.append(more)
    return b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n").rstrip("\n")


async def chat_loop(url: str, fmt: str | None, days: int | None) -> int:
    """Read messages from stdin until EOF or 'quit'; one conversation for the whole session."""
    context = {k: v for k, v in {"format": fmt, "days": days}.items() if v is not None}
    pretty = can_draw()
    async with httpx.AsyncClient(base_url=url) as client:
        try:
            welcome = (await client.get("/welcome")).json()
        except httpx.HTTPError as exc:
            print(f"error: cannot reach {url} ({exc}); start it with 'meta-mage serve'", file=sys.stderr)
            return 1
        conversation_id = welcome["conversation_id"]
        print(welcome["message"], "\n")
        while True:
            message = read_message()
            if message is None:
                return 0
            message = message.strip()
            if message.lower() in {"quit", "exit"}:
                return 0
            if not message:
                continue
            body = {"message": message, "conversation_id": conversation_id, "context": context}
            events = stream_chat(client, body)
            summary = await (draw(events) if pretty else render(events))
            conversation_id = summary.get("conversation_id", conversation_id)
            print()
