"""Server-sent events of ``POST /chat``: the one SSE parser (for the terminal client, the tests and
the benchmarks), the streaming client, and ``meta-mage chat``, a terminal client for the HTTP API."""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import sys
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from typing import TextIO

import httpx

from meta_mage.local.terminal import can_draw, draw, render
from meta_mage.models.json import JsonObject

SsePair = tuple[str, JsonObject]


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
    data: JsonObject


async def stream_chat(client: httpx.AsyncClient, body: JsonObject) -> AsyncGenerator[_Event, None]:
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
    message: a pasted decklist comes in as many lines at once, and they all belong to it, its last line
    too when it has no newline (a typed line ends at Enter). From a pipe, one line is one message."""
    stream = stream or sys.stdin
    if not stream.isatty():
        line = stream.readline()
        return line.rstrip("\n") if line else None
    print(prompt, end="", flush=True)
    fd = stream.fileno()
    first = os.read(fd, 65536)
    if not first:
        return None
    text = (first + _rest_of_burst(fd)).decode("utf-8", "replace").replace("\r\n", "\n")
    if not text.endswith("\n"):
        print()  # the paste's last line had no newline: what follows starts below it
    return text.rstrip("\n")


def _rest_of_burst(fd: int) -> bytes:
    """The bytes arriving within ``PASTE_GAP_SECONDS`` of each other after the first line.

    A terminal in line mode hands over whole lines only, and keeps a line without its newline until
    Enter: a paste's last line would wait there and join the next message. Line mode is off meanwhile,
    so that line is read with the rest (the terminal has echoed it already)."""
    import termios

    saved = termios.tcgetattr(fd)
    bytewise = termios.tcgetattr(fd)
    bytewise[3] &= ~termios.ICANON
    bytewise[6][termios.VMIN], bytewise[6][termios.VTIME] = 1, 0
    termios.tcsetattr(fd, termios.TCSANOW, bytewise)  # TCSANOW: nothing typed is dropped
    try:
        chunks = []
        while select.select([fd], [], [], PASTE_GAP_SECONDS)[0]:
            more = os.read(fd, 65536)
            if not more:
                break
            chunks.append(more)
        return b"".join(chunks)
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)


def _reason(exc: BaseException) -> str:
    """Why a connection failed, in a few words ("connection refused"), from the errors it was raised from."""
    causes: list[BaseException] = [exc]
    for _ in range(50):  # a bounded walk down the chain
        if not causes:
            break
        cause = causes.pop()
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        causes += [c for c in (cause.__cause__, cause.__context__) if c is not None]
        causes += getattr(cause, "exceptions", ())  # an ExceptionGroup: one error per address tried
    reason = re.sub(r"^\[Errno -?\d+\] ", "", str(exc)) or type(exc).__name__
    return reason[:1].lower() + reason[1:]


def not_answering(url: str, exc: httpx.TransportError) -> str:
    """One line for a server that went away: what happened to the message, and what to do."""
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        return (
            f"The server at {url} is not answering ({_reason(exc)}); your message was not sent. "
            "Start it again and send again."
        )
    return f"The server at {url} went away during the answer ({_reason(exc)}). Start it again and send again."


async def _welcome(client: httpx.AsyncClient, url: str) -> JsonObject | None:
    """``GET /welcome`` (a new conversation id and the greeting), or None after saying in one line why not."""
    try:
        response = await client.get("/welcome")
    except httpx.TransportError as exc:
        print(
            f"The server at {url} is not answering ({_reason(exc)}): "
            "start it with 'meta-mage serve', or give its address with --url.",
            file=sys.stderr,
        )
        return None
    try:
        welcome: JsonObject = response.json()
        welcome["conversation_id"]
    except (ValueError, KeyError, TypeError):
        print(
            f"{url} answered GET /welcome with HTTP {response.status_code}, not a greeting: is it 'meta-mage serve'? "
            "Give its address with --url.",
            file=sys.stderr,
        )
        return None
    return welcome


def _lost_conversation(event: _Event | None) -> bool:
    """Whether the server said it does not know the conversation (it started again on an empty database)."""
    return event is not None and event.event == "error" and event.data.get("error") == "conversation_not_found"


async def _chained(first: _Event | None, rest: AsyncIterator[_Event]) -> AsyncIterator[_Event]:
    if first is not None:
        yield first
    async for event in rest:
        yield event


async def _answer(client: httpx.AsyncClient, url: str, body: JsonObject) -> AsyncIterator[_Event]:
    """The events answering ``body``; a conversation the server no longer knows is replaced by a new one
    (``body`` then names it), said in one line."""
    async with contextlib.aclosing(stream_chat(client, body)) as events:
        first = await anext(events, None)
        if not _lost_conversation(first):
            async for event in _chained(first, events):
                yield event
            return
    welcome = await _welcome(client, url)
    if welcome is None:
        return
    print("The server no longer knows this conversation (it started again on an empty database): a new one begins.")
    body["conversation_id"] = welcome["conversation_id"]
    async with contextlib.aclosing(stream_chat(client, body)) as events:
        async for event in events:
            yield event


async def chat_loop(url: str, fmt: str | None, days: int | None) -> int:
    """Read messages from stdin until EOF or 'quit'; one conversation for the whole session. A server that
    goes away costs the message it missed, said in one line; the next message goes to the same address."""
    context = {k: v for k, v in {"format": fmt, "days": days}.items() if v is not None}
    show = draw if can_draw() else render
    async with httpx.AsyncClient(base_url=url) as client:
        welcome = await _welcome(client, url)
        if welcome is None:
            return 1
        conversation_id = welcome["conversation_id"]
        print(welcome["message"], "\n")
        if days is not None:
            print(f"(the last {days} days: start with --days to change it)\n")
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
            try:
                summary = await show(_answer(client, url, body))
            except httpx.TransportError as exc:
                print(not_answering(url, exc), file=sys.stderr)
                continue
            conversation_id = summary.get("conversation_id", body["conversation_id"])
            print()
