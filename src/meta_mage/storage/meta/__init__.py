"""MetaTable repository: events, decks, per-event and per-day aggregates, the format registry, split by item
family (the keys and item schemas of every family are in :mod:`meta_mage.storage.meta.keys`).

Every read tool is one ``Query`` on a ``FMT#`` or ``ARCH#`` partition over a date range, so its
cost depends on the window length, not on the number of tournaments. The invariants these items keep,
and how ``meta-mage repair --check`` proves them, are in ``ingest/invariants.py``.
"""

from __future__ import annotations

from meta_mage.storage.meta.aggregate_items import archetype_stats_of, format_totals_of
from meta_mage.storage.meta.days import DayWrites
from meta_mage.storage.meta.fits import Fits
from meta_mage.storage.meta.keys import MAX_EVENTS_PER_DAY, MAX_ITEM_BYTES, item_size
from meta_mage.storage.meta.reads import DayAggregate, WindowReads, stored_deck
from meta_mage.storage.meta.records import (
    CommitOutcome,
    DayFull,
    DayRebuild,
    DayState,
    EventVersion,
    ItemTooLarge,
    StoredAggregate,
    StoredDeck,
    StoredEvent,
    WriteIntent,
)
from meta_mage.storage.meta.registry import Registry, registry_summary
from meta_mage.storage.meta.sync_state import SyncState

__all__ = [
    "MAX_EVENTS_PER_DAY",
    "MAX_ITEM_BYTES",
    "CommitOutcome",
    "DayAggregate",
    "DayFull",
    "DayRebuild",
    "DayState",
    "EventVersion",
    "ItemTooLarge",
    "MetaRepository",
    "StoredAggregate",
    "StoredDeck",
    "StoredEvent",
    "WriteIntent",
    "archetype_stats_of",
    "format_totals_of",
    "item_size",
    "registry_summary",
    "stored_deck",
]


class MetaRepository(DayWrites, Registry, Fits, SyncState, WindowReads):
    """All reads and writes of the MetaTable: event versions and days (:class:`DayWrites`), the format registry,
    derived fits, the seed and sync markers, and window reads."""
