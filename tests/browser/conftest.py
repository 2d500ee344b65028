"""Headless Chromium (Debian's ``chromium``, driven by Playwright) and the app with its chat page."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, async_playwright

from meta_mage.api.factory import build_app
from tests.servers import serving

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SCREENSHOTS = Path(__file__).parents[2] / "build" / "screenshots"  # test artefacts (build/ is not tracked)


@pytest.fixture()
def server(modern_world: dict[str, Any]) -> Iterator[str]:
    with serving(build_app(modern_world["settings"], modern_world["db"], serve_page=True)) as url:
        yield url


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    """Debian's Chromium, headless, driven by Playwright (its own browser download cannot work offline): one
    browser for a module's tests (about 2 s to start), each test in its own context (``open_tab``)."""
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
        )
        yield chromium
        await chromium.close()
