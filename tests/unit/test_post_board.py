"""The post-board 75: what the guide moves, as text a client imports."""

from __future__ import annotations

import pytest

from meta_mage.decks.parse import parse_deck_text
from meta_mage.decks.post_board import deck_text, post_board
from meta_mage.models.decks import CardDetail, GuideCard


def _deck(text: str) -> list[CardDetail]:
    parsed = parse_deck_text(text)
    return [
        CardDetail(name=name, quantity=n, section=section)
        for section, cards in (("mainboard", parsed.mainboard), ("sideboard", parsed.sideboard))
        for name, n in cards.items()
    ]


DECK = """4 Ragavan, Nimble Pilferer
4 Lightning Bolt
4 Manamorphose
48 Mountain

Sideboard
3 Blood Moon
2 Pyroclasm
10 Mountain
"""


def test_the_guide_moves_cards_and_the_75_stays_75() -> None:
    # Given a 60 + 15 deck and a guide bringing in 2 Pyroclasm for 2 Lightning Bolt
    deck = _deck(DECK)
    # When the guide is applied
    main, side = post_board(
        deck, [GuideCard(name="Pyroclasm", quantity=2, why="")], [GuideCard(name="Lightning Bolt", quantity=2, why="")]
    )
    # Then the sections keep their sizes and the text parses back to the same cards
    assert sum(main.values()) == 60 and sum(side.values()) == 15
    assert main["Pyroclasm"] == 2 and main["Lightning Bolt"] == 2 and "Pyroclasm" not in side
    text = deck_text(main, side)
    assert text.splitlines()[:2] == ["4 Ragavan, Nimble Pilferer", "2 Lightning Bolt"]
    again = parse_deck_text(text)
    assert (again.mainboard, again.sideboard) == (dict(main), dict(side))


def test_a_guide_moving_more_than_the_deck_holds_is_refused() -> None:
    with pytest.raises(ValueError, match="moves 3 Pyroclasm but the deck holds 2"):
        post_board(_deck(DECK), [GuideCard(name="Pyroclasm", quantity=3, why="")], [])
