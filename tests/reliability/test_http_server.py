"""The local servers under real uvicorn on loopback, with the options ``meta-mage serve`` and ``meta-mage
mcp`` use (``meta_mage.local.http_server.server_options``) and small limits so each case is quick: request
bodies are capped as they stream in (a declared Content-Length over the cap is refused unread, a chunked
body as soon as it passes it) and memory stays flat under large uploads; idle, half-sent-head and
half-sent-body connections are closed; a client that disconnects is one INFO line, not a traceback or
hundreds of asyncio warnings. Raw sockets, so that the client can stop half-way."""

from __future__ import annotations

import json
import logging
import re
import socket
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from meta_mage.api.factory import build_app
from meta_mage.config import Settings
from meta_mage.local.http_server import server_options
from meta_mage.mcp.server import build_mcp_app
from tests.servers import free_port, running

LIMIT = 4096
SMALL = {
    "max_body_bytes": LIMIT,
    "mcp_max_body_bytes": LIMIT,
    "body_timeout_seconds": 0.5,
    "header_timeout_seconds": 0.5,
    "keep_alive_seconds": 1,
}
DISCONNECT_LOGGER = "meta_mage.api.request_body"
JSON_HEADERS = "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"


@dataclass
class Served:
    port: int
    server: uvicorn.Server

    def connect(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        return sock


@contextmanager
def served(app: Any, settings: Settings) -> Iterator[Served]:
    """``app`` under uvicorn with the local servers' options, on a loopback port, for the block."""
    port = free_port()
    with running(app, port, **server_options(settings)) as server:
        yield Served(port, server)


@pytest.fixture(scope="module")
def small(modern_world: dict[str, Any]) -> Settings:
    settings: Settings = modern_world["settings"].model_copy(update=SMALL)
    return settings


@pytest.fixture(scope="module")
def chat_server(modern_world: dict[str, Any], small: Settings) -> Iterator[Served]:
    with served(build_app(small, modern_world["db"]), small) as running:
        yield running


@pytest.fixture(scope="module")
def mcp_server(modern_world: dict[str, Any], small: Settings) -> Iterator[Served]:
    with served(build_mcp_app(small, modern_world["db"]), small) as running:
        yield running


def read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 response with a Content-Length: status, headers, body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed before a response: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    while len(body) < int(headers["content-length"]):
        chunk = sock.recv(65536)
        assert chunk, "connection closed inside a response"
        body += chunk
    return int(lines[0].split()[1]), headers, body


def closed_within(sock: socket.socket, seconds: float) -> tuple[bool, bytes]:
    """Whether the server closes ``sock`` within ``seconds``, and what it sent before."""
    sock.settimeout(seconds)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except TimeoutError:
        return False, received
    except ConnectionResetError:
        pass
    return True, received


def post_head(path: str, *, length: int | None = None, chunked: bool = False) -> bytes:
    framing = "Transfer-Encoding: chunked\r\n" if chunked else f"Content-Length: {length}\r\n"
    return f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{JSON_HEADERS}{framing}\r\n".encode()


def chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


# --- the body cap --------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/chat", "/mcp"])
def test_a_declared_body_over_the_cap_is_refused_before_it_is_read(
    chat_server: Served, mcp_server: Served, path: str
) -> None:
    running = chat_server if path == "/chat" else mcp_server
    with running.connect() as sock:
        sock.sendall(post_head(path, length=300_000_000))  # the head alone: not a byte of the body
        status, _, body = read_response(sock)
    assert status == 413
    error = json.loads(body)
    message = error["message"] if path == "/chat" else error["error"]["message"]
    assert message == f"request body is 300000000 bytes; the limit is {LIMIT}"


@pytest.mark.parametrize("path", ["/chat", "/mcp"])
def test_a_chunked_body_is_cut_off_when_it_passes_the_cap(chat_server: Served, mcp_server: Served, path: str) -> None:
    running = chat_server if path == "/chat" else mcp_server
    with running.connect() as sock:
        sock.sendall(post_head(path, chunked=True))
        for _ in range(8):  # 8 KB of a body that never ends: the answer comes before its end
            sock.sendall(chunk(b"x" * 1024))
        status, _, body = read_response(sock)
        assert status == 413 and f"more than {LIMIT} bytes arrived" in body.decode()
        closed, _ = closed_within(sock, 3)  # the unread rest has keep_alive_seconds to arrive
        assert closed


def rss_bytes() -> int:
    fields = Path("/proc/self/status").read_text().split("VmRSS:")[1].split()
    return int(fields[0]) * 1024


def upload(port: int, total: int, sent: list[int]) -> None:
    """Stream a chunked body of ``total`` bytes to /chat until done or the server closes the connection."""
    piece = chunk(b"x" * (1 << 20))
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(post_head("/chat", chunked=True))
        done = 0
        try:
            while done < total:
                sock.sendall(piece)
                done += 1 << 20
        except OSError:  # reset or broken pipe: the server stopped taking it
            pass
        sent.append(done)


def test_three_large_uploads_at_once_keep_memory_flat(chat_server: Served) -> None:
    """Three 100 MB chunked bodies at once (the probe's three 300 MB ones took the server from 150 MB to
    1.64 GB): the server's memory stays within a few MB, and it keeps serving."""
    before, peak, sent = rss_bytes(), 0, list[int]()
    threads = [threading.Thread(target=upload, args=(chat_server.port, 100 << 20, sent)) for _ in range(3)]
    for thread in threads:
        thread.start()
    while any(t.is_alive() for t in threads):
        peak = max(peak, rss_bytes())
        time.sleep(0.01)
    growth = peak - before
    print(f"RSS grew {growth / 2**20:.1f} MB under three 100 MB uploads; sent {[s >> 20 for s in sent]} MB")
    assert len(sent) == 3 and growth < 40 << 20, f"RSS grew {growth >> 20} MB; sent {[s >> 20 for s in sent]} MB"
    with chat_server.connect() as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert read_response(sock)[0] == 200


# --- connections that stop half-way --------------------------------------------------------------


def test_idle_and_half_sent_connections_are_closed(chat_server: Served) -> None:
    """Idle connections, ones stopping inside the request head, one trickling its head a byte at a time and
    ones stopping inside the body are all closed within about a second (the probe's 3,000 stayed open)."""
    idle = [chat_server.connect() for _ in range(20)]
    half_head = [chat_server.connect() for _ in range(20)]
    for sock in half_head:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # no blank line
    half_body = [chat_server.connect() for _ in range(20)]
    for sock in half_body:
        sock.sendall(post_head("/chat", length=100) + b'{"message":')
    trickler = chat_server.connect()
    started = time.monotonic()
    for byte in b"GET /healthz HTTP/1.1\r\n":  # a byte every 0.1 s: activity does not extend the deadline
        try:
            trickler.sendall(bytes([byte]))
        except OSError:
            break
        time.sleep(0.1)
    assert closed_within(trickler, 3)[0] and time.monotonic() - started < 2.5
    for sock in idle + half_head:
        assert closed_within(sock, 3) == (True, b"")
    for sock in half_body:
        closed, received = closed_within(sock, 3)
        assert closed and received.startswith(b"HTTP/1.1 408 "), received[:200]
        assert b"request body: 11 bytes arrived in 0.5 s" in received
    for sock in idle + half_head + half_body + [trickler]:
        sock.close()
    time.sleep(0.1)
    assert not chat_server.server.server_state.connections


def test_mcp_closes_idle_and_half_sent_connections(mcp_server: Served) -> None:
    idle = mcp_server.connect()
    half_body = mcp_server.connect()
    half_body.sendall(post_head("/mcp", length=100) + b'{"jsonrpc":')
    assert closed_within(idle, 3) == (True, b"")
    closed, received = closed_within(half_body, 3)
    assert closed and received.startswith(b"HTTP/1.1 408 ") and b'"code":-32600' in received
    idle.close()
    half_body.close()


# --- disconnects: one INFO line each -------------------------------------------------------------


def reset(sock: socket.socket) -> None:
    """Close with a TCP reset (SO_LINGER 0), as a client that crashes or loses its network does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def wait_for(predicate: Any, seconds: float = 5) -> None:
    deadline = time.monotonic() + seconds
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.02)


@pytest.mark.parametrize("path", ["/chat", "/mcp"])
def test_a_half_sent_body_then_a_disconnect_is_one_info_line(
    chat_server: Served, mcp_server: Served, path: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Three clients each send half a body and leave: three INFO lines, no traceback (a ``ClientDisconnect``
    traceback of 63 lines was logged for each)."""
    running = chat_server if path == "/chat" else mcp_server
    caplog.set_level(logging.INFO)
    for _ in range(3):
        sock = running.connect()
        sock.sendall(post_head(path, length=100) + b'{"message":')
        time.sleep(0.05)  # the app is reading the body when the client leaves
        reset(sock)

    def lines() -> list[logging.LogRecord]:
        return [r for r in caplog.records if r.name == DISCONNECT_LOGGER]

    wait_for(lambda: len(lines()) >= 3)
    wait_for(lambda: not running.server.server_state.tasks)  # every request's task has ended
    assert [(r.levelno, r.getMessage()) for r in lines()] == [
        (logging.INFO, f"client disconnected: POST {path} before its request body was complete (11 bytes received)")
    ] * 3
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text[:2000]


def test_a_disconnect_during_a_long_answer_is_one_info_line(
    chat_server: Served, caplog: pytest.LogCaptureFixture
) -> None:
    """A client leaves in the middle of a long streamed answer (the whole green pool of the Tarkir draft):
    one INFO line, none of asyncio's "socket.send() raised exception." (476 of them were logged)."""
    caplog.set_level(logging.INFO)
    body = json.dumps({"message": "What green cards were available in the Tarkir draft?"}).encode()
    sock = chat_server.connect()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.sendall(post_head("/chat", length=len(body)) + body)
    received = b""
    while b"event: content" not in received:
        data = sock.recv(1024)
        assert data, received
        received += data
    reset(sock)

    def lines() -> list[logging.LogRecord]:
        return [r for r in caplog.records if r.name == DISCONNECT_LOGGER]

    wait_for(lambda: bool(lines()))
    wait_for(lambda: not chat_server.server.server_state.tasks)  # the request's task, the turn's rest included, ends
    assert len(lines()) == 1 and lines()[0].levelno == logging.INFO
    assert re.fullmatch(r"client disconnected: POST /chat after \d+ bytes of the response", lines()[0].getMessage())
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text[:2000]
