"""Aggregate data as stored (packed JSON: ``analytics/aggregate.py`` describes its shape) and as typed records,
both ways: what storage reads it returns typed, what it writes it packs."""

from __future__ import annotations

from collections.abc import Mapping

from meta_mage.models.aggregates import ArchetypeEntry, EventAggregate, FormatTotals, SourceCount
from meta_mage.models.evidence import ArchetypeStats, CardRow, Record, Versus
from meta_mage.storage.dynamo import Item

_COUNTS = ("tournaments", "decks", "decks_without_list", "matches", "draws", "byes", "assigned_losses", "unreported")


def _versus(section: dict[str, dict[str, list[int]]]) -> dict[str, dict[str, Record]]:
    """``{name: {opponent: [wins, losses(, draws)]}}`` as records."""
    return {name: {opponent: Record(*wl) for opponent, wl in rows.items()} for name, rows in section.items()}


def archetype_stats_of(data: Item) -> ArchetypeStats:
    """An archetype aggregate's JSON (``analytics/aggregate.py``'s ``card_part``) as typed records."""
    return ArchetypeStats(
        decks=data.get("decks", 0),
        record=Record(*data.get("record", [0, 0, 0])),
        main={card: CardRow(*row) for card, row in data.get("main", {}).items()},
        side={card: CardRow(*row) for card, row in data.get("side", {}).items()},
        main_vs=_versus(data.get("main_vs", {})),
        side_vs=_versus(data.get("side_vs", {})),
        lands=tuple(data.get("lands", [])),
    )


def format_totals_of(data: Item) -> FormatTotals:
    """A format aggregate's JSON (``format_part``, or its sum) as typed records."""
    return FormatTotals(
        **{name: data.get(name, 0) for name in _COUNTS},
        archetypes={name: _archetype_entry(entry) for name, entry in data.get("archetypes", {}).items()},
        results=_versus(data.get("results", {})),
        players=data.get("players", {}),
        sources={
            kind: SourceCount(n.get("events", 0), n.get("matches", 0)) for kind, n in data.get("sources", {}).items()
        },
    )


def _archetype_entry(entry: Item) -> ArchetypeEntry:
    return ArchetypeEntry(
        decks=entry.get("decks", 0),
        colors=entry.get("colors", {}),
        strategy=entry.get("strategy"),
        pilots=entry.get("pilots", {}),
    )


def event_aggregate_of(data: Item) -> EventAggregate:
    """A stored event aggregate (``{"format": ..., "cards": ...}``) as typed records."""
    cards = data["cards"]
    return EventAggregate(format_totals_of(data["format"]), {name: archetype_stats_of(cards[name]) for name in cards})


def event_json(aggregate: EventAggregate) -> Item:
    """An event aggregate as stored (the inverse of :func:`event_aggregate_of`)."""
    return {
        "format": format_json(aggregate.format),
        "cards": {name: archetype_json(stats) for name, stats in aggregate.archetypes.items()},
    }


def format_json(totals: FormatTotals) -> Item:
    """Format totals as stored (the inverse of :func:`format_totals_of`)."""
    return {name: getattr(totals, name) for name in _COUNTS} | {
        "archetypes": {
            name: {"decks": e.decks, "colors": dict(e.colors), "strategy": e.strategy, "pilots": dict(e.pilots)}
            for name, e in totals.archetypes.items()
        },
        "results": _versus_json(totals.results, draws=True),
        "players": {a: {b: dict(who) for b, who in row.items()} for a, row in totals.players.items()},
        "sources": {kind: {"events": n.events, "matches": n.matches} for kind, n in totals.sources.items()},
    }


def archetype_json(stats: ArchetypeStats) -> Item:
    """An archetype's card statistics as stored (the inverse of :func:`archetype_stats_of`)."""
    return {
        "decks": stats.decks,
        "record": [stats.record.wins, stats.record.losses, stats.record.draws],
        "main": {card: [r.decks, r.copies, r.wins, r.losses] for card, r in stats.main.items()},
        "side": {card: [r.decks, r.copies, r.wins, r.losses] for card, r in stats.side.items()},
        "side_vs": _versus_json(stats.side_vs, draws=False),
        "main_vs": _versus_json(stats.main_vs, draws=False),
        "lands": list(stats.lands),
    }


def _versus_json(section: Mapping[str, Versus], *, draws: bool) -> Item:
    """Records as stored: ``[wins, losses, draws]`` (``draws``) or ``[wins, losses]``."""
    return {
        name: {opponent: [r.wins, r.losses, r.draws] if draws else [r.wins, r.losses] for opponent, r in rows.items()}
        for name, rows in section.items()
    }
