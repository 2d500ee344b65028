"""Another site against the local server, in headless Chromium: a page on evil.example (Chromium resolves it to
127.0.0.1, as a rebinding DNS server would) auto-submits a text/plain form to /chat, posts to it with fetch, and
reads a conversation through its own name. Each is refused by the server, and no turn is stored."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import pytest_asyncio
from playwright.async_api import Browser, async_playwright
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

from meta_mage.api.factory import build_app
from meta_mage.local.chat_client import sse_events
from tests.browser.conftest import CHROMIUM
from tests.servers import free_port, serving

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package"),
    pytest.mark.asyncio(loop_scope="module"),
]

EVIL = "evil.example"
# a text/plain form whose one field, name + "=" + value, is the JSON of a turn (the "=" inside the message)
FORM = """<!doctype html><title>Win a prize</title>
<form id="f" method="POST" action="{target}/chat" enctype="text/plain">
<input type="hidden" name='{{"message":"What are the top decks? ' value='"}}'>
</form>
<script>document.getElementById("f").submit()</script>"""
# the same turn posted by script: no-cors, so text/plain and no preflight; the title says when it has been sent
FETCH = """<!doctype html><title>loading</title>
<script>fetch("{target}/chat", {{method: "POST", mode: "no-cors", body: '{{"message": "What are the top decks?"}}'}})
  .finally(() => {{ document.title = "sent"; }})</script>"""


@pytest.fixture(scope="module")
def coach(modern_world: dict[str, Any]) -> Iterator[str]:
    with serving(build_app(modern_world["settings"], modern_world["db"], serve_page=True)) as url:
        yield url


@pytest.fixture(scope="module")
def attacker(coach: str) -> Iterator[str]:
    """Another site: a page that submits a form to the coach as soon as it loads, served at evil.example."""
    form, script = FORM.format(target=coach), FETCH.format(target=coach)
    app = Starlette(
        routes=[Route("/", lambda request: HTMLResponse(form)), Route("/fetch", lambda request: HTMLResponse(script))]
    )
    port = free_port()
    with serving(app, port):
        yield f"http://{EVIL}:{port}"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def rebinding_browser() -> AsyncIterator[Browser]:
    """Chromium that resolves evil.example to 127.0.0.1 (what DNS rebinding makes a victim's browser do)."""
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", f"--host-resolver-rules=MAP {EVIL} 127.0.0.1"],
        )
        yield chromium
        await chromium.close()


def stored(world: dict[str, Any]) -> tuple[int, int]:
    """Checkpoint items (stored turns) and lock items."""
    db, settings = world["db"], world["settings"]
    return db.Table(settings.checkpoint_table).scan(Select="COUNT")["Count"], db.Table(settings.locks_table).scan(
        Select="COUNT"
    )["Count"]


async def test_another_sites_auto_submitted_form_stores_no_turn(
    coach: str, attacker: str, rebinding_browser: Browser, modern_world: dict[str, Any]
) -> None:
    before = stored(modern_world)
    context = await rebinding_browser.new_context()
    page = await context.new_page()
    answers: list[tuple[str, int]] = []  # what reached the coach, and its status
    page.on("response", lambda response: answers.append((response.url, response.status)))
    # When the victim opens the other site's page, which submits its form to the coach
    async with page.expect_navigation(url=f"{coach}/chat"):
        await page.goto(f"{attacker}/")
    answer = json.loads(await page.locator("body").inner_text())
    # and another of its pages posts the turn with fetch (no-cors: text/plain, its Origin)
    await page.goto(f"{attacker}/fetch")
    await page.wait_for_function("document.title === 'sent'")
    await context.close()
    # Then the coach refused it, naming the origin, and stored nothing
    assert answer["error"] == "forbidden_origin" and attacker in answer["message"], answer
    assert [a for a in answers if a[0].startswith(coach)] == [(f"{coach}/chat", 403)] * 2, answers
    assert stored(modern_world) == before


async def test_a_rebound_name_cannot_read_a_conversation(
    coach: str, rebinding_browser: Browser, modern_world: dict[str, Any]
) -> None:
    # Given a conversation the user had
    first = httpx.post(
        f"{coach}/chat", json={"message": "What are the top decks in Modern?"}, timeout=60
    )  # no Origin: as the terminal client sends it
    conversation = sse_events(first.text)[0][1]["conversation_id"]
    # When a page served as evil.example:PORT (rebound to 127.0.0.1, the coach's port) reads it same-origin
    rebound = coach.replace("127.0.0.1", EVIL)
    context = await rebinding_browser.new_context()
    page = await context.new_page()
    response = await page.goto(f"{rebound}/conversations/{conversation}")
    assert response is not None
    body = await page.locator("body").inner_text()
    await context.close()
    # Then the coach refuses the name, and the conversation is not in the answer
    assert response.status == 421 and json.loads(body)["error"] == "misdirected_request", body
    assert "What are the top decks" not in body
