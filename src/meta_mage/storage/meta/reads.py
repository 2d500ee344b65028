"""Window reads: a format's or an archetype's day items over a date range (one Query each), summed and typed,
and the decklists of a window's committed events."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass

from boto3.dynamodb.conditions import Key

from meta_mage.models.aggregates import FormatTotals, merge
from meta_mage.models.evidence import ArchetypeStats, FormatStats
from meta_mage.storage.dynamo import Item, binary_bytes, query_all, storage_operation, unpack
from meta_mage.storage.meta.aggregate_items import archetype_stats_of, format_totals_of
from meta_mage.storage.meta.keys import HEADER_SK, archetype_pk, day_pk, event_pk, events_pk
from meta_mage.storage.meta.records import StoredDeck
from meta_mage.storage.meta.writes import TableAccess

# A window's day items, as stored: (sort key, packed data) in key order.
DayItems = tuple[tuple[str, bytes], ...]


@dataclass(frozen=True)
class DayAggregate:
    """One day's stored data, its parts summed, as stored (tests and offline tools read it)."""

    date: str
    data: Item


class WindowReads(TableAccess):
    """Reads of the day items over a window."""

    @storage_operation
    def format_days(self, fmt: str, start: str, end: str) -> list[DayAggregate]:
        """Format-level day aggregates with ``start <= date <= end`` (one Query)."""
        return list(days_of(self._day_items(day_pk(fmt), start, end)))

    @storage_operation
    def archetype_days(self, fmt: str, archetype: str, start: str, end: str) -> list[DayAggregate]:
        """An archetype's card statistics per day in the window (one Query)."""
        return list(days_of(self._day_items(archetype_pk(fmt, archetype), start, end)))

    @storage_operation
    def archetype_stats(self, fmt: str, archetype: str, start: str, end: str) -> ArchetypeStats:
        """An archetype's card statistics summed over the window, typed (one Query)."""
        return archetype_stats_of(_total_of(self._day_items(archetype_pk(fmt, archetype), start, end)))

    @storage_operation
    def format_stats(self, fmt: str, start: str, end: str) -> FormatStats:
        """A format's list counts and results summed over the window (one Query)."""
        return self.format_total(fmt, start, end).stats()

    @storage_operation
    def format_total(self, fmt: str, start: str, end: str) -> FormatTotals:
        """A format's day aggregates with ``start <= date <= end`` summed, typed (one Query). Shared with every
        read of the same stored days: read it, never change it."""
        return _format_total_of(self._day_items(day_pk(fmt), start, end))

    @storage_operation
    def format_totals(self, fmt: str, *spans: tuple[str, str]) -> list[FormatTotals]:
        """:meth:`format_total` of each ``(start, end)`` span, read in one Query."""
        items = self._day_items(day_pk(fmt), min(start for start, _ in spans), max(end for _, end in spans))
        return [
            _format_total_of(tuple(item for item in items if start <= item[0][4:14] <= end)) for start, end in spans
        ]

    @storage_operation
    def format_decks(self, fmt: str, start: str, end: str) -> list[StoredDeck]:
        """Every decklist of ``fmt``'s committed events with ``start <= date <= end``: one Query on the format's
        event index, then one Query per event (its header and decks). For offline tools (``meta-mage rules
        suggest``), not the chat path."""
        events = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(events_pk(fmt)) & Key("sk").between(f"{start}#", f"{end}#\uffff"),
            ProjectionExpression="sk",
        )
        decks: list[StoredDeck] = []
        for event in events:
            items = query_all(self.table, KeyConditionExpression=Key("pk").eq(event_pk(event["sk"].split("#", 1)[1])))
            header = next((item for item in items if item["sk"] == HEADER_SK), None)
            if header is None:  # not committed: its ingest failed before the header
                continue
            version = f"DECK#{header.get('digest', '')}#"
            decks.extend(
                stored_deck(header, item) for item in items if item["sk"].startswith(version) and item["archetype"]
            )
        return decks

    def _day_items(self, pk: str, start: str, end: str) -> DayItems:
        items = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(pk) & Key("sk").between(f"DAY#{start}", f"DAY#{end}#\uffff"),
            ProjectionExpression="sk, #d",
            ExpressionAttributeNames={"#d": "data"},
        )
        return tuple((item["sk"], binary_bytes(item["data"])) for item in items)


def days_of(items: DayItems) -> tuple[DayAggregate, ...]:
    """Each day's parts summed into one aggregate per day."""
    days: dict[str, Item] = {}
    for sk, data in items:  # a day's parts sum into its first (each unpacked afresh, so none is copied)
        date, part = sk[4:14], unpack(data)
        if date in days:
            merge(days[date], part, owned=True)
        else:
            days[date] = part
    return tuple(DayAggregate(date, data) for date, data in sorted(days.items()))


# Every tool call of a turn reads the same windows, so a window's sum is kept per process, keyed by the stored
# items themselves: any rewrite of a day is another key, whatever table or version it came from. A sum is
# shared between readers: read it, never change it. At the demo's sizes an archetype's sum over 90 days is about
# 0.3 MB (256 of them: about 70 MB) and a format's about 2 MB, of which there are few (one per format and window
# asked); the chat function has 1,024 MB.
@functools.lru_cache(maxsize=256)
def _total_of(items: DayItems) -> Item:
    """The days of a window summed."""
    total: Item = {}
    for day in days_of(items):  # unpacked for this sum alone
        merge(total, day.data, owned=True)
    return total


@functools.lru_cache(maxsize=64)
def _format_total_of(items: DayItems) -> FormatTotals:
    """A format's window summed and typed (kept as :func:`_total_of` keeps its sum)."""
    return format_totals_of(_total_of(items))


_DECK_FIELDS = ("player", "placing", "archetype", "colors")


def stored_deck(header: Item, item: Item) -> StoredDeck:
    """A deck item with its event's header, as read."""
    cards = json.loads(item["cards"])
    return StoredDeck(
        event_key=header["pk"].removeprefix("EVENT#"),
        event_name=header["name"],
        date=header["date"],
        mainboard={name: int(count) for name, count in cards["mainboard"].items()},
        sideboard={name: int(count) for name, count in cards["sideboard"].items()},
        **{name: item[name] for name in _DECK_FIELDS},
    )
