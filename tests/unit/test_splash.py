"""A card question for a card off the deck's colours says so and what a splash costs."""

from __future__ import annotations

from typing import Any

from meta_mage.decks.splash import splash_for
from tests.unit.test_card_answers_table import card

JESKAI = {
    "Sacred Foundry": 1,
    "Steam Vents": 1,
    "Flooded Strand": 4,
    "Plains": 3,
    "Island": 2,
    "Mountain": 1,
    "Arid Mesa": 4,
}


def jeskai_lands() -> list[tuple[Any, int]]:
    """The lands of a Jeskai deck (read when a test runs: the card corpus takes seconds to load)."""
    return [(card(name), count) for name, count in JESKAI.items()]


def test_fatal_push_in_a_jeskai_deck_is_a_black_splash() -> None:
    # Given a Jeskai deck (the example)
    splash = splash_for(card("Fatal Push"), {"W", "U", "R"}, jeskai_lands())
    # Then the card is off its colours: one black symbol, no black source
    assert splash is not None
    assert (splash.missing, splash.symbols, splash.sources, splash.lands) == (("B",), 1, 0, 16)
    assert "off your deck's colours" in splash.words() and "none of your 16 lands makes black" in splash.words()


def test_a_card_in_the_decks_colours_or_with_phyrexian_mana_is_no_splash() -> None:
    assert splash_for(card("Lightning Bolt"), {"R", "W"}, jeskai_lands()) is None
    assert splash_for(card("Dismember"), {"R", "W"}, jeskai_lands()) is None  # {1}{B/P}{B/P}: life pays


def test_fetchlands_that_find_the_colour_count_as_sources() -> None:
    splash = splash_for(card("Thoughtseize"), {"W", "U", "R"}, [*jeskai_lands(), (card("Marsh Flats"), 2)])
    assert splash is not None and splash.sources == 2
