"""Where a window's matches come from, in words: MTGO Challenge files hold only their top-8 playoff matches
(7 an event), melee.gg files their Swiss rounds and playoffs, so "448 decks" may stand above 70 matches."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_KINDS = (
    ("MTGO", "top-8 playoff matches of", "MTGO Challenge", "MTGO Challenges"),
    ("melee", "Swiss and playoff matches of", "melee.gg event", "melee.gg events"),
    ("other", "matches of", "other event", "other events"),
)


def _count(n: int, one: str, many: str) -> str:
    return f"one {one}" if n == 1 else f"{n:,} {many}"


def describe_sources(total: Mapping[str, Any]) -> str:
    """E.g. "70 top-8 playoff matches of 10 MTGO Challenges, 1,766 Swiss and playoff matches of one melee.gg
    event"; events without matches (MTGO Leagues) are counted as decks only."""
    sources = total.get("sources", {})
    parts = []
    for key, matches_of, one, many in _KINDS:
        entry = sources.get(key)
        if entry and entry.get("events"):
            parts.append(f"{entry.get('matches', 0):,} {matches_of} {_count(int(entry['events']), one, many)}")
    return ", ".join(parts)
