"""The request-head cap of the local servers (``META_MAGE_MAX_HEADER_BYTES``, 16 KB) holds however the head's
bytes arrive: in one write (h11 alone parsed a 70 KB head that arrived whole, and the app answered 200), in
pieces, or pipelined behind another request. Real uvicorn with ``server_options``, raw sockets."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from meta_mage.api.factory import build_app
from meta_mage.config import Settings
from meta_mage.local.http_server import server_options
from tests.servers import free_port, running

LIMIT = 16 * 1024


@pytest.fixture(scope="module")
def port(modern_world: dict[str, Any]) -> Iterator[int]:
    settings: Settings = modern_world["settings"]
    assert settings.max_header_bytes == LIMIT  # the default cap
    chosen = free_port()
    with running(build_app(settings, modern_world["db"], serve_page=True), chosen, **server_options(settings)):
        yield chosen


def head(padding: int, port: int) -> bytes:
    """A GET /healthz head to the server at ``port`` with one ``X-Padding`` header of ``padding`` bytes."""
    return f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Padding: {'a' * padding}\r\n\r\n".encode()


def answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection or goes quiet for a second."""
    sock.settimeout(1)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except TimeoutError:
        pass
    except ConnectionResetError:
        pass
    return received


def status_of(response: bytes) -> int:
    return int(response.split(b" ", 2)[1])


def body_of(response: bytes) -> Any:
    return json.loads(response.partition(b"\r\n\r\n")[2])


def test_a_70_kb_head_in_one_write_is_refused(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(head(70 * 1024, port))  # one write: arrives in one read
        response = answer(sock)
    assert status_of(response) == 431, response[:300]
    body = body_of(response)
    assert body["error"] == "request_header_fields_too_large"
    assert body["message"] == f"request line and headers: {len(head(70 * 1024, port))} bytes; the limit is {LIMIT}"


def test_a_70_kb_head_in_pieces_is_refused(port: int) -> None:
    data = head(70 * 1024, port)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        try:
            for start in range(0, len(data), 4096):
                sock.sendall(data[start : start + 4096])
                time.sleep(0.005)
        except OSError:  # the server refused and closed before the rest
            pass
        response = answer(sock)
    assert status_of(response) == 431, response[:300]
    assert body_of(response)["message"] == f"request line and headers: more than {LIMIT} bytes; the limit is {LIMIT}"


def test_a_head_over_the_cap_behind_a_good_request_is_refused(port: int) -> None:
    """Pipelined: the first request is answered, the second (17 KB, buffered while the first ran) refused."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(head(10, port) + head(17 * 1024, port))
        response = answer(sock)
    assert response.startswith(b"HTTP/1.1 200 "), response[:300]
    assert b"HTTP/1.1 431 " in response and b"the limit is 16384" in response


@pytest.mark.parametrize("padding", [10, LIMIT - 100])
def test_a_head_within_the_cap_is_answered(port: int, padding: int) -> None:
    data = head(padding, port)
    assert len(data) <= LIMIT
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(data)
        response = answer(sock)
    assert status_of(response) == 200, response[:300]
    assert body_of(response)["status"] == "ok"
