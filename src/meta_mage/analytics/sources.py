"""Where a window's matches come from, in words, as each source declares them (``models.sources``): MTGO
Challenge files hold only their top-8 playoff matches (7 an event), melee.gg files their Swiss rounds and
playoffs, so "448 decks" may stand above 70 matches."""

from __future__ import annotations

from collections.abc import Mapping

from meta_mage.models import sources


def _count(n: int, one: str, many: str) -> str:
    return f"one {one}" if n == 1 else f"{n:,} {many}"


def describe_sources(total: Mapping[str, object]) -> str:
    """E.g. "70 top-8 playoff matches of 10 MTGO Challenges, 1,766 Swiss and playoff matches of one melee.gg
    event"; events without matches (MTGO Leagues) are counted as decks only."""
    counted = total.get("sources")
    by_kind: Mapping[str, Mapping[str, int]] = counted if isinstance(counted, Mapping) else {}
    parts = []
    for kind in sources.listed_kinds():
        entry = by_kind.get(kind)
        if entry and entry.get("events"):
            reader = sources.source_of_kind(kind)
            events = _count(int(entry["events"]), reader.event, reader.events)
            parts.append(f"{entry.get('matches', 0):,} {reader.matches_of} {events}")
    return ", ".join(parts)
