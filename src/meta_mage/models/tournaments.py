"""Parsed tournament data (the ingest boundary's output)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

FORMATS = ("Modern", "Pioneer", "Legacy", "Pauper", "Standard", "Vintage")
# The first day each format existed (as sanctioned, or as "Type 1" / "Type 2" before its name); an event
# dated earlier is refused.
FORMAT_STARTS = {
    "Modern": dt.date(2011, 8, 12),
    "Pioneer": dt.date(2019, 10, 21),
    "Legacy": dt.date(2004, 9, 1),
    "Pauper": dt.date(2008, 12, 1),
    "Standard": dt.date(1994, 1, 1),
    "Vintage": dt.date(1994, 1, 1),
}


@dataclass
class ParsedDeck:
    """One player's list; card names are front faces, counts summed per name."""

    player: str
    placing: str
    mainboard: dict[str, int]
    sideboard: dict[str, int]
    archetype: str | None = None  # None: empty mainboard, not classifiable
    colors: str = ""
    strategy: str = "unknown"
    classification: str = "unknown"  # archetype | fallback | unknown


@dataclass
class ParsedMatch:
    """One match, however many times its round lists it (melee.gg lists a drawn match once for each player).
    ``outcome`` is result, draw, bye, assigned_loss or unreported."""

    round_name: str
    round_number: int  # the round's position in the file, from 1: rounds are told apart by it (names may repeat)
    player1: str
    player2: str
    p1_games: int
    p2_games: int
    drawn_games: int
    outcome: str

    @property
    def winner(self) -> str | None:
        if self.outcome != "result":
            return None
        return self.player1 if self.p1_games > self.p2_games else self.player2


@dataclass
class ParsedTournament:
    """A fully parsed and classified tournament file."""

    event_key: str
    name: str
    date: str
    format: str
    source: str  # the kind of its source (models.sources): MTGO, melee... or other
    uri: str
    source_file: str
    decks: list[ParsedDeck] = field(default_factory=list)
    matches: list[ParsedMatch] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # reported, not refused: a list left out, a repeated player
