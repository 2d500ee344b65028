"""Aggregates of tournaments as typed records (:class:`EventAggregate`, :class:`FormatTotals`), as analytics
builds and adds them and storage returns them; and :func:`merge`, which sums their stored JSON (a day's parts,
a window's days) without knowing its shape."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from meta_mage.models.evidence import ArchetypeStats, FormatStats, Record, Versus


def add_counts(target: list[int], values: list[int]) -> None:
    """Add ``values`` into ``target`` position by position."""
    for i, v in enumerate(values):
        target[i] += v


def merge(into: dict[str, Any], other: dict[str, Any], *, owned: bool = False) -> dict[str, Any]:
    """Add ``other`` into ``into``: numbers and number lists add up, dicts merge recursively. ``owned``: nothing
    else holds ``other`` (freshly unpacked, dropped after), so its values are taken over instead of copied."""
    for key, value in other.items():
        if key not in into:
            into[key] = value if owned else _copy(value)
        elif isinstance(value, dict):
            merge(into[key], value, owned=owned)
        elif isinstance(value, list) and value and isinstance(value[0], (int, float)):
            add_counts(into[key], value)
        elif isinstance(value, list):
            into[key] = sorted(set(into[key]) | set(value))
        elif isinstance(value, (int, float)):
            into[key] += value
        elif into[key] in (None, "unknown"):
            into[key] = value
    return into


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return list(value)
    return value


Pilots = Mapping[str, int]
"""Players by identity (``models.names.player_identity``) with their decks, or their decided matches."""


@dataclass(frozen=True)
class ArchetypeEntry:
    """One archetype's lists in a window: how many, their colours and pilots, and its strategy."""

    decks: int = 0
    colors: Mapping[str, int] = field(default_factory=dict)
    strategy: str | None = None
    pilots: Pilots = field(default_factory=dict)


@dataclass(frozen=True)
class SourceCount:
    """The events of one kind of source in a window and the matches they hold."""

    events: int = 0
    matches: int = 0


@dataclass(frozen=True)
class FormatTotals:
    """A format's aggregates summed over a window (``analytics/aggregate.py``'s ``format_part``): its totals,
    each archetype's lists, each pair's record (``results[A][B]``: A's against B; ``results[A][A]``: mirrors),
    who played A's side of the decided A–B matches (``players[A][B]``) and where the matches come from."""

    tournaments: int = 0
    decks: int = 0
    decks_without_list: int = 0
    matches: int = 0
    draws: int = 0
    byes: int = 0
    assigned_losses: int = 0
    unreported: int = 0
    archetypes: Mapping[str, ArchetypeEntry] = field(default_factory=dict)
    results: Mapping[str, Versus] = field(default_factory=dict)
    players: Mapping[str, Mapping[str, Pilots]] = field(default_factory=dict)
    sources: Mapping[str, SourceCount] = field(default_factory=dict)

    def record(self, archetype: str, opponent: str) -> Record:
        """``archetype``'s record against ``opponent`` (its mirrors when they are one)."""
        return self.results.get(archetype, {}).get(opponent, Record())

    def pilots(self, archetype: str, opponent: str) -> Pilots:
        """Who played ``archetype``'s side of its decided matches against ``opponent`` ({}: not recorded)."""
        return self.players.get(archetype, {}).get(opponent, {})

    def decks_of(self, archetype: str) -> int:
        entry = self.archetypes.get(archetype)
        return entry.decks if entry else 0

    @cached_property
    def figures_digest(self) -> str:
        """A digest of the figures a matchup fit reads (results and players, as stored), made once per window: a
        window's totals are shared by every read of it."""
        results = {a: {b: [r.wins, r.losses, r.draws] for b, r in row.items()} for a, row in self.results.items()}
        figures = {"results": results, "players": self.players}
        return hashlib.sha256(json.dumps(figures, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:32]

    def stats(self) -> FormatStats:
        """The totals card evidence reads: list counts and results."""
        return FormatStats(
            decks=self.decks,
            archetype_decks={name: entry.decks for name, entry in self.archetypes.items()},
            results=self.results,
        )


@dataclass(frozen=True)
class EventAggregate:
    """One event's aggregates, or a day's sum of them: the format's totals and each archetype's card statistics."""

    format: FormatTotals = FormatTotals()
    archetypes: Mapping[str, ArchetypeStats] = field(default_factory=dict)
