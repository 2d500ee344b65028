"""The chat page in headless Chromium (Debian's ``chromium``), driven by Playwright:
it starts a conversation, streams an answer with its tool call and state, and renders it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.parse
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page

from meta_mage.agent.checked_stream import marked
from tests.agent.conftest import modern_deck
from tests.browser.conftest import CHROMIUM, SCREENSHOTS
from tests.conftest import HOSTILE_DRAFTER_STORED, LISTENER, hostile_draft_tables

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package"),
    pytest.mark.asyncio(loop_scope="module"),  # the loop the module's browser runs in
]


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


# the state panel as "label\nvalue" lines (read from the DOM: on a phone the closed drawer has no innerText)
STATE_TEXT = (
    "[...document.querySelectorAll('#state dt')]"
    ".map(dt => dt.textContent + '\\n' + dt.nextElementSibling.textContent).join('\\n')"
)


class Tab:
    """One page in its own browser context (viewport, mobile emulation), with the waits the tests share."""

    def __init__(self, page: Page) -> None:
        self.page = page

    async def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        return await self.page.evaluate(expression)

    async def welcomed(self) -> None:
        """Wait for the welcome answer (the page's first request)."""
        await self.page.locator(".assistant").first.wait_for()

    async def turns_done(self, count: int) -> None:
        """Wait until the page has finished ``count`` turns (``body[data-turns]``)."""
        # polled from here: the page's Content-Security-Policy forbids the eval an in-page wait_for_function uses
        async with asyncio.timeout(60):
            while await self.page.evaluate("document.body.dataset.turns") != str(count):
                await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)  # the last animation frame renders the answer

    async def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / name
        await self.page.screenshot(path=path)
        print(f"\nscreenshot: {path}")
        return path


@contextlib.asynccontextmanager
async def open_tab(browser: Browser, url: str, width: int = 1280, height: int = 900) -> AsyncIterator[Tab]:
    context = await browser.new_context(
        viewport={"width": width, "height": height}, device_scale_factor=1, is_mobile=width < 700, has_touch=width < 700
    )
    refused: list[str] = []  # what the page's Content-Security-Policy blocked: the page itself must need nothing
    try:
        page = await context.new_page()
        page.on("console", lambda message: refused.append(message.text) if "Content Security" in message.text else None)
        await page.goto(url)
        yield Tab(page)
    finally:
        await context.close()
    assert refused == [], refused


async def test_chat_page_streams_an_answer(server: str, browser: Browser) -> None:
    question = urllib.parse.quote("What are the top decks in Modern over the last 30 days?")
    async with open_tab(browser, f"{server}/?q={question}") as tab:
        await tab.turns_done(1)
        log = await tab.evaluate("document.getElementById('log').innerText")
        state = await tab.evaluate(STATE_TEXT)
        tools = await tab.evaluate("[...document.querySelectorAll('.tool')].map(e => e.textContent)")
        assert "Welcome to MTG Meta Mage" in log
        assert "Top decks in Modern" in log and "Jeskai Blink" in log
        # each tool call a step in words, its name and arguments behind a disclosure; then its summary
        assert any(t.startswith("→ Format meta rankings") and "get_format_meta_rankings {" in t for t in tools)
        assert any(t.startswith("✓ ") for t in tools)
        assert "Format\nModern" in state and "Window\nLast 30 days" in state
        # the answer is rendered markdown: a real table, no pipes or asterisks left as text
        table = await tab.evaluate(
            "(() => { const t = document.querySelector('.assistant:last-of-type table');"
            " return t ? [t.rows.length, t.rows[0].cells[1].textContent] : null; })()"
        )
        assert table is not None and table[0] >= 11 and table[1] == "Archetype"
        assert "|---|" not in log and "**Top decks" not in log
        assert await tab.evaluate(SPLIT_STREAMS) == ["content:a|content:b"]
        assert await tab.evaluate("!document.getElementById('send').disabled")
        assert await tab.evaluate("document.getElementById('format').value") == "Modern"
        shot = await tab.screenshot("rankings-1280x900.png")
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


HOSTILE = '<img src=x onerror="window.pwned=1"> <script>window.pwned=2</script> **bold** [x](javascript:window.pwned=3)'


async def test_text_from_anywhere_cannot_inject_html(server: str, browser: Browser) -> None:
    async with open_tab(browser, f"{server}/") as tab:
        await tab.welcomed()
        # an answer whose markdown carries HTML: sanitised, the markdown itself rendered
        rendered = await tab.evaluate(
            f"(() => {{ const n = addAnswer({json.dumps(HOSTILE)}); return new Promise(r => requestAnimationFrame("
            "() => setTimeout(() => r(n.innerHTML), 50))); })()"
        )
        # the HTML is shown as text (escaped), the link as its text and address: nothing that runs
        assert "<strong>bold</strong>" in rendered and "<img" not in rendered and "<script" not in rendered
        assert "&lt;img src=x" in rendered and "href" not in rendered
        # a user's message with HTML in it is shown as text
        await tab.evaluate(f"send({json.dumps(HOSTILE)})")
        await tab.turns_done(1)
        user = await tab.evaluate("[...document.querySelectorAll('.user')].pop().textContent")
        assert user == HOSTILE
        injected = await tab.evaluate(
            "[String(window.pwned), [...document.querySelectorAll('#log img, #log script')].map(e => e.outerHTML)]"
        )
        assert injected == ["undefined", []], injected


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (375, 800)])
async def test_a_pasted_decklist_keeps_the_input_and_the_answer_in_view(
    server: str, browser: Browser, width: int, height: int
) -> None:
    deck, _ = modern_deck("Boros Energy")
    async with open_tab(browser, f"{server}/", width, height) as tab:
        await tab.welcomed()
        await tab.evaluate(f"send({json.dumps('My Modern deck:' + chr(10) + deck)})")
        await tab.turns_done(1)
        view = await tab.evaluate(
            "(() => { const box = document.getElementById('message').getBoundingClientRect();"
            " const last = [...document.querySelectorAll('.msg')].pop().getBoundingClientRect();"
            " return {box: [box.top, box.bottom, box.left, box.right], last: [last.top, last.bottom],"
            " width: innerWidth, height: innerHeight, scroll: document.documentElement.scrollHeight,"
            " summary: document.querySelector('details.deck summary').textContent,"
            " open: document.querySelector('details.deck').open}; })()"
        )
        top, bottom, left, right = view["box"]
        assert 0 <= top < bottom <= view["height"] and 0 <= left < right <= view["width"], view
        assert view["last"][0] < view["height"] and view["last"][1] > 0, view  # the newest answer is on screen
        assert view["scroll"] <= view["height"], view  # the page itself does not grow; the log scrolls
        assert view["summary"] == "Decklist: 60 + 15 cards" and not view["open"]
        await tab.screenshot(f"decklist-{width}x{height}.png")


async def test_pictures_of_the_meta(server: str, browser: Browser) -> None:
    questions = [
        "What are the top decks in Modern over the last 30 days?",
        "Show me the Modern matchups for the last 30 days",
        "What is the matchup spread of Boros Energy in Modern over the last 30 days?",
        "What green creatures were in the tarkir draft?",
    ]
    async with open_tab(browser, f"{server}/", 1280, 900) as tab:
        await tab.welcomed()
        for number, question in enumerate(questions, 1):
            await tab.evaluate(f"send({json.dumps(question)})")
            await tab.turns_done(number)
        charts = await tab.evaluate(
            "[...document.querySelectorAll('figure.chart')].map(f => ({label: f.querySelector('svg, table')"
            ".getAttribute('aria-label'), bars: [...f.querySelectorAll('rect.bar')].map(b => b.dataset.name || ''),"
            " cells: f.querySelectorAll('.cell').length, whiskers: f.querySelectorAll('line.whisker').length}))"
        )
        for index, name in enumerate(["meta-share", "matchup-grid", "spread", "pool"]):
            await tab.evaluate(f"document.querySelectorAll('figure.chart')[{index}]?.scrollIntoView()")
            await tab.screenshot(f"chart-{name}-1280x900.png")
    labels = [c["label"] for c in charts]
    assert labels == [
        "Meta share in Modern",
        "Matchup grid of Modern",
        "Matchup spread of Boros Energy",
        "Cards by colour in Tarkir",
    ], labels
    share, grid, spread, pool = charts
    assert share["bars"][:3] == ["Jeskai Blink", "Boros Energy", "Affinity"] and len(share["bars"]) == 12
    assert grid["cells"] == 64  # the top 8 against each other
    assert spread["whiskers"] == len(spread["bars"]) > 0
    assert len(pool["bars"]) >= 1


async def test_api_docs_work_offline(server: str, browser: Browser) -> None:
    # the browser has no internet: Swagger UI comes from the package, and lists the API's operations
    async with open_tab(browser, f"{server}/docs") as tab:
        await tab.page.locator(".opblock").first.wait_for()
        assert await tab.page.locator(".opblock").count() >= 5
        await tab.screenshot("docs-1280x900.png")


AXE = Path(__file__).parent / "vendor" / "axe-4.14.1.min.js"


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (375, 800)])
async def test_the_page_has_no_serious_accessibility_problems(
    server: str, browser: Browser, width: int, height: int
) -> None:
    question = urllib.parse.quote("What are the top decks in Modern over the last 30 days?")
    async with open_tab(browser, f"{server}/?q={question}", width, height) as tab:
        await tab.turns_done(1)
        await tab.page.evaluate(
            AXE.read_text(encoding="utf-8")
        )  # evaluated by the browser: no inline script tag the CSP refuses
        violations = await tab.evaluate(
            "axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => "
            "({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))})))"
        )
    serious = [v for v in violations if v["impact"] in ("serious", "critical")]
    print(f"\naxe at {width}x{height}: {len(violations)} violations, {len(serious)} serious or critical: {violations}")
    assert serious == [], serious


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (375, 800)])
async def test_a_question_with_a_pasted_deck_is_answered_after_the_coachs_questions(
    server: str, browser: Browser, width: int, height: int
) -> None:
    """The exchange of issue 22: a question and a list in a fresh conversation, then the answers to the
    coach's questions; the page's Days box starts at the one default window (30), so only the format and the
    archetype are asked."""
    deck, _ = modern_deck("Boros Energy")
    async with open_tab(browser, f"{server}/", width, height) as tab:
        await tab.welcomed()
        assert await tab.evaluate("document.getElementById('days').value") == "30"
        for turn, message in enumerate(
            [f"What are my worst matchups?\n{deck}", "Modern", "yes, that's my deck"], start=1
        ):
            await tab.evaluate(f"send({json.dumps(message)})")
            await tab.turns_done(turn)
        answer = await tab.evaluate("[...document.querySelectorAll('.assistant')].pop().innerText")
        assert "Boros Energy in Modern" in answer and "Worst matchups" in answer, answer
        state = await tab.evaluate(STATE_TEXT)
        assert "Window\nLast 30 days" in state
        await tab.screenshot(f"deck-first-{width}x{height}.png")


CHART_QUESTIONS = [
    "What are the top decks in Modern over the last 30 days?",
    "Show me the Modern matchups for the last 30 days",
    "What is the matchup spread of Boros Energy in Modern over the last 30 days?",
    "What cards were in the Tarkir draft?",
]
# each chart's smallest label as drawn (an SVG's font size times its scale), and where it is when its answer ends
CHART_VIEW = """(() => {
  const fig = [...document.querySelectorAll('figure.chart')].pop();
  const svg = fig.querySelector('svg');
  const scale = svg ? svg.getBoundingClientRect().width / svg.viewBox.baseVal.width : 1;
  const texts = [...fig.querySelectorAll('text, th, td, small, .legend')];
  const sizes = texts.map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
  const box = fig.getBoundingClientRect(), logBox = document.getElementById('log').getBoundingClientRect();
  const clipped = svg ? [...svg.querySelectorAll('text')].filter(t => { const b = t.getBBox();
    return b.x < 0 || b.x + b.width > svg.viewBox.baseVal.width; }).map(t => t.textContent) : [];
  const ticks = svg ? [...svg.querySelectorAll('text.tick')].map(t => t.getBBox()) : [];
  const even = svg ? svg.querySelector('line[stroke-dasharray]') : null, mid = even ? even.x1.baseVal.value : 0;
  const bars = ticks.length ? [...svg.querySelectorAll('rect.bar')].map(b => b.x.baseVal.value >= mid - 0.5
    ? b.x.baseVal.value + b.width.baseVal.value : b.x.baseVal.value) : [];
  return {smallest: Math.min(...sizes), clipped, top: box.top, logTop: logBox.top, logBottom: logBox.bottom,
          right: box.right, width: innerWidth, caption: fig.querySelector('figcaption').textContent,
          fits: svg ? svg.getBoundingClientRect().width <= fig.clientWidth + 1 : fig.scrollWidth <= fig.clientWidth + 1,
          plot: ticks.length ? (ticks[2].x + ticks[2].width - ticks[0].x) / svg.viewBox.baseVal.width : null,
          answerTop: [...document.querySelectorAll('.assistant')].pop().getBoundingClientRect().top, bars,
          logHeight: document.getElementById('log').clientHeight};
})()"""


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (375, 800)])
async def test_charts_read_at_the_width_they_get_and_arrive_in_view(
    server: str, browser: Browser, width: int, height: int
) -> None:
    async with open_tab(browser, f"{server}/", width, height) as tab:
        await tab.welcomed()
        for number, question in enumerate(CHART_QUESTIONS, 1):
            await tab.evaluate(f"send({json.dumps(question)})")
            await tab.turns_done(number)
            view = await tab.evaluate(CHART_VIEW)
            # labels are never scaled below 11 px; when its answer finishes the chart is in view, unless chart and
            # answer are taller than the screen: then the answer's first line is (the line asked for comes first)
            assert view["smallest"] >= 11 and view["clipped"] == [], (question, view)
            shown = view["top"] if view["answerTop"] - view["top"] < view["logHeight"] - 48 else view["answerTop"]
            assert view["logTop"] - 1 <= shown < view["logBottom"] - 100, (question, view)
            # it fits the answer's width, or says that it scrolls sideways; a spread's plot keeps most of the width
            assert view["fits"] or "scroll sideways" in view["caption"], (question, view)
            assert view["plot"] is None or view["plot"] >= 0.6, (question, view)
            # a spread's bars are its rows' estimates, so they read in the order the rows are sorted (best first)
            assert view["bars"] == sorted(view["bars"], reverse=True), (question, view["bars"])
            await tab.screenshot(f"chart-{number}-{width}x{height}.png")
        # the heatmap: coloured by the model's estimate and faded by its sample size, with a legend
        cells = await tab.evaluate(
            "[...document.querySelectorAll('table.heatmap td.cell')].filter(c => c.title.includes(' vs '))"
            ".map(c => [Number(c.title.match(/, (\\d+) matches/)[1]), getComputedStyle(c).backgroundColor])"
        )
        assert len(cells) == 56
        alpha = [
            (n, float(colour.split(",")[3].rstrip(")")) if colour.startswith("rgba") else 1.0) for n, colour in cells
        ]
        assert all((a < 1) == (n < 20) for n, a in alpha), alpha
        assert await tab.evaluate("document.querySelector('.legend').innerText.includes('model estimate')")
        # a 1-0 cell is pale next to a 30-10 one
        pale, solid = await tab.evaluate("[heat(54.5, 1), heat(70, 40)]")
        assert pale.startswith("rgba(") and float(pale.split(",")[3].rstrip(")")) < 0.4
        assert solid.endswith(",1.00)")


async def test_a_wide_table_scrolls_sideways_with_its_first_column_held(server: str, browser: Browser) -> None:
    question = urllib.parse.quote("Show me the Modern matchups for the last 30 days")
    async with open_tab(browser, f"{server}/?q={question}", 1280, 900) as tab:
        await tab.turns_done(1)
        await tab.evaluate("document.querySelector('main').style.width = '700px'")  # narrower than the table
        await tab.evaluate("markWideTables(document.querySelector('.assistant:last-of-type'))")
        scrolled = await tab.evaluate(
            "(() => { const t = [...document.querySelectorAll('.assistant table')].pop();"
            " const hint = t.previousElementSibling.textContent;"
            " const first = t.rows[1].cells[0], before = first.getBoundingClientRect().left;"
            " const wide = [t.scrollWidth, t.clientWidth]; t.scrollLeft = 200;"
            " return {hint, wide, before, after: first.getBoundingClientRect().left, left: t.scrollLeft}; })()"
        )
        assert "scroll the table sideways" in scrolled["hint"]
        assert scrolled["wide"][0] > scrolled["wide"][1] and scrolled["left"] > 0, scrolled
        assert abs(scrolled["after"] - scrolled["before"]) < 1, scrolled  # the first column stays


@pytest.mark.parametrize(
    "question",
    ["What are the top decks in Modern over the last 30 days?", "Show me the Modern matchups for the last 30 days"],
)
async def test_on_a_phone_a_wide_table_is_one_card_per_row(server: str, browser: Browser, question: str) -> None:
    async with open_tab(browser, f"{server}/?q={urllib.parse.quote(question)}", 375, 800) as tab:
        await tab.turns_done(1)
        laid_out = await tab.evaluate(
            "(() => { const t = [...document.querySelectorAll('.assistant table')].pop();"
            " const row = t.rows[1]; const cells = [...row.cells];"
            " return {stacked: t.classList.contains('stacked'), overflow: t.scrollWidth - t.clientWidth,"
            " right: Math.max(...cells.map(c => c.getBoundingClientRect().right)),"
            " labels: cells.map(c => getComputedStyle(c, '::before').content),"
            " header: getComputedStyle(t.rows[0]).display}; })()"
        )
        # every value of a row on the screen, under its column's name; no sideways scrolling
        assert laid_out["stacked"] and laid_out["overflow"] <= 1 and laid_out["right"] <= 375, laid_out
        assert laid_out["header"] == "none" and all(label.endswith(': "') for label in laid_out["labels"]), laid_out
        await tab.screenshot(f"phone-table-{len(question)}-375x800.png")


async def test_the_context_drawer_opens_and_closes_on_a_phone(server: str, browser: Browser) -> None:
    async with open_tab(browser, f"{server}/", 375, 800) as tab:
        await tab.welcomed()
        page = tab.page
        is_open = "document.body.classList.contains('drawer-open')"
        focused = "document.activeElement.id"
        shown = "document.getElementById('panel').getBoundingClientRect().left < innerWidth"
        for close in ("button", "escape", "backdrop", "context"):
            await page.get_by_role("button", name="Context").click()
            await page.wait_for_timeout(300)
            assert await tab.evaluate(is_open) and await tab.evaluate(shown)
            assert await tab.evaluate(focused) == "drawer-close"
            if close == "button":
                await tab.screenshot("drawer-open-375x800.png")
                await page.get_by_role("button", name="Close the context panel").click()
            elif close == "escape":
                await page.keyboard.press("Escape")
            elif close == "backdrop":
                await page.mouse.click(20, 400)  # outside the drawer
            else:
                await page.evaluate("document.getElementById('drawer').click()")
            await page.wait_for_timeout(300)
            assert not await tab.evaluate(is_open), close
            assert not await tab.evaluate(shown), close
            assert await tab.evaluate(focused) == "drawer", close


DECK_SAMPLES = json.loads((Path(__file__).parents[1] / "deck_samples.json").read_text())["samples"]


async def test_the_page_counts_a_pasted_list_as_the_server_does(server: str, browser: Browser) -> None:
    # the same table tests/unit/test_deck_samples.py runs through the server's rules
    async with open_tab(browser, f"{server}/", 375, 800) as tab:
        await tab.welcomed()
        counted = await tab.evaluate(
            f"{json.dumps(DECK_SAMPLES)}.map(s => {{ const d = deckCounts(s.text); return [s.name, d.main, d.side]; }})"
        )
    assert counted == [[s["name"], s["main"], s["side"]] for s in DECK_SAMPLES]


async def test_figures_the_data_does_not_hold_are_marked(server: str, browser: Browser) -> None:
    async with open_tab(browser, f"{server}/") as tab:
        await tab.welcomed()
        await tab.evaluate(
            "handle('grounding', {unmatched: [{kind: 'percentage', figure: '62.5%'}, {kind: 'record', "
            "figure: '14-3'}]}, {}); handle('grounding', {unmatched: []}, {})"
        )
        notes = await tab.evaluate("[...document.querySelectorAll('.grounding')].map(n => n.textContent)")
        # a figure the server marked in the answer (agent/checked_stream.py) is shown struck through
        answer = json.dumps("Boros Energy holds " + marked("62.5%") + " of the field.")
        await tab.evaluate(
            f"(() => {{ addAnswer({answer}); return new Promise(r => "
            "requestAnimationFrame(() => setTimeout(r, 50))); })()"
        )
        struck = await tab.evaluate("[...document.querySelectorAll('.assistant del')].map(n => n.textContent)")
        said = await tab.evaluate("[...document.querySelectorAll('.assistant')].pop().textContent")
    assert notes == [
        "⚠ Not found in this turn's data, so check before relying on them: 62.5% (percentage), 14-3 (record)."
    ]
    assert struck == ["62.5%"] and "62.5% ⚠ not in the data of the field." in said, said


HOSTILE_VECTORS = (  # markup a name from the data (a card's, an archetype's) could carry into an answer
    f"**<img src={LISTENER}/c>[Bolt](https://evil.example/c) in Modern** "
    f"<audio src={LISTENER}/a></audio> <svg><image href={LISTENER}/s></image></svg> "
    f"<picture><source srcset={LISTENER}/p></picture> <table background={LISTENER}/t><tr><td>x</td></tr></table> "
    f"[away](https://evil.example/l) ![pic]({LISTENER}/i.png) <a href=//evil.example/r>r</a> [own](/docs)"
)


@pytest.fixture()
def hostile_server(modern_world: dict[str, Any]) -> Any:
    """The app over tables holding one cube draft whose drafter and draft names are markup."""
    from meta_mage.api.factory import build_app
    from tests.servers import serving

    with hostile_draft_tables(modern_world) as (settings, db), serving(build_app(settings, db, serve_page=True)) as url:
        yield url


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (375, 800)])
async def test_hostile_names_from_the_data_stay_text_and_fetch_nothing(
    hostile_server: str, browser: Browser, width: int, height: int
) -> None:
    async with open_tab(browser, f"{hostile_server}/", width, height) as tab:
        requests: list[str] = []
        tab.page.on("request", lambda request: requests.append(request.url))
        await tab.welcomed()
        # When a player asks about the draft whose names are markup, and an answer carries every other vector
        await tab.evaluate("send('What cards were in the hostile draft, and who took them?')")
        await tab.turns_done(1)
        await tab.evaluate(
            f"(() => {{ const n = addAnswer({json.dumps(HOSTILE_VECTORS)}); return new Promise(r => "
            "requestAnimationFrame(() => setTimeout(r, 100))); })()"
        )
        await asyncio.sleep(0.5)
        answer = await tab.evaluate("[...document.querySelectorAll('.assistant')].map(n => n.textContent).join('\\n')")
        elements = await tab.evaluate(
            "[...document.querySelectorAll('#log video, #log audio, #log img, #log svg image, #log picture, "
            "#log source, #log [background], #log [poster], #log [srcset]')].map(e => e.outerHTML)"
        )
        links = await tab.evaluate("[...document.querySelectorAll('#log a')].map(a => a.getAttribute('href'))")
        await tab.screenshot(f"hostile-{width}x{height}.png")

    # Then the names are shown as the text they are, nothing left the page's origin, and no link goes elsewhere
    assert f"taken by {HOSTILE_DRAFTER_STORED} (pick 1)" in answer, answer[:900]  # its tags dropped at import
    assert "Lightning Bolt" in answer and "Bolt (https://evil.example/c)" in answer  # a link elsewhere: text
    assert elements == [], elements
    assert [url for url in requests if not url.startswith(hostile_server)] == []
    assert all(href is not None and href.startswith("/") and not href.startswith("//") for href in links), links
    assert "/docs" in links  # a link to the page's own paths stays a link


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (375, 800)])
async def test_the_page_a_player_keeps_open(server: str, browser: Browser, width: int, height: int) -> None:
    async with open_tab(browser, f"{server}/", width, height) as tab:
        await tab.welcomed()
        # the message box has the focus on load, and its hint fits it
        assert await tab.evaluate("document.activeElement.id") == "message"
        hint = await tab.evaluate(
            "(() => { const box = document.getElementById('message'), probe = document.createElement('span');"
            " probe.style.font = getComputedStyle(box).font; probe.textContent = box.placeholder;"
            " document.body.append(probe); const wide = probe.getBoundingClientRect().width; probe.remove();"
            " return [wide, box.clientWidth * 2]; })()"
        )
        assert hint[0] <= hint[1], hint  # at most two lines of the box

        # a matchup answer ends with its first line in view, the tool steps in words (details on request)
        await tab.evaluate("send('How does Boros Energy do against Jeskai Blink in Modern over the last 30 days?')")
        await tab.turns_done(1)
        view = await tab.evaluate(
            "(() => { const a = [...document.querySelectorAll('.assistant')].pop().getBoundingClientRect();"
            " const l = document.getElementById('log').getBoundingClientRect();"
            " return {top: a.top, logTop: l.top, logBottom: l.bottom}; })()"
        )
        assert view["logTop"] - 1 <= view["top"] < view["logBottom"] - 40, view
        steps = await tab.evaluate(
            "[...document.querySelectorAll('details.tool')].map(d => [d.querySelector('summary').textContent,"
            " d.querySelector('code').textContent])"
        )
        assert steps and all("{" not in summary and summary.startswith("→ ") for summary, _ in steps), steps
        assert any(code.startswith("get_deck_matchup_stats {") for _, code in steps), steps

        # Days is checked where it is typed: a wrong value is said beside the box and nothing is sent
        if width < 700:
            await tab.page.click("#drawer")
        await tab.page.fill("#days", "999")
        shown = "[getComputedStyle(document.getElementById('days-error')).display !== 'none', days.ariaInvalid]"
        assert await tab.evaluate(shown) == [True, "true"]
        if width < 700:
            await tab.page.keyboard.press("Escape")
        await tab.page.fill("#message", "What are the top decks?")
        await tab.page.keyboard.press("Enter")
        await asyncio.sleep(0.3)
        assert await tab.evaluate("document.querySelectorAll('.user').length") == 1
        assert await tab.evaluate("document.getElementById('message').value") == "What are the top decks?"
        await tab.page.fill("#days", "30")
        assert await tab.evaluate(shown) == [False, "false"]

        # a message the server refuses stays in the log marked as not sent, its text back in the box
        await tab.page.fill("#message", "")
        await tab.evaluate("send('x'.repeat(20000))")
        await tab.turns_done(2)
        refused = await tab.evaluate("[...document.querySelectorAll('.user')].pop()")
        marked = await tab.evaluate(
            "(() => { const u = [...document.querySelectorAll('.user')].pop();"
            " return [u.classList.contains('not-sent'), u.querySelector('.not-sent-mark').textContent]; })()"
        )
        assert refused is not None and marked == [True, "Not sent"]
        await tab.screenshot(f"kept-open-{width}x{height}.png")


async def test_the_open_drawer_holds_the_focus(server: str, browser: Browser) -> None:
    async with open_tab(browser, f"{server}/", 375, 800) as tab:
        await tab.welcomed()
        await tab.page.click("#drawer")
        held = []
        for _ in range(12):
            await tab.page.keyboard.press("Tab")
            held.append(await tab.evaluate("document.getElementById('panel').contains(document.activeElement)"))
        await tab.page.keyboard.press("Shift+Tab")
        held.append(await tab.evaluate("document.getElementById('panel').contains(document.activeElement)"))
        assert all(held), held
        await tab.page.keyboard.press("Escape")
        assert await tab.evaluate("document.activeElement.id") == "drawer"


async def test_mana_costs_read_as_players_write_them(server: str, browser: Browser) -> None:
    async with open_tab(browser, f"{server}/", 1280, 900) as tab:
        await tab.welcomed()
        await tab.evaluate("send('What red instants were in the Tarkir draft, and who took them?')")
        await tab.turns_done(1)
        answer = await tab.evaluate("[...document.querySelectorAll('.assistant')].pop().textContent")
        assert "Lightning Bolt (R)" in answer or "(R)" in answer, answer[:400]
        assert "{R}" not in answer
