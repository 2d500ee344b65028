"""Nothing from data leaves the page, in headless Chromium: a link stays a link only when the address the browser
resolves it to is on the page's own origin, and a name from data (here a card's, stored by the normal card and
draft ingest) renders as the plain text it is, with no bidi control to reverse a line, at a phone's and a
desktop's width."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.async_api import Browser

from meta_mage.api.factory import build_app
from meta_mage.ingest.card_ingest import ingest_card_sources
from meta_mage.ingest.drafts import ingest_draft
from meta_mage.ingest.files import SourceFile
from meta_mage.models.drafts import DraftImport
from meta_mage.storage.cards import CardsRepository
from meta_mage.storage.drafts import DraftsRepository
from meta_mage.storage.dynamo import dynamodb_resource
from meta_mage.storage.tables import create_tables
from tests.browser.conftest import CHROMIUM
from tests.browser.test_chat_page import Tab, open_tab
from tests.conftest import prefixed_settings
from tests.servers import serving

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package"),
    pytest.mark.asyncio(loop_scope="module"),
]

WIDTHS = [(1280, 900), (375, 800)]

# Links an answer's markdown could carry (from a name, or a model that repeats one): the slash and backslash
# tricks, protocol-relative, encoded, entity, script and data forms, mixed case, whitespace and control characters
# in the scheme. Each is the destination of ``[label](...)`` unless it is a whole line of its own.
LINK_CASES = {
    "slash-backslash": "/\\evil.example/a",
    "two-backslashes": "\\\\\\\\evil.example/b",
    "slash-backslash-slash": "/\\/evil.example/c",
    "backslash-slash": "\\\\/evil.example/d",
    "protocol-relative": "//evil.example/e",
    "encoded-slashes": "%2F%2Fevil.example/f",
    "encoded-backslash": "/%5Cevil.example/g",
    "entity-slashes": "&#47;&#47;evil.example/h",
    "named-entity-slashes": "&sol;&sol;evil.example/i",
    "javascript": "javascript:window.pwned=1",
    "javascript-mixed-case": "JaVaScRiPt:window.pwned=2",
    "javascript-tab": "<java\tscript:window.pwned=3>",
    "javascript-newline-entity": "java&#10;script:window.pwned=4",
    "javascript-leading-control": "<\x01javascript:window.pwned=5>",
    "data": "data:text/html,<b>x</b>",
    "data-mixed-case": "DaTa:text/html;base64,PGI+eDwvYj4=",
    "other-host": "https://evil.example/j",
    "other-host-upper": "HTTPS://EVIL.EXAMPLE/k",
    "backslashes-after-scheme": "http:\\\\\\\\evil.example\\\\l",
    "own-path": "/docs",
}
EXTRA_LINES = (
    "Autolink: <https://evil.example/m>, <//evil.example/n>.",
    "Reference: [ref-relative][r1], [ref-backslash][r2].",
    "",
    "[r1]: //evil.example/o",
    "[r2]: /\\evil.example/p",
)
LINKS_MARKDOWN = "\n".join([f"- [{label}]({url})" for label, url in LINK_CASES.items()] + ["", *EXTRA_LINES])

# Every anchor of the log: its href as written, where the browser resolves it, and whether that is this origin.
ANCHORS = (
    "[...document.querySelectorAll('#log a')].map(a => ({text: a.textContent, href: a.getAttribute('href'), "
    "resolved: a.href, own: a.href === '' || new URL(a.href).origin === location.origin}))"
)


async def rendered(tab: Tab, markdown: str) -> None:
    """``markdown`` shown as an answer, once its animation frame has drawn it."""
    await tab.evaluate(
        f"(() => {{ addAnswer({json.dumps(markdown)}); return new Promise(r => "
        "requestAnimationFrame(() => setTimeout(r, 50))); })()"
    )


@pytest.mark.parametrize(("width", "height"), WIDTHS)
async def test_only_links_the_browser_resolves_to_the_page_own_origin_stay_links(
    server: str, browser: Browser, width: int, height: int
) -> None:
    async with open_tab(browser, f"{server}/", width, height) as tab:
        await tab.welcomed()
        # When an answer carries every link trick
        await rendered(tab, LINKS_MARKDOWN)
        anchors = await tab.evaluate(ANCHORS)
        text = await tab.evaluate("[...document.querySelectorAll('.assistant')].pop().textContent")
        pwned = await tab.evaluate("String(window.pwned)")
        await tab.screenshot(f"links-{width}x{height}.png")

    # Then no anchor leads off the page's origin, each label is still shown, and the own path stays a link
    assert [a for a in anchors if not a["own"]] == [], anchors
    assert all(a["href"].startswith("/") and not a["href"].startswith("//") for a in anchors), anchors
    assert all(label in text for label in LINK_CASES), text
    assert any(a["text"] == "own-path" and a["href"] == "/docs" for a in anchors), anchors
    assert not any(a["text"] in ("slash-backslash", "protocol-relative", "javascript") for a in anchors), anchors
    assert pwned == "undefined"


HOSTILE_CARD = "**Bold** [Claim prize](/\\evil.example/prize) \u202eReversed"
HOSTILE_CARD_SHOWN = "**Bold** [Claim prize](/\\evil.example/prize) Reversed"  # the bidi override removed


def _scryfall_entry(card: Any) -> dict[str, Any]:
    """A stored card as the Scryfall oracle entry the card ingest reads."""
    return {
        "object": "card",
        "name": card.name,
        "mana_cost": card.mana_cost or "",
        "cmc": card.cmc,
        "type_line": card.type_line,
        "colors": card.colors,
        "color_identity": card.color_identity,
        "oracle_text": card.oracle_text or "",
    }


@pytest.fixture()
def hostile_card_server(modern_world: dict[str, Any]) -> Iterator[str]:
    """The app over tables of its own: a card corpus holding a real card and one whose name is markdown with a
    link and a bidi override (ingested as any corpus is), and a cube draft of both, its hostile card drafted."""
    settings = prefixed_settings("hostilecard")
    db = dynamodb_resource(settings)
    create_tables(db, settings)
    world_cards = CardsRepository(modern_world["db"].Table(modern_world["settings"].cards_table))
    bolt = world_cards.get_many(["lightning bolt"])["lightning bolt"]
    corpus = [_scryfall_entry(bolt), {**_scryfall_entry(bolt), "name": HOSTILE_CARD}]
    cards = CardsRepository(db.Table(settings.cards_table))
    assert ingest_card_sources([SourceFile("hostile-cards.json", json.dumps(corpus).encode())], cards).ok
    draft = DraftImport.model_validate(
        {
            "draft_id": "hostile",
            "draft_name": "Hostile cards",
            "draft_date": "2025-11-01",
            "cube": [{"name": "Lightning Bolt"}, {"name": HOSTILE_CARD}],
            "drafters": ["Ann", "Bo"],
            "picks": [{"pick_n": 1, "drafter": "Ann", "card": HOSTILE_CARD}],
        }
    )
    assert ingest_draft(draft, "hostile.json", DraftsRepository(db.Table(settings.drafts_table)), cards).ok
    try:
        with serving(build_app(settings, db, serve_page=True)) as url:
            yield url
    finally:
        for name in (settings.meta_table, settings.cards_table, settings.drafts_table, settings.checkpoint_table):
            db.Table(name).delete()
        db.Table(settings.locks_table).delete()


# Where the first and the last letter of the word "Reversed" are drawn: reversed by a bidi override, "R" is
# drawn right of "d".
LETTERS = """(() => {
  const walker = document.createTreeWalker(document.getElementById('log'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.data.indexOf('Reversed');
    if (at < 0) continue;
    const box = (i) => { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1);
                         return r.getBoundingClientRect().left; };
    return [box(at), box(at + 7)];
  }
  return null;
})()"""


@pytest.mark.parametrize(("width", "height"), WIDTHS)
async def test_a_hostile_card_name_in_a_draft_answer_is_plain_text(
    hostile_card_server: str, browser: Browser, width: int, height: int
) -> None:
    async with open_tab(browser, f"{hostile_card_server}/", width, height) as tab:
        requests: list[str] = []
        tab.page.on("request", lambda request: requests.append(request.url))
        await tab.welcomed()
        # When a player asks about the draft whose card's name is markdown with a link and a bidi override
        await tab.evaluate("send('What cards were in the hostile draft, and who took them?')")
        await tab.turns_done(1)
        answer = await tab.evaluate("[...document.querySelectorAll('.assistant')].pop().textContent")
        markup = await tab.evaluate(
            "[...document.querySelectorAll('.assistant strong, .assistant em')].map(e => e.textContent)"
        )
        anchors = await tab.evaluate(ANCHORS)
        letters = await tab.evaluate(LETTERS)
        await tab.screenshot(f"hostile-card-{width}x{height}.png")

    # Then the name reads as written, nothing of it is bold or a link, and the line reads left to right
    assert f"{HOSTILE_CARD_SHOWN} (R): taken by Ann (pick 1)" in answer, answer[:600]  # with its mana cost
    assert "\u202e" not in answer
    assert "Bold" not in markup, markup
    assert anchors == [], anchors
    assert letters is not None and letters[0] < letters[1], letters
    assert [url for url in requests if not url.startswith(hostile_card_server)] == []
