"""Main-deck swaps that keep the mana working, on real cards."""

from __future__ import annotations

import pytest

from meta_mage.decks.mana_rules import land_colours, swap_breaks_mana
from tests.unit.test_card_answers_table import card


@pytest.mark.parametrize(
    ("name", "colours"),
    [
        ("Sacred Foundry", {"R", "W"}),
        ("Mountain", {"R"}),
        ("Snow-Covered Mountain", {"R"}),
        ("Arid Mesa", {"R", "W"}),
        ("Scalding Tarn", {"U", "R"}),
        ("Prismatic Vista", {"W", "U", "B", "R", "G"}),
        ("Urza's Saga", set()),
        ("Arena of Glory", {"R"}),
        ("Spirebluff Canal", {"U", "R"}),
    ],
)
def test_land_colours(name: str, colours: set[str]) -> None:
    assert land_colours(card(name)) == colours


def test_a_basic_for_a_basic_of_another_snow_ness_or_colour_is_refused() -> None:
    deck = [card("Lightning Bolt"), card("Snow-Covered Mountain")]
    assert "snow-ness" in swap_breaks_mana(card("Snow-Covered Mountain"), card("Mountain"), deck, {"R"})
    # Given a red deck, Plains for a Snow-Covered Mountain drops red (the example)
    why = swap_breaks_mana(card("Snow-Covered Mountain"), card("Plains"), deck, {"R"})
    assert why
    assert "does not make the R" in swap_breaks_mana(card("Mountain"), card("Plains"), deck, {"R", "W"})


def test_a_dual_for_a_basic_of_its_colour_keeps_the_mana() -> None:
    deck = [card("Lightning Bolt"), card("Lightning Helix")]
    assert swap_breaks_mana(card("Mountain"), card("Sacred Foundry"), deck, {"R", "W"}) == ""


def test_the_decks_own_blood_moon_punishes_a_nonbasic_of_another_colour() -> None:
    # Given a deck with two main-deck Blood Moons (the example)
    deck = [card("Blood Moon"), card("Lightning Helix"), card("Mountain")]
    why = swap_breaks_mana(card("Mountain"), card("Sacred Foundry"), deck, {"R", "W"})
    assert "own Moon" in why
    # a red-only nonbasic is fine under its own Moon
    assert swap_breaks_mana(card("Mountain"), card("Arena of Glory"), deck, {"R"}) == ""


def test_spells_are_not_judged_here() -> None:
    assert swap_breaks_mana(card("Lightning Bolt"), card("Chain Lightning"), [], {"R"}) == ""
