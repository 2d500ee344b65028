"""One archetype's evidence over a window, and the one rule every deck tool reads it by: how many of its lists
play each card and how many copies, and its record with and without the card, overall and per opponent."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from meta_mage.analytics.matchup_rates import record
from meta_mage.analytics.stats import FEW_MATCHES
from meta_mage.models.cards import card_key
from meta_mage.models.decks import CardUsage
from meta_mage.models.evidence import ArchetypeStats, CardRow, FormatStats, Record, Versus
from meta_mage.models.meta import WinRate

Section = Literal["mainboard", "sideboard"]

BETTER_BY = 3.0  # points of shrunk win rate by which lists with a card must beat the archetype's own
CORE_INCLUSION = 80.0  # a card in this share of the archetype's lists or more is core
WITHOUT_MIN_SAMPLE = 20  # the low-sample flag of a record without the card (unused by the rule)


def pct(part: int, whole: int) -> float:
    return round(100 * part / whole, 1) if whole else 0.0


def win_rate(counts: Record, min_sample: int) -> WinRate:
    """A record as a :class:`WinRate` with its interval, estimate and verdict."""
    return record(counts.wins, counts.losses, counts.draws, min_sample)


def without_card(with_card: WinRate, base: WinRate | None) -> WinRate | None:
    """The archetype's record against an opponent in its lists without the card: its whole record there
    (``base``) minus the lists with it."""
    if base is None:
        return None
    wins, losses = base.wins - with_card.wins, base.losses - with_card.losses
    return record(wins, losses, 0, WITHOUT_MIN_SAMPLE) if wins >= 0 and losses >= 0 else None


def _estimate(rate: WinRate | None) -> float | None:
    """The shrunk estimate of a record with ``FEW_MATCHES`` decided matches or more, else None."""
    if rate is None or rate.wins + rate.losses < FEW_MATCHES:
        return None
    return rate.estimate


def evidence_gap(with_card: WinRate | None, base: WinRate | None) -> float | None:
    """Shrunk win rate with the card minus without it, against one opponent; None unless both sides have
    ``FEW_MATCHES`` decided matches (a card in every list has nothing to be compared with)."""
    with_estimate = _estimate(with_card)
    if with_card is None or with_estimate is None:
        return None
    without = _estimate(without_card(with_card, base))
    return None if without is None else with_estimate - without


def did_better(with_card: WinRate | None, base: WinRate | None) -> bool:
    """Whether the archetype's lists with a card did better against an opponent than its lists without
    it: 5+ decided matches on each side and a shrunk estimate ``BETTER_BY`` points higher. The one rule
    every deck tool uses, so no answer cuts a card another calls a winner."""
    gap = evidence_gap(with_card, base)
    return gap is not None and gap >= BETTER_BY


def did_worse(with_card: WinRate | None, base: WinRate | None) -> bool:
    """The mirror of ``did_better``: the lists with the card did ``BETTER_BY`` points worse."""
    gap = evidence_gap(with_card, base)
    return gap is not None and gap <= -BETTER_BY


def gap_words(gap: float | None) -> str:
    """``evidence_gap`` in words, by the rule ``did_better`` and ``did_worse`` use."""
    if gap is None:
        return f"too few matches to compare (under {FEW_MATCHES} decided with or without it)"
    if gap >= BETTER_BY:
        return "lists with it did better"
    return "lists with it did worse" if gap <= -BETTER_BY else "no clear difference"


def most_played(totals: FormatStats, excluding: tuple[str | None, ...], limit: int) -> list[str]:
    """The window's archetypes by lists, most first (ties by name), without ``excluding`` and "Unknown"."""
    decks = totals.archetype_decks
    skip = (*excluding, "Unknown")
    return sorted((a for a in decks if a not in skip), key=lambda a: (-decks[a], a))[:limit]


@dataclass(frozen=True)
class ArchetypeEvidence:
    """One archetype over one window: its card statistics and its record against each opponent (from the
    format's totals, when they were read), read once and asked by every deck tool."""

    name: str
    stats: ArchetypeStats
    min_sample: int
    results: Versus = field(default_factory=dict)

    @property
    def lists(self) -> int:
        """Its lists in the window."""
        return self.stats.decks

    @property
    def record(self) -> Record:
        """Its record against the field (mirrors excluded)."""
        return self.stats.record

    @cached_property
    def land_keys(self) -> frozenset[str]:
        return frozenset(card_key(c) for c in self.stats.lands)

    def rows(self, section: Section) -> Mapping[str, CardRow]:
        """Each card's row in ``section``, by name as stored."""
        return self.stats.main if section == "mainboard" else self.stats.side

    def keyed(self, section: Section) -> dict[str, tuple[str, CardRow]]:
        """Each card's name and row in ``section`` by card key."""
        return self._main_keyed if section == "mainboard" else self._side_keyed

    @cached_property
    def _main_keyed(self) -> dict[str, tuple[str, CardRow]]:
        return {card_key(c): (c, r) for c, r in self.stats.main.items()}

    @cached_property
    def _side_keyed(self) -> dict[str, tuple[str, CardRow]]:
        return {card_key(c): (c, r) for c, r in self.stats.side.items()}

    def row(self, section: Section, card: str) -> CardRow | None:
        found = self.keyed(section).get(card_key(card))
        if found is None:
            return None
        _, row = found
        return row

    def inclusion(self, row: CardRow) -> float:
        """The percentage of the archetype's lists that play the card of ``row``."""
        return pct(row.decks, self.lists)

    @cached_property
    def main_usage(self) -> dict[str, tuple[float, float]]:
        """Each main-deck card's share of the lists and average copies in them, by card key."""
        return {
            card_key(c): (pct(r.decks, self.lists), r.copies / r.decks if r.decks else 0.0)
            for c, r in self.stats.main.items()
        }

    def versus(self, opponent: str) -> Record:
        return self.results.get(opponent, Record())

    def with_card(self, card: str, opponent: str, section: Section = "sideboard") -> WinRate | None:
        """The archetype's record against ``opponent`` in its lists that play ``card`` in ``section`` (none for
        the mainboard in aggregates stored before it was kept)."""
        by_card = self._main_vs_keyed if section == "mainboard" else self._side_vs_keyed
        counts = (by_card.get(card_key(card)) or {}).get(opponent)
        return None if counts is None else win_rate(Record(counts.wins, counts.losses), self.min_sample)

    @cached_property
    def _main_vs_keyed(self) -> dict[str, Versus]:
        return {card_key(c): v for c, v in self.stats.main_vs.items()}

    @cached_property
    def _side_vs_keyed(self) -> dict[str, Versus]:
        return {card_key(c): v for c, v in self.stats.side_vs.items()}

    def usage(self, name: str, row: CardRow | None, yours: int) -> CardUsage:
        """How the archetype plays a main-deck card, and its lists' record with it and without it."""
        with_card = without = None
        if row is not None:
            with_card = win_rate(row.record, self.min_sample)
            without = win_rate(Record(self.record.wins, self.record.losses) - row.record, self.min_sample)
        decks = row.decks if row is not None else 0
        return CardUsage(
            name=name,
            inclusion_rate=pct(decks, self.lists),
            average_copies=round(row.copies / decks, 2) if row and decks else 0.0,
            your_copies=yours,
            with_card=with_card,
            without_card=without,
        )
