"""The chat page in headless Chromium (Debian's ``chromium``), driven over the DevTools protocol:
it starts a conversation, streams an answer with its tool call and state, and renders it."""

from __future__ import annotations

import asyncio
import base64
import json
import shutil
import socket
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
import websockets

from meta_mage.api.factory import build_app

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture()
def server(modern_world: dict[str, Any]) -> Iterator[str]:
    port = free_port()
    app = build_app(modern_world["settings"], modern_world["db"], serve_page=True)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.time() + 10
    while not uv.started and time.time() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    uv.should_exit = True
    thread.join(5)


@pytest.fixture()
def browser(tmp_path: Path) -> Iterator[int]:
    port = free_port()
    process = subprocess.Popen(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--remote-debugging-port={port}",
            "--window-size=1200,900",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=1)
            break
        except OSError:
            time.sleep(0.1)
    yield port
    process.terminate()
    process.wait(10)


# The page's own event reader fed one SSE stream (CRLF line ends, as sse-starlette sends) cut into chunks
# of every size from 1 byte up: each cut must give the same events.
SPLIT_STREAMS = """(() => {
  const seen = [], saved = handle, results = new Set();
  handle = (event, data) => seen.push(event + ":" + data.text);
  const one = (text) => `event: content\\r\\ndata: {"text": "${text}"}\\r\\n\\r\\n`;
  const stream = one("a") + one("b");
  for (let size = 1; size <= stream.length; size++) {
    seen.length = 0;
    let buffer = "";
    for (let i = 0; i < stream.length; i += size) buffer = takeEvents(buffer + stream.slice(i, i + size), {});
    results.add(seen.join("|"));
  }
  handle = saved;
  return [...results];
})()"""


async def drive(debug_port: int, url: str, shot: Path) -> dict[str, Any]:
    request = urllib.request.Request(f"http://127.0.0.1:{debug_port}/json/new?{urllib.parse.quote(url)}", method="PUT")
    target = json.loads(urllib.request.urlopen(request, timeout=5).read())
    async with websockets.connect(target["webSocketDebuggerUrl"], max_size=2**25) as ws:
        counter = 0

        async def send(method: str, **params: Any) -> Any:
            nonlocal counter
            counter += 1
            await ws.send(json.dumps({"id": counter, "method": method, "params": params}))
            while True:
                reply = json.loads(await ws.recv())
                if reply.get("id") == counter:
                    return reply.get("result")

        async def evaluate(expression: str) -> Any:
            result = await send("Runtime.evaluate", expression=expression, returnByValue=True)
            return result["result"].get("value")

        for _ in range(300):
            if await evaluate("document.body.dataset.turns") == "1":
                break
            await asyncio.sleep(0.1)
        page = {
            "log": await evaluate("document.getElementById('log').innerText"),
            "state": await evaluate("document.getElementById('state').innerText"),
            "tools": await evaluate("[...document.querySelectorAll('.tool')].map(e => e.textContent)"),
            "split_streams": await evaluate(SPLIT_STREAMS),
            "send_enabled": await evaluate("!document.getElementById('send').disabled"),
        }
        png = await send("Page.captureScreenshot", format="png")
        shot.write_bytes(base64.b64decode(png["data"]))
        return page


async def test_chat_page_streams_an_answer(server: str, browser: int, tmp_path: Path) -> None:
    question = urllib.parse.quote("What are the top decks in Modern over the last 30 days?")
    shot = tmp_path / "chat.png"
    page = await drive(browser, f"{server}/?q={question}", shot)
    assert "Welcome to MTG Meta Mage" in page["log"]
    assert "Top decks in Modern" in page["log"] and "Jeskai Blink" in page["log"]
    assert any(t.startswith("→ get_format_meta_rankings") for t in page["tools"])
    assert any(t.startswith("✓ get_format_meta_rankings") for t in page["tools"])
    assert "format\nModern" in page["state"] and "days\n30" in page["state"]
    assert page["split_streams"] == ["content:a|content:b"] and page["send_enabled"]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
