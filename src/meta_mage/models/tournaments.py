"""Parsed tournament data (the ingest boundary's output)."""

from __future__ import annotations

from dataclasses import dataclass, field

FORMATS = ("Modern", "Pioneer", "Legacy", "Pauper", "Standard", "Vintage")


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
    """One pairing. ``outcome`` is result, draw, bye, assigned_loss or unreported."""

    round_name: str
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
    source: str  # MTGO | melee | other
    uri: str
    source_file: str
    decks: list[ParsedDeck] = field(default_factory=list)
    matches: list[ParsedMatch] = field(default_factory=list)
