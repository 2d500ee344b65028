"""Run an ASGI app under uvicorn on a loopback port in a background thread."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running(app: Any, port: int, **options: Any) -> Iterator[uvicorn.Server]:
    """Run ``app`` under uvicorn (with ``options`` for ``uvicorn.Config``) on 127.0.0.1:``port`` in a background
    thread for the block, lifespan included; yield the server."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **options))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 120  # ready when started; the ceiling only ends a hang (a loaded machine is slow)
    while not server.started and thread.is_alive() and time.time() < deadline:
        time.sleep(0.02)
    assert server.started, "uvicorn did not start"
    try:
        yield server
    finally:
        server.should_exit = True
        thread.join(5)


@contextmanager
def serving(app: Any, port: int | None = None) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 for the block (lifespan included); yield its base URL."""
    port = port or free_port()
    with running(app, port):
        yield f"http://127.0.0.1:{port}"
