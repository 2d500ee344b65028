"""A day's totals: its counted events' aggregates added up, typed (storage reads and writes the items, this
adds them). Counts add, records and card rows add, maps merge key by key, land names unite; an archetype's
strategy is the first one known."""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

from meta_mage.models.aggregates import ArchetypeEntry, EventAggregate, FormatTotals, Pilots, SourceCount
from meta_mage.models.evidence import ArchetypeStats, Versus

_V = TypeVar("_V")

_COUNTS = ("tournaments", "decks", "decks_without_list", "matches", "draws", "byes", "assigned_losses", "unreported")


def day_totals(events: Iterable[EventAggregate]) -> EventAggregate:
    """The sum of ``events`` (an empty day: zero totals, no archetype)."""
    total = EventAggregate()
    for event in events:
        total = EventAggregate(
            add_format(total.format, event.format), _add_maps(total.archetypes, event.archetypes, add_archetype)
        )
    return total


def _add_maps(a: Mapping[str, _V], b: Mapping[str, _V], add: Callable[[_V, _V], _V]) -> dict[str, _V]:
    """``a`` and ``b`` merged, the values of the keys both hold added by ``add``."""
    out = dict(a)
    for key, value in b.items():
        out[key] = add(out[key], value) if key in out else value
    return out


def _add_counts(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    return _add_maps(a, b, operator.add)


def _add_versus(a: Mapping[str, Versus], b: Mapping[str, Versus]) -> dict[str, Versus]:
    return _add_maps(a, b, lambda x, y: _add_maps(x, y, operator.add))


def _add_players(
    a: Mapping[str, Mapping[str, Pilots]], b: Mapping[str, Mapping[str, Pilots]]
) -> dict[str, Mapping[str, Pilots]]:
    return _add_maps(a, b, lambda x, y: _add_maps(x, y, _add_counts))


def _add_entry(a: ArchetypeEntry, b: ArchetypeEntry) -> ArchetypeEntry:
    return ArchetypeEntry(
        decks=a.decks + b.decks,
        colors=_add_counts(a.colors, b.colors),
        strategy=b.strategy if a.strategy in (None, "unknown") else a.strategy,
        pilots=_add_counts(a.pilots, b.pilots),
    )


def _add_source(a: SourceCount, b: SourceCount) -> SourceCount:
    return SourceCount(a.events + b.events, a.matches + b.matches)


def add_format(a: FormatTotals, b: FormatTotals) -> FormatTotals:
    """Two format totals added."""
    return dataclasses.replace(
        a,
        **{name: getattr(a, name) + getattr(b, name) for name in _COUNTS},
        archetypes=_add_maps(a.archetypes, b.archetypes, _add_entry),
        results=_add_versus(a.results, b.results),
        players=_add_players(a.players, b.players),
        sources=_add_maps(a.sources, b.sources, _add_source),
    )


def add_archetype(a: ArchetypeStats, b: ArchetypeStats) -> ArchetypeStats:
    """Two archetype card statistics added."""
    return ArchetypeStats(
        decks=a.decks + b.decks,
        record=a.record + b.record,
        main=_add_maps(a.main, b.main, operator.add),
        side=_add_maps(a.side, b.side, operator.add),
        main_vs=_add_versus(a.main_vs, b.main_vs),
        side_vs=_add_versus(a.side_vs, b.side_vs),
        lands=tuple(sorted(set(a.lands) | set(b.lands))),
    )
