"""Answers as a player reads them at 375 and 1280 px (issue 53): the rankings table without a sideways scroll on a
desktop, the matchup grid legible on a phone, and mana symbols drawn as symbols rather than braces."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.async_api import Browser

from tests.browser.conftest import CHROMIUM
from tests.browser.test_chat_page import AXE, Tab, open_tab

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package"),
    pytest.mark.asyncio(loop_scope="module"),
]

SIZES = [(1280, 900), (375, 800)]


async def ask(tab: Tab, question: str) -> None:
    await tab.welcomed()
    await tab.evaluate(f"send({json.dumps(question)})")
    await tab.turns_done(1)


# An answer's table: its overflow, whether it is laid out as cards, whether a scroll hint precedes it, and per
# column the most lines one of its cells takes (a number or a name broken over two lines reads badly).
RANKINGS = """(() => {
  const t = [...document.querySelectorAll('.assistant table')].pop();
  const lines = (cell) => { const r = document.createRange(); r.selectNodeContents(cell);
    return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size; };
  const columns = [...t.rows[0].cells].map((h, i) => [h.textContent,
    Math.max(...[...t.rows].slice(1).map((row) => lines(row.cells[i])))]);
  const answer = t.closest('.assistant').getBoundingClientRect();
  return {overflow: t.scrollWidth - t.clientWidth, stacked: t.classList.contains('stacked'),
          hinted: !!(t.previousElementSibling && t.previousElementSibling.classList.contains('scroll-hint')),
          right: Math.max(...[...t.rows[1].cells].map((c) => c.getBoundingClientRect().right)),
          answerRight: answer.right, columns: Object.fromEntries(columns)};
})()"""


TABLES = [  # a question, and the columns of its answer's table whose every cell keeps one line on a desktop
    ("what are the top decks in Modern?", ("#", "Archetype", "Meta share", "Trend")),
    ("Show me the Modern matchups for the last 30 days", ("vs", "Jeskai Blink", "Goryo's Reanimator")),
]


@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize(("question", "one_line"), TABLES, ids=["rankings", "matchups"])
async def test_answer_tables_fit_without_a_sideways_scroll(
    server: str, browser: Browser, width: int, height: int, question: str, one_line: tuple[str, ...]
) -> None:
    async with open_tab(browser, f"{server}/", width, height) as tab:
        # Given the answer to one of the most common questions
        await ask(tab, question)
        table: dict[str, Any] = await tab.evaluate(RANKINGS)
        await tab.evaluate("[...document.querySelectorAll('.assistant table')].pop().scrollIntoView()")
        await tab.screenshot(f"table-fit-{len(question)}-{width}x{height}.png")
    # Then every column is on the screen: nothing to scroll sideways, no hint saying so
    assert table["overflow"] <= 1 and not table["hinted"], table
    assert table["right"] <= table["answerRight"] + 1, table
    if width >= 700:
        # on a desktop it stays a table, long cells wrapped in two lines at most, names and figures in one
        assert not table["stacked"], table
        assert max(table["columns"].values()) <= 2, table
        for column in one_line:
            assert table["columns"][column] == 1, (column, table)
    else:
        assert table["stacked"], table  # a phone: one card per row


# Each cell of the grid brought into view as a keyboard or a finger would (right to the last column, then back to
# the first): what is on the screen at its centre, at its row name's and at its column name's, and in the corner.
GRID_WALK = """(async () => {
  const t = document.querySelector('table.heatmap'), frame = () => new Promise((r) => requestAnimationFrame(r));
  const at = (el) => { const b = el.getBoundingClientRect();
    const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
    return !!hit && (hit === el || el.contains(hit)); };
  const heads = [...t.tHead.rows[0].cells], row = t.tBodies[0].rows[1], seen = [];
  const order = [...row.cells].map((_, i) => i).slice(1);
  for (const i of [...order, ...order.slice().reverse()]) {
    row.cells[i].scrollIntoView({block: 'nearest', inline: 'nearest'});
    await frame();
    seen.push({column: heads[i].textContent, cell: at(row.cells[i]), rowName: at(row.cells[0]),
               columnName: at(heads[i]), corner: at(heads[0])});
  }
  const view = t.getBoundingClientRect();
  const sizes = [...t.querySelectorAll('th, td, small')].map((e) => parseFloat(getComputedStyle(e).fontSize));
  return {seen, smallest: Math.min(...sizes), nameShare: row.cells[0].getBoundingClientRect().width / view.width,
          overflow: t.scrollWidth - t.clientWidth, right: view.right, width: innerWidth};
})()"""


@pytest.mark.parametrize(("width", "height"), SIZES)
async def test_the_matchup_grid_reads_on_a_phone(server: str, browser: Browser, width: int, height: int) -> None:
    async with open_tab(browser, f"{server}/", width, height) as tab:
        # Given the matchup grid of a format
        await ask(tab, "Show me the Modern matchups for the last 30 days")
        await tab.evaluate("document.querySelector('table.heatmap').scrollIntoView()")
        await tab.screenshot(f"grid-{width}x{height}.png")
        # When each cell of a row is brought into view in turn
        walk: dict[str, Any] = await tab.evaluate(GRID_WALK)
        await tab.evaluate("document.querySelector('table.heatmap').scrollLeft = 120")
        await tab.screenshot(f"grid-scrolled-{width}x{height}.png")
    # Then each is readable with both its names on the screen, none hidden under another, text never below 11 px
    assert walk["smallest"] >= 11, walk
    parts = ("cell", "rowName", "columnName", "corner")
    hidden = [(step["column"], [part for part in parts if not step[part]]) for step in walk["seen"]]
    assert [(column, covered) for column, covered in hidden if covered] == [], walk["seen"]
    # and the row names leave most of the width to the matchups (a phone shows four columns at once)
    assert walk["nameShare"] <= 0.32, walk
    assert walk["right"] <= walk["width"], walk
    if width >= 700:
        assert walk["overflow"] <= 1, walk  # a desktop shows the whole grid


# Mana symbols in an answer: the visible text, and each symbol drawn ([its text, its accessible name, its colours]).
MANA = """(() => {
  const answer = [...document.querySelectorAll('.assistant')].pop();
  const line = [...answer.querySelectorAll('li')].find((li) => li.textContent.startsWith('Ashiok'));
  return {text: answer.innerText, line: line ? line.innerText : null,
          symbols: [...(line ? line.querySelectorAll('.mana') : [])].map((s) => [s.textContent,
            s.getAttribute('aria-label'), getComputedStyle(s).backgroundImage])};
})()"""


@pytest.mark.parametrize(("width", "height"), SIZES)
async def test_hybrid_mana_reads_as_a_symbol(server: str, browser: Browser, width: int, height: int) -> None:
    async with open_tab(browser, f"{server}/", width, height) as tab:
        # Given a cube answer listing Ashiok, Dream Render ({1}{U/B}{U/B}: the server keeps a hybrid symbol whole)
        await ask(tab, "What cards were in the Tarkir draft?")
        drawn: dict[str, Any] = await tab.evaluate(MANA)
        named = await tab.evaluate("['B/G', 'G/P', 'W/U/P', '2/W', '10'].map(manaName)")
        # and an answer a model wrote, with a symbol in its text and one quoted as code
        written = await tab.evaluate(
            "(() => { const n = addAnswer('Deathrite Shaman ({B/G}) or `{B/G}`'); return new Promise(r => "
            "requestAnimationFrame(() => setTimeout(() => r([n.innerText, n.querySelectorAll('.mana').length]), 50)));"
            " })()"
        )
        await tab.evaluate(
            "[...document.querySelectorAll('.assistant li')].find((li) => li.textContent.startsWith('Ashiok'))"
            ".scrollIntoView()"
        )
        await tab.screenshot(f"hybrid-mana-{width}x{height}.png")
    # Then no brace is shown: each hybrid symbol is one pip, half one colour and half the other, named in words
    assert drawn["line"] is not None and "{" not in drawn["text"] and "}" not in drawn["text"], drawn["line"]
    assert [s[:2] for s in drawn["symbols"]] == [["U/B", "blue or black mana"]] * 2, drawn
    assert all(s[2].startswith("linear-gradient") for s in drawn["symbols"]), drawn
    assert "Abrupt Decay (BG)" in drawn["text"]  # the costs written in letters stay letters
    assert written == ["Deathrite Shaman (B/G) or {B/G}", 1], written  # code is shown as written
    assert named == [
        "black or green mana",
        "Phyrexian green mana",
        "Phyrexian white or blue mana",
        "2 or white mana",
        "10 mana",
    ]


@pytest.mark.parametrize(("width", "height"), SIZES)
async def test_what_scrolls_sideways_is_reached_by_the_keyboard(
    server: str, browser: Browser, width: int, height: int
) -> None:
    async with open_tab(browser, f"{server}/", width, height) as tab:
        # Given the pool of a cube draft, a chart of more colour identities than a phone's width
        await ask(tab, "What cards were in the Tarkir draft?")
        await tab.page.evaluate(AXE.read_text(encoding="utf-8"))
        violations = await tab.evaluate(
            "axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.filter(v => "
            "['serious', 'critical'].includes(v.impact)).map(v => [v.id, v.nodes.map(n => n.target.join(' '))]))"
        )
        scrolling = await tab.evaluate(
            "[...document.querySelectorAll('figure.chart')].filter(f => f.scrollWidth > f.clientWidth + 1)"
            ".map(f => [f.tabIndex, f.getAttribute('aria-label')])"
        )
    # Then whatever scrolls sideways takes the focus (arrow keys scroll it), named by its caption, and the answer
    # with its mana pips has no serious accessibility problem
    assert violations == [], (violations, scrolling)
    assert all(index == 0 and label for index, label in scrolling), scrolling
