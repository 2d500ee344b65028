"""Names resolve inside the conversation's format (issue 36): a name that exists only in another format is never
swapped for this format's look-alike without saying so, and a word read as a deck says which."""

from __future__ import annotations

from typing import Any

import pytest

from meta_mage.agent.tools import in_process_executor
from meta_mage.agent.words import find_archetypes
from meta_mage.wiring import coach_from_settings
from tests.agent.conftest import run_turn
from tests.integration.test_guides_across_formats import demo_lists


@pytest.fixture(scope="module")
def coach(demo_world: dict[str, Any]) -> Any:
    settings, db = demo_world["settings"], demo_world["db"]
    return coach_from_settings(
        settings, dynamodb=db, executor=in_process_executor(demo_world["registry"], demo_world["context"])
    )


async def test_a_deck_of_another_format_is_not_swapped_for_a_look_alike(coach: Any) -> None:
    # Given a conversation about Pauper, where "Boros" would match Boros Glint Hawk
    first = await run_turn(coach, "What are the top decks in Pauper over the last 30 days?")
    # When the player asks about two Modern decks by their full names
    turn = await run_turn(coach, "How does Boros Energy do against Jeskai Blink?", first.conversation_id)
    # Then the answer says where they are played and is about them, not about Pauper's look-alikes
    lines = turn.text.splitlines()
    assert lines[0] == (
        "Boros Energy and Jeskai Blink are not played in Pauper; they are Modern decks, so this answer is about Modern."
    )
    assert "**Boros Energy in Modern**" in turn.text and "Against **Jeskai Blink**" in turn.text
    assert "Glint Hawk" not in turn.text and "Flicker" not in turn.text


async def test_a_word_read_as_this_formats_deck_says_so(coach: Any) -> None:
    first = await run_turn(coach, "What are the top decks in Pauper over the last 30 days?")
    turn = await run_turn(coach, "How does Boros do?", first.conversation_id)
    assert turn.text.startswith("I read “Boros” as **Boros Glint Hawk**, the most played Pauper deck with that name")


async def test_an_opponent_named_in_answer_to_the_coachs_question_never_relabels_the_deck(coach: Any) -> None:
    # Given a Pauper list pasted with a sideboarding question, confirmed, and the window answered
    deck = demo_lists()["Pauper"]["Boros Glint Hawk"]
    turn = await run_turn(coach, f"How should I sideboard my Pauper deck against the top decks?\n{deck}")
    assert "**Boros Glint Hawk** in Pauper. Is that right?" in turn.text
    await run_turn(coach, "yes", turn.conversation_id)
    asked = await run_turn(coach, "30", turn.conversation_id)
    assert asked.text.startswith("Which archetype are you playing against?")

    # When the player answers with the opponent
    guide = await run_turn(coach, "Mono Blue Terror", turn.conversation_id)

    # Then it is the opponent, and the deck is still the player's
    assert guide.text.startswith("**Boros Glint Hawk vs Mono Blue Terror** in Pauper")
    assert (guide.state["archetype"], guide.state["opponent_archetype"]) == ("Boros Glint Hawk", "Mono Blue Terror")
    # and a follow-up re-runs the guide over another window, the deck and the opponent kept
    again = await run_turn(coach, "and the last 7 days?", turn.conversation_id)
    assert again.text.startswith("**Boros Glint Hawk vs Mono Blue Terror** in Pauper, 2025-11-10 to 2025-11-16")


def _named_in(line: str, names: list[str]) -> set[str]:
    """The archetypes ``line`` names in full (a longer name is one name, not also the shorter one inside it)."""
    return {name for _, name in find_archetypes(line, [], names)}


async def test_every_answers_first_line_names_only_what_the_player_named_or_says_why(coach: Any) -> None:
    # Given every format's archetypes (a name from any format counts: a swap across formats is caught too)
    formats = await coach.deps.lookups.formats()
    everywhere = sorted({n for fmt in formats for n in await coach.deps.lookups.archetypes(fmt, 365)})
    checked = 0
    for fmt in formats:
        top = (await coach.deps.lookups.archetypes(fmt, 30))[:3]
        if len(top) < 3:
            continue
        first, second, third = top
        said: set[str] = set()  # the names the player wrote
        cid = None
        for message, names in (
            (f"What are the top decks in {fmt} over the last 30 days?", set()),
            (f"How does {first} do against {second}?", {first, second}),
            (f"and against {third}?", {third}),
            ("and the last 14 days?", set()),
            (f"what should I play in {fmt}?", set()),
        ):
            said |= names
            turn = await run_turn(coach, message, cid)
            cid = turn.conversation_id
            headline = turn.text.split("\n", 1)[0]
            # Then its first line says what it is about: the format, and no archetype the player did not name
            assert fmt in headline, (message, headline)
            unasked = _named_in(headline, everywhere) - said
            assert not unasked or "I read" in headline or "not played in" in headline, (fmt, message, headline)
            checked += 1
    assert checked >= 20
