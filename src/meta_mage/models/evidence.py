"""Typed records of the stored tournament aggregates: a match record, a card's row, one archetype's card
statistics and a format's totals over a window. ``storage/meta/`` builds them from the stored JSON lists."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Record:
    """Wins, losses and draws (byes excluded)."""

    wins: int = 0
    losses: int = 0
    draws: int = 0

    def __add__(self, other: Record) -> Record:
        return Record(self.wins + other.wins, self.losses + other.losses, self.draws + other.draws)

    def __sub__(self, other: Record) -> Record:
        return Record(self.wins - other.wins, self.losses - other.losses, self.draws - other.draws)

    @property
    def decided(self) -> int:
        return self.wins + self.losses


@dataclass(frozen=True)
class CardRow:
    """One card in one section of an archetype's lists: the lists that play it, their copies in all, and the
    wins and losses of those lists (mirrors excluded)."""

    decks: int = 0
    copies: int = 0
    wins: int = 0
    losses: int = 0

    def __add__(self, other: CardRow) -> CardRow:
        return CardRow(
            self.decks + other.decks, self.copies + other.copies, self.wins + other.wins, self.losses + other.losses
        )

    @property
    def record(self) -> Record:
        return Record(self.wins, self.losses)


Versus = Mapping[str, Record]  # the record against each opponent


@dataclass(frozen=True)
class ArchetypeStats:
    """One archetype's card statistics summed over a window: its lists, their record (mirrors excluded), each
    card's row per section (``main``, ``side``), the record against each opponent of the lists playing each card
    per section (``main_vs``, ``side_vs``), and which of its main-deck cards are lands."""

    decks: int = 0
    record: Record = Record()
    main: Mapping[str, CardRow] = field(default_factory=dict)
    side: Mapping[str, CardRow] = field(default_factory=dict)
    main_vs: Mapping[str, Versus] = field(default_factory=dict)
    side_vs: Mapping[str, Versus] = field(default_factory=dict)
    lands: tuple[str, ...] = ()


@dataclass(frozen=True)
class FormatStats:
    """A format's totals over a window: its decks with a list, each archetype's decks (as stored, most played
    not first), and each archetype's record against each other (mirrors under its own name)."""

    decks: int = 0
    archetype_decks: Mapping[str, int] = field(default_factory=dict)
    results: Mapping[str, Versus] = field(default_factory=dict)

    def versus(self, archetype: str) -> Versus:
        """``archetype``'s record against each opponent it met."""
        return self.results.get(archetype, {})
