"""Deck conversations over ``/chat`` across the bundled formats (issue 53): a confirmed deck keeps its deck when a
name from another format comes up, and questions about an answer are answered about that answer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from meta_mage.agent.tasks.decks import STRATEGY_RANKED
from meta_mage.api.factory import build_app
from tests.agent.test_journeys import Reply, Send, over_http
from tests.integration.test_guides_across_formats import demo_lists

STANDARD_DECK, PIONEER_DECK = "Dimir Kaito Midrange", "Mono Red Hero Aggro"


@pytest.fixture()
async def send(demo_world: dict[str, Any]) -> AsyncIterator[Send]:
    """A turn sent to ``/chat`` of the app over every bundled format, offline."""
    transport = httpx.ASGITransport(app=build_app(demo_world["settings"], demo_world["db"]))
    async with httpx.AsyncClient(transport=transport, base_url="http://test", timeout=120) as client:
        yield over_http(client)


async def confirmed(send: Send, fmt: str, archetype: str, words: str = "Here is my deck") -> Reply:
    """A real demo list of ``archetype`` pasted with ``words`` and its archetype confirmed."""
    pasted = await send(f"{words}\n{demo_lists()[fmt][archetype]}", None)
    assert f"**{archetype}** in {fmt}. Is that right?" in pasted.text, pasted.text[:300]
    reply = await send("yes", pasted.conversation_id)
    assert (reply.state["format"], reply.state["archetype"]) == (fmt, archetype)
    return reply


async def test_another_formats_deck_named_as_the_opponent_keeps_the_standard_deck(send: Send) -> None:
    # Given a confirmed Standard deck, its window given
    cid = (await confirmed(send, "Standard", STANDARD_DECK, "Here is my Standard deck, last 30 days")).conversation_id
    # When the player asks how to sideboard against a Modern deck
    turn = await send("How should I sideboard against Izzet Prowess?", cid)
    # Then the deck stays the Standard deck, the coach says where the name is played and asks which opponent
    assert turn.text.startswith(
        "Izzet Prowess is a Modern deck; your deck is Standard. Which archetype are you playing against? "
        "The most played in Standard: Izzet Vivi Cauldron, Mono Red Aggro,"
    ), turn.text[:300]
    assert (turn.state["format"], turn.state["archetype"], turn.state["opponent_archetype"]) == (
        "Standard",
        STANDARD_DECK,
        None,
    )
    assert turn.tools == []
    # and the answer is the guide against the opponent the player then names
    guide = await send("Mono Red Aggro", cid)
    assert guide.text.startswith(f"**{STANDARD_DECK} vs Mono Red Aggro** in Standard"), guide.text[:300]


async def test_a_modern_name_in_a_pioneer_conversation_never_relabels_the_deck(send: Send) -> None:
    cid = (await confirmed(send, "Pioneer", PIONEER_DECK, "Here is my Pioneer deck, last 30 days")).conversation_id
    turn = await send("How do I play against Jeskai Blink?", cid)
    assert turn.text.startswith("Jeskai Blink is a Modern deck; your deck is Pioneer. Which archetype"), turn.text
    assert (turn.state["format"], turn.state["archetype"]) == ("Pioneer", PIONEER_DECK)
    # When the player answers with their own deck and format, it is not taken as the opponent
    again = await send(f"no, it's {PIONEER_DECK}, and I play Pioneer", cid)
    assert again.text.startswith(f"{PIONEER_DECK} is your deck. Which archetype are you playing against?")
    assert (again.state["archetype"], again.state["opponent_archetype"]) == (PIONEER_DECK, None), again.state
    guide = await send("Greasefang", cid)
    assert guide.text.startswith(f"**{PIONEER_DECK} vs Greasefang** in Pioneer"), guide.text[:300]


async def test_an_opponent_read_with_a_second_name_never_relabels_the_confirmed_deck(send: Send) -> None:
    # Given a confirmed Modern deck
    cid = (await confirmed(send, "Modern", "Boros Energy", "Here is my Modern deck, last 30 days")).conversation_id
    # When the player names an opponent whose words hold two Modern names ("Aggro" among them)
    turn = await send("How do I play against Izzet Hero Aggro?", cid)
    # Then the answer is about the player's own deck, and the deck is still the one confirmed
    assert turn.text.startswith("**Boros Energy vs "), turn.text[:200]
    assert (turn.state["format"], turn.state["archetype"]) == ("Modern", "Boros Energy")
    # and a bare name after the guide is the next opponent, the deck still the one confirmed
    next_one = await send("Jeskai Blink", cid)
    assert next_one.text.startswith("**Boros Energy vs Jeskai Blink** in Modern"), next_one.text[:200]


async def test_why_after_a_guide_explains_the_guide_and_the_conversation_goes_on(send: Send) -> None:
    # Given a sideboard guide for a Modern deck
    pasted = await send(
        f"How should I sideboard against Boros Energy in Modern over the last 30 days?\n"
        f"{demo_lists()['Modern']['Jeskai Blink']}",
        None,
    )
    cid = pasted.conversation_id
    guide = await send("yes", cid)
    assert guide.text.startswith("**Jeskai Blink vs Boros Energy** in Modern"), guide.text[:300]
    # When the player asks "why?"
    why = await send("why?", cid)
    # Then the answer is how the guide is made, nothing is run and nothing about the request changes
    assert why.text.startswith(STRATEGY_RANKED) and why.tools == [] and why.state == guide.state, why.text[:300]
    # and "and Force of Vigor?" asks about that card against the guide's opponent
    card = await send("and Force of Vigor?", cid)
    assert card.text.startswith("**Force of Vigor against Boros Energy**, Modern"), card.text[:300]
    assert "**In your sideboard guide:** it is not in your list." in card.text


async def test_why_is_a_deck_ranked_first_is_answered_about_that_deck(send: Send) -> None:
    top = await send("What are the top decks in Modern over the last 30 days?", None)
    row = next(line for line in top.text.splitlines() if line.split("|")[2:3] == [" Affinity "])
    place = row.split("|")[1].strip()
    # written as players type, in lower case
    why = await send("why is affinity ranked first?", top.conversation_id)
    assert why.text.startswith("The top decks are ordered by meta share"), why.text[:300]
    assert f"**Affinity** is #{place} in the last answer." in why.text and row in why.text.splitlines()


async def test_how_should_i_sideboard_after_the_confirmation_asks_which_opponent(send: Send) -> None:
    cid = (await confirmed(send, "Pioneer", PIONEER_DECK, "Here is my Pioneer deck, last 30 days")).conversation_id
    asked = await send("How should I sideboard?", cid)
    assert asked.text.startswith(
        "Which archetype are you playing against? The most played in Pioneer: Greasefang, Izzet Phoenix,"
    ), asked.text[:300]
    assert "Got it" not in asked.text
    guide = await send("Izzet Phoenix", cid)
    assert guide.text.startswith(f"**{PIONEER_DECK} vs Izzet Phoenix** in Pioneer"), guide.text[:300]


@pytest.mark.parametrize("said", ["the most played deck", "the top deck", "the best deck"])
async def test_the_most_played_deck_is_the_formats_first(send: Send, said: str) -> None:
    cid = (await confirmed(send, "Pioneer", PIONEER_DECK, "Here is my Pioneer deck, last 30 days")).conversation_id
    guide = await send(f"how should I sideboard against {said}?", cid)
    assert guide.text.startswith(
        f"I read “{said}” as **Greasefang**, the most played Pioneer deck.\n\n**{PIONEER_DECK} vs Greasefang**"
    ), guide.text[:300]
