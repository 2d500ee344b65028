"""Whether a main-deck swap keeps the mana working: a declared table of the ways a land swap breaks it.

A swap the archetype's other lists favour can still be wrong for this list: a basic of another colour where
the deck spends the cut land's colour, a basic of another snow-ness, or a nonbasic land in a deck that turns
its own nonbasics into basics (Blood Moon, Magus of the Moon). Each row is a test and the reason it gives.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from meta_mage.card_rules.facts import CardFacts

BASIC_TYPES = {"plains": "W", "island": "U", "swamp": "B", "mountain": "R", "forest": "G"}
_MOON = re.compile(r"nonbasic lands are (mountain|island|plains|swamp|forest)s?\b", re.I)
_ADDS = re.compile(r"\badd ([^.]*)", re.I)
_SYMBOL = re.compile(r"\{([WUBRG])\}")
_ANY_COLOUR = re.compile(r"mana of any (?:one )?colou?r|mana of any type", re.I)
_FETCHES = re.compile(r"search your library for an? ([^.]*?) card", re.I)


def land_colours(land: CardFacts) -> set[str]:
    """The colours a land makes or fetches: its basic land types, the symbols after "Add", any colour, or the
    basic types a fetchland finds."""
    colours = {letter for word, letter in BASIC_TYPES.items() if word in land.subtypes}
    for added in _ADDS.findall(land.text):
        colours |= set(_SYMBOL.findall(added))
        if _ANY_COLOUR.search(f"add {added}"):
            colours |= set(BASIC_TYPES.values())
    if land.fetchland:
        for found in _FETCHES.findall(land.text):
            named = {letter for word, letter in BASIC_TYPES.items() if word in found.lower()}
            colours |= named or (set(BASIC_TYPES.values()) if "basic land" in found.lower() else set())
    return colours


def moon_colour(deck: list[CardFacts]) -> str | None:
    """The colour a deck's own Blood Moon (or Magus of the Moon) leaves its nonbasic lands, if it plays one."""
    for card in deck:
        found = _MOON.search(card.text)
        if found and not card.is_land:
            return BASIC_TYPES[found.group(1).lower()]
    return None


@dataclass(frozen=True)
class LandSwap:
    """A cut land, the land added for it, and what the deck around them spends."""

    cut: CardFacts
    add: CardFacts
    spends: frozenset[str]  # colours the deck's spells need
    moon: str | None  # the deck's own Moon colour

    @property
    def basics(self) -> bool:
        return "basic" in self.cut.types and "basic" in self.add.types


@dataclass(frozen=True)
class ManaRule:
    """One way a swap breaks the mana: ``breaks`` tests it, ``reason`` says why it is not suggested."""

    name: str
    breaks: Callable[[LandSwap], bool]
    reason: Callable[[LandSwap], str]


def _lost_colours(swap: LandSwap) -> set[str]:
    return (land_colours(swap.cut) & swap.spends) - land_colours(swap.add)


MANA_RULES: tuple[ManaRule, ...] = (
    ManaRule(
        "snow",
        lambda s: s.basics and ("snow" in s.cut.types) != ("snow" in s.add.types),
        lambda s: f"{s.add.name} for {s.cut.name} changes a basic's snow-ness, which the list chose",
    ),
    ManaRule(
        "colour lost",
        lambda s: bool(_lost_colours(s)),
        lambda s: (
            f"{s.add.name} does not make the {'/'.join(sorted(_lost_colours(s)))} the deck's spells "
            f"spend from {s.cut.name}"
        ),
    ),
    ManaRule(
        "own moon",
        lambda s: s.moon is not None and "basic" not in s.add.types and land_colours(s.add) - {s.moon} != set(),
        lambda s: f"the deck's own Moon makes {s.add.name} a basic that taps for {s.moon} only",
    ),
)


def swap_breaks_mana(cut: CardFacts, add: CardFacts, deck: list[CardFacts], spends: set[str]) -> str:
    """Why swapping ``cut`` for ``add`` breaks the deck's mana ("" when it does not, or when neither is a land)."""
    if not (cut.is_land or add.is_land):
        return ""
    swap = LandSwap(cut, add, frozenset(spends), moon_colour(deck))
    return next((rule.reason(swap) for rule in MANA_RULES if rule.breaks(swap)), "")
