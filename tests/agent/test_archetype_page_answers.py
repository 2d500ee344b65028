"""The offline coach answers "tell me about Boros Energy", "what does the stock Boros Energy list look like?" and
"show me the Affinity decklist" with the archetype's page: the stock list's tables, the best finish, the playbook
line, the record and matchups in the spread's words, and the 75 as import text that reads back as the page's."""

from __future__ import annotations

import re
from typing import Any

import pytest

from meta_mage.agent.conversation import Conversations
from meta_mage.decks.parse import parse_deck_text
from tests.agent.conftest import run_turn
from tests.conftest import call

MODERN_30 = {"format": "Modern", "days": 30}
PHRASINGS = [
    ("tell me about Boros Energy", "Boros Energy"),
    ("what does the stock Boros Energy list look like?", "Boros Energy"),
    ("show me the Affinity decklist", "Affinity"),
]


@pytest.mark.parametrize(("question", "archetype"), PHRASINGS)
async def test_each_phrasing_gets_the_archetypes_page(
    offline: Conversations, modern_world: dict[str, Any], question: str, archetype: str
) -> None:
    turn = await run_turn(offline, question, context=MODERN_30)
    assert turn.tools() == ["get_archetype_page"]
    assert turn.arguments("get_archetype_page")["archetype"] == archetype
    page = call(modern_world, "get_archetype_page", format="Modern", archetype=archetype, days=30)
    text = turn.text
    assert text.startswith(f"**{archetype} in Modern**")
    assert f"{page['aggregate']['lists']} lists" in text
    # the stock list: a row per card with its copies, inclusion and average copies
    for card in page["aggregate"]["mainboard"] + page["aggregate"]["sideboard"]:
        assert (
            f"| {card['copies']} | {card['name']} | {card['inclusion']:.0f}% | {card['average_copies']:.2f} |" in text
        )
    # the best finish, said with its rule, and the playbook
    best = page["best_finish"]
    assert f"{best['player']}, {best['placing']} at {best['event']} ({best['date']}" in text
    assert "not its match record" in text
    book = page["playbook"]
    assert f"**Playbook** ({book['role']}):" in text and f"- Plan: {book['plan']}" in text
    assert f"- Fears: {', '.join(book['fears'])}: {book['fears_why']}" in text
    # the record as the matchup spread writes it, and the best and worst matchups with the model's verdict words
    overall = page["spread"]["overall"]
    assert f"{overall['wins']}-{overall['losses']}-{overall['draws']}" in text
    assert "**Best matchups**" in text and "**Worst matchups**" in text
    if not page["favoured"]:  # the demo window calls none: the answer says so rather than call the best ones good
        assert "**Best matchups**: none is called favoured yet; the highest estimates:" in text
    # the stock 75 as import text that reads back as the page's
    fenced = re.findall(r"```\n(.*?)\n```", text, re.S)
    assert fenced[0] == page["aggregate"]["text"]
    stock = parse_deck_text(fenced[0])
    assert sum(stock.mainboard.values()) == 60 and sum(stock.sideboard.values()) == 15


async def test_a_flex_copy_is_marked_with_its_share(offline: Conversations, modern_world: dict[str, Any]) -> None:
    turn = await run_turn(offline, "show me the Affinity decklist", context=MODERN_30)
    page = call(modern_world, "get_archetype_page", format="Modern", archetype="Affinity", days=30)
    flex = [c for c in page["aggregate"]["mainboard"] if c["flex_copies"]]
    assert flex  # Affinity's 4th Engineered Explosives: 40% of the lists
    for card in flex:
        first_flex = card["copies"] - card["flex_copies"] + 1
        share = card["copy_shares"][first_flex - 1]
        assert f"{card['flex_copies']} of {card['copies']}: the {first_flex}" in turn.text
        assert f"copy is in {share:.0f}%" in turn.text


async def test_the_page_follows_another_window(offline: Conversations) -> None:
    first = await run_turn(offline, "tell me about Boros Energy", context=MODERN_30)
    again = await run_turn(offline, "and the last 14 days?", first.conversation_id)
    assert again.tools() == ["get_archetype_page"] and again.arguments("get_archetype_page")["archetype"] == (
        "Boros Energy"
    )
    assert again.state["days"] == 14


async def test_an_archetype_without_a_playbook_is_said_to_have_none(offline: Conversations) -> None:
    turn = await run_turn(offline, "tell me about Living End", context=MODERN_30)
    assert turn.tools() == ["get_archetype_page"]
    assert "**Playbook**: none is written for Living End yet." in turn.text


async def test_a_word_read_as_a_deck_is_said_first(offline: Conversations) -> None:
    turn = await run_turn(offline, "tell me about Boros", context=MODERN_30)
    assert turn.arguments("get_archetype_page")["archetype"] == "Boros Energy"
    assert turn.text.startswith("I read “Boros” as **Boros Energy**, the most played Modern deck with that name")
