"""Archetypes that are possibly one deck: the rules split some lists by one or two cards (Rakdos Midrange with
and without Kroxa), so their figures describe one deck twice. Found where the data is written, from each
archetype's usual main deck (its nonland cards in more than half of its lists) over the widest fitted window;
two archetypes whose usual main decks (of :data:`MIN_CORE` cards or more) differ by at most
:data:`MAX_DIFFERENCE` cards are flagged, with the cards that differ."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Mapping

from meta_mage.models.evidence import ArchetypeStats
from meta_mage.models.meta import Lookalike
from meta_mage.storage.meta import MetaRepository

MAX_DIFFERENCE = 2
MIN_CORE = 8


def usual_main(stats: ArchetypeStats) -> frozenset[str]:
    """The nonland main-deck cards in more than half of the archetype's lists."""
    return frozenset(
        card for card, row in stats.main.items() if 2 * row.decks > stats.decks and card not in stats.lands
    )


def find_lookalikes(cores: Mapping[str, frozenset[str]]) -> list[Lookalike]:
    found = []
    for a, b in itertools.combinations(sorted(cores), 2):
        if min(len(cores[a]), len(cores[b])) < MIN_CORE:
            continue
        differ = cores[a] ^ cores[b]
        if len(differ) <= MAX_DIFFERENCE:
            found.append(Lookalike(archetypes=[a, b], differ_by=sorted(differ)))
    return found


def refresh_lookalikes(repository: MetaRepository, fmt: str, end: dt.date, days: int) -> list[Lookalike]:
    """Find and store the format's look-alike archetypes over the ``days`` ending at ``end``."""
    start = (end - dt.timedelta(days=days - 1)).isoformat()
    names = repository.format_stats(fmt, start, end.isoformat()).archetype_decks
    cores = {
        name: usual_main(repository.archetype_stats(fmt, name, start, end.isoformat()))
        for name in names
        if name != "Unknown"
    }
    found = find_lookalikes(cores)
    repository.put_lookalikes(fmt, found)
    return found
