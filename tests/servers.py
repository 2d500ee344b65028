"""Run an ASGI app under uvicorn on a loopback port in a background thread."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
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


def wait_until_answers(process: subprocess.Popen[bytes], url: str, log: Path, seconds: float = 300) -> None:
    """Wait until ``process`` answers ``url`` with 200, however long a loaded machine takes to start it (the
    ceiling only ends a hang); fail with its log if it exits first. One client for every try: a client made
    per try builds an SSL context each time (20-40 ms of CPU), taken from the server starting beside it."""
    deadline = time.time() + seconds
    with httpx.Client(timeout=1) as client:
        while True:
            assert process.poll() is None, log.read_text()
            assert time.time() < deadline, f"no answer from {url} in {seconds:.0f}s: {log.read_text()}"
            with contextlib.suppress(httpx.HTTPError):
                if client.get(url).status_code == 200:
                    return
            time.sleep(0.05)
