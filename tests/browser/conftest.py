"""Headless Chromium (Debian's ``chromium``, driven by Playwright) and the app with its chat page."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from playwright.async_api import Browser, async_playwright

from meta_mage.api.factory import build_app

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SCREENSHOTS = Path(__file__).parents[2] / "build" / "screenshots"  # test artefacts (build/ is not tracked)


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
async def browser() -> AsyncIterator[Browser]:
    """Debian's Chromium, headless, driven by Playwright (its own browser download cannot work offline)."""
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
        )
        yield chromium
        await chromium.close()
