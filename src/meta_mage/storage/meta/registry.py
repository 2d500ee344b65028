"""The format registry (``FORMATS``): each format's first and last date and totals, summed from its days."""

from __future__ import annotations

import random
import time
from collections.abc import Iterable

from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError

from meta_mage.errors import StorageUnavailable
from meta_mage.models.meta import FormatSummary
from meta_mage.storage.dynamo import Item, query_all, storage_operation
from meta_mage.storage.meta.keys import REGISTRY_PK, day_pk, day_state_of, is_part, registry_key
from meta_mage.storage.meta.records import DayState
from meta_mage.storage.meta.writes import WRITE_ATTEMPTS, TableAccess, condition_failed, unchanged_since

_TOTALS = ("tournaments", "decks", "matches")


class Registry(TableAccess):
    """Reads and conditional writes of the format registry."""

    @storage_operation
    def refresh_format(self, fmt: str) -> bool:
        """Recompute the format's registry entry from its day items (ingest only), conditional on the
        version read, so concurrent ingests of one format cannot leave an older total last; whether it changed.

        Days whose events hold no deck count towards the totals but never set the format's first or
        last date (the default windows end at the last date)."""
        for attempt in range(WRITE_ATTEMPTS):
            previous = self.table.get_item(Key=registry_key(fmt), ConsistentRead=True).get("Item")
            summary = self._registry_summary(fmt)
            fields = _fields(summary)
            expected = unchanged_since(int(previous.get("version", 0)) if previous else None)
            if not previous and not summary:
                return False
            if previous and summary and all(previous.get(key) == value for key, value in fields.items()):
                return False  # nothing changed: no write
            try:
                if not summary:
                    self.table.delete_item(Key=registry_key(fmt), ConditionExpression=expected)
                    return True
                version = int(previous.get("version", 0)) + 1 if previous else 1
                self.table.put_item(
                    Item={**registry_key(fmt), "version": version, **fields}, ConditionExpression=expected
                )
                return True
            except ClientError as exc:
                if not condition_failed(exc):
                    raise
                time.sleep(random.uniform(0, 0.02 * 2**attempt))
        raise StorageUnavailable(f"{fmt}: the format registry changed under this write {WRITE_ATTEMPTS} times")

    @storage_operation
    def registry_entry(self, fmt: str) -> tuple[FormatSummary | None, FormatSummary | None]:
        """The format's stored registry entry and the one its day items add up to (None: no entry)."""
        previous = self.table.get_item(Key=registry_key(fmt), ConsistentRead=True).get("Item")
        return (format_summary_of(previous) if previous else None), self._registry_summary(fmt)

    @storage_operation
    def registry_entries(self) -> dict[str, FormatSummary]:
        """Every format's stored registry entry, by format (one Query)."""
        items = query_all(self.table, KeyConditionExpression=Key("pk").eq(REGISTRY_PK), ConsistentRead=True)
        return {str(item["sk"]): format_summary_of(item) for item in items}

    @storage_operation
    def list_formats(self) -> list[FormatSummary]:
        """Every format with data (one Query)."""
        items = query_all(self.table, KeyConditionExpression=Key("pk").eq(REGISTRY_PK))
        return [format_summary_of(item) for item in items]

    @storage_operation
    def get_format(self, fmt: str) -> FormatSummary | None:
        item = self.table.get_item(Key=registry_key(fmt)).get("Item")
        return format_summary_of(item) if item else None

    def _registry_summary(self, fmt: str) -> FormatSummary | None:
        days = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(day_pk(fmt)) & Key("sk").begins_with("DAY#"),
            ProjectionExpression="sk, tournaments, decks, matches",
            ConsistentRead=True,
        )
        return registry_summary(fmt, ((day["sk"][4:], day_state_of(day)) for day in days if not is_part(day["sk"])))


def registry_summary(fmt: str, days: Iterable[tuple[str, DayState]]) -> FormatSummary | None:
    """The registry entry a format's days (in date order) add up to; None when none holds a deck."""
    ordered = list(days)
    with_decks = [date for date, day in ordered if day.decks > 0]
    if not with_decks:
        return None
    totals = {total: sum(getattr(day, total) for _, day in ordered) for total in _TOTALS}
    dates = {"first_date": with_decks[0], "last_date": with_decks[-1]}
    return FormatSummary.model_validate({"format": fmt, **dates} | totals)


def format_summary_of(item: Item) -> FormatSummary:
    dates = {"first_date": item.get("first_date", ""), "last_date": item.get("last_date", "")}
    return FormatSummary.model_validate({"format": item["sk"], **dates} | {t: int(item.get(t, 0)) for t in _TOTALS})


def _fields(summary: FormatSummary | None) -> Item:
    """What a registry item stores of an entry, besides its key and version."""
    return summary.model_dump(exclude={"format"}) if summary else {}
