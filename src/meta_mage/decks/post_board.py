"""The 75 after a sideboard guide, as text MTGO and Arena both import (main deck, a blank line, sideboard)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from meta_mage.models.decks import CardDetail, GuideCard


def _counts(cards: Iterable[CardDetail], section: str) -> Counter[str]:
    counts: Counter[str] = Counter()
    for card in cards:
        if card.section == section:
            counts[card.name] += card.quantity
    return counts


def post_board(
    deck: list[CardDetail], bring_in: list[GuideCard], take_out: list[GuideCard]
) -> tuple[Counter[str], Counter[str]]:
    """The main deck and sideboard after the guide: each card brought in moves from side to main, each taken
    out from main to side. A guide naming more copies than a section holds is a bug, refused loudly."""
    main, side = _counts(deck, "mainboard"), _counts(deck, "sideboard")
    for moves, source, target in ((bring_in, side, main), (take_out, main, side)):
        for card in moves:
            if source[card.name] < card.quantity:
                raise ValueError(f"the guide moves {card.quantity} {card.name} but the deck holds {source[card.name]}")
            source[card.name] -= card.quantity
            target[card.name] += card.quantity
    return +main, +side


def deck_text(main: Counter[str], side: Counter[str]) -> str:
    """'4 Lightning Bolt' lines, main deck then a blank line then sideboard, as the clients' import boxes read
    them; cards keep the pasted order, those moved in follow."""

    def lines(counts: Counter[str]) -> list[str]:
        return [f"{n} {name}" for name, n in counts.items()]

    return "\n".join([*lines(main), "", *lines(side)]).strip("\n")
