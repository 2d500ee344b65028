"""A card off the deck's colours: which colours it needs, how many of its symbols, and which of the deck's
lands make them today (what a splash would cost)."""

from __future__ import annotations

from dataclasses import dataclass

from meta_mage.card_rules.facts import COLOUR_NAMES, CardFacts
from meta_mage.decks.mana_rules import land_colours

COLOUR_WORDS = {letter: name for name, letter in COLOUR_NAMES.items()}


@dataclass(frozen=True)
class Splash:
    card: str
    missing: tuple[str, ...]  # colour letters the card needs that the deck does not spend
    symbols: int  # its mana symbols that only those colours pay
    sources: int  # copies of the deck's lands that make one of them today
    lands: int  # copies of lands in the deck

    def words(self) -> str:
        colours = " and ".join(COLOUR_WORDS[c] for c in self.missing)
        cost = f"{self.symbols} {colours} symbol{'s' * (self.symbols != 1)} in its cost"
        if self.sources:
            base = f"{self.sources} of your {self.lands} lands make {colours} today"
        else:
            base = f"none of your {self.lands} lands makes {colours}: every {colours} source would replace one"
        return f"{self.card} is off your deck's colours: playing it means splashing {colours} ({cost}); {base}"


def splash_for(card: CardFacts, colours: set[str], lands: list[tuple[CardFacts, int]]) -> Splash | None:
    """What playing ``card`` would ask of a deck that spends ``colours`` with ``lands`` (facts, copies);
    None when the deck can cast it already."""
    if card.is_land or card.castable_with(colours):
        return None
    unpaid = card.unpaid_symbols(colours)
    missing, symbols = set().union(*unpaid), len(unpaid)
    sources = sum(n for land, n in lands if land_colours(land) & missing)
    return Splash(card.name, tuple(c for c in "WUBRG" if c in missing), symbols, sources, sum(n for _, n in lands))
