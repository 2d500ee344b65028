"""A day's totals: its counted events' aggregates added up, typed (storage reads and writes the items, this
adds them). How each field adds is a declared table: counts add, records and card rows add, maps merge key by
key, land names unite; an archetype's strategy is the first one known."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any, TypeVar

from meta_mage.models.aggregates import ArchetypeEntry, EventAggregate, FormatTotals, SourceCount
from meta_mage.models.evidence import ArchetypeStats

_V = TypeVar("_V")
_T = TypeVar("_T")

Adder = Callable[[Any, Any], Any]


def _add_maps(a: Mapping[str, _V], b: Mapping[str, _V], add: Callable[[_V, _V], _V]) -> dict[str, _V]:
    """``a`` and ``b`` merged, the values of the keys both hold added by ``add``."""
    out = dict(a)
    for key, value in b.items():
        out[key] = add(out[key], value) if key in out else value
    return out


def _each(add: Adder) -> Adder:
    """Adds two maps key by key, the values by ``add``."""
    return partial(_add_maps, add=add)


def _first_known(a: str | None, b: str | None) -> str | None:
    return b if a in (None, "unknown") else a


def _unite(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(set(a) | set(b)))


def _added(kind: Callable[..., _T], sums: Mapping[str, Adder], a: _T, b: _T) -> _T:
    """``a`` and ``b`` added field by field as ``sums`` declares."""
    return kind(**{name: add(getattr(a, name), getattr(b, name)) for name, add in sums.items()})


_ENTRY_SUMS: dict[str, Adder] = {
    "decks": operator.add,
    "colors": _each(operator.add),
    "strategy": _first_known,
    "pilots": _each(operator.add),
}
_SOURCE_SUMS: dict[str, Adder] = {"events": operator.add, "matches": operator.add}
_COUNTS = ("tournaments", "decks", "decks_without_list", "matches", "draws", "byes", "assigned_losses", "unreported")
_FORMAT_SUMS: dict[str, Adder] = dict.fromkeys(_COUNTS, operator.add) | {
    "archetypes": _each(partial(_added, ArchetypeEntry, _ENTRY_SUMS)),
    "results": _each(_each(operator.add)),
    "players": _each(_each(_each(operator.add))),
    "sources": _each(partial(_added, SourceCount, _SOURCE_SUMS)),
}
_CARD_SUMS: dict[str, Adder] = {
    "decks": operator.add,
    "record": operator.add,
    "main": _each(operator.add),
    "side": _each(operator.add),
    "main_vs": _each(_each(operator.add)),
    "side_vs": _each(_each(operator.add)),
    "lands": _unite,
}


def add_format(a: FormatTotals, b: FormatTotals) -> FormatTotals:
    """Two format totals added."""
    return _added(FormatTotals, _FORMAT_SUMS, a, b)


def add_archetype(a: ArchetypeStats, b: ArchetypeStats) -> ArchetypeStats:
    """Two archetype card statistics added."""
    return _added(ArchetypeStats, _CARD_SUMS, a, b)


def day_totals(events: Iterable[EventAggregate]) -> EventAggregate:
    """The sum of ``events`` (an empty day: zero totals, no archetype)."""
    total = EventAggregate()
    for event in events:
        total = EventAggregate(
            add_format(total.format, event.format), _add_maps(total.archetypes, event.archetypes, add_archetype)
        )
    return total
