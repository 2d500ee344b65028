"""Day items: a day's format data and per-archetype items rebuilt from its event aggregates under conditional
writes, their parts, and the reads ``repair --check`` compares them with."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Collection

from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import ClientError

from meta_mage.errors import StorageUnavailable
from meta_mage.models.aggregates import EventAggregate, FormatTotals
from meta_mage.storage.dynamo import Item, all_pages, binary_bytes, query_all, storage_operation, unpack
from meta_mage.storage.meta.aggregate_items import archetype_json, event_aggregate_of, format_json, format_totals_of
from meta_mage.storage.meta.events import EventWrites
from meta_mage.storage.meta.keys import (
    DAY_STATE,
    MAX_ITEM_BYTES,
    archetype_pk,
    day_item,
    day_key,
    day_pk,
    day_state_of,
    events_pk,
    intent_key,
    is_part,
    item_size,
    part_sk,
)
from meta_mage.storage.meta.reads import days_of
from meta_mage.storage.meta.records import DayRebuild, DayState
from meta_mage.storage.meta.writes import (
    WRITE_ATTEMPTS,
    cancelled_by_condition,
    condition_failed,
    refused,
    transaction_chunks,
    unchanged_since,
)
from meta_mage.storage.shards import CARD_LISTS, CARD_SECTIONS, split_aggregate

DaySum = Callable[[list[EventAggregate]], EventAggregate]
"""Adds a day's counted event aggregates up (``analytics/day_totals.py``): storage only reads and writes them."""


class DayWrites(EventWrites):
    """Day items and their per-archetype items."""

    @storage_operation
    def day_state(self, fmt: str, date: str) -> DayState | None:
        """The stored day's version, the events it counts and its totals (a consistent read), or None."""
        item = self.table.get_item(Key=day_key(fmt, date), ConsistentRead=True, ProjectionExpression=DAY_STATE).get(
            "Item"
        )
        return None if item is None else day_state_of(item)

    @storage_operation
    def day_states(self, fmt: str, since: str = "") -> dict[str, DayState]:
        """Every stored day of ``fmt`` dated ``since`` or later by date, as :meth:`day_state` reads one (one
        Query: ``repair --check`` reads a format's days at once)."""
        items = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(day_pk(fmt)) & Key("sk").between(f"DAY#{since}", "DAY#\uffff"),
            ProjectionExpression=f"sk, {DAY_STATE}",
            ConsistentRead=True,
        )
        return {item["sk"][4:]: day_state_of(item) for item in items if not is_part(item["sk"])}

    def _event_items(self, fmt: str, date: str) -> list[Item]:
        return query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(events_pk(fmt)) & Key("sk").begins_with(f"{date}#"),
            ConsistentRead=True,
        )

    @storage_operation
    def rebuild_day(
        self,
        fmt: str,
        date: str,
        including: Collection[str] = (),
        committed_only: bool = False,
        *,
        summed: DaySum,
    ) -> DayRebuild:
        """Recompute a day's aggregates from the event aggregates stored for that day, added up by ``summed``;
        safe against concurrent writers of the same day.

        The day counts the events it counted before, the committed ones (with a header) and
        ``including`` (the events this ingest commits next). Its write is conditional on the version
        read, so two writers of one day cannot both succeed from the same state: the loser reads the
        winner's day (and its events) and tries again. An event whose ingest failed before the day
        counted it and before its header is not counted until a retry (or ``repair``) commits it;
        ``committed_only`` (``repair``) counts only the committed events and ``including``. Its format data
        and each archetype's are split into parts that each fit an item."""
        for attempt in range(WRITE_ATTEMPTS):
            before = self.day_state(fmt, date)
            stored = self._event_items(fmt, date)
            keys = {item["sk"].split("#", 1)[1] for item in stored}
            kept = set() if committed_only or before is None else set(before.events)
            counted = (set(including) | kept) & keys
            counted |= set(self.committed_events(keys - counted))
            events = _events_of(stored, counted)
            digests = {event_key: digest for event_key, digest, _ in events}
            day = summed([aggregate for _, _, aggregate in events])
            day_format = format_json(day.format) if events else {}
            card_parts = {
                arch: split_aggregate(archetype_json(stats), CARD_SECTIONS, CARD_LISTS)
                for arch, stats in day.archetypes.items()
            }
            version = (before.version if before else 0) + 1
            item, format_parts = day_item(fmt, date, version, digests, day_format, card_parts)
            try:
                self._put_day(item, format_parts[1:], before)
            except ClientError as exc:
                if refused(exc):  # the data is at fault: the versions written for this day are failed, not pending
                    self._mark_failed(fmt, stored, set(including), str(exc))
                if not condition_failed(exc):
                    raise
                time.sleep(random.uniform(0, 0.02 * 2**attempt))  # another writer of this day won: read its day
                continue
            self._write_archetype_days(fmt, date, version, card_parts, before)
            return DayRebuild(fmt, date, before, frozenset(counted), item["tournaments"], item["decks"])
        raise StorageUnavailable(
            f"{fmt} {date}: the day changed under this write {WRITE_ATTEMPTS} times in a row; run it again"
        )

    def _mark_failed(self, fmt: str, stored: list[Item], including: set[str], reason: str) -> None:
        """Mark the intents of the ``including`` versions stored for a day that could not be written as failed:
        their ingest reports them FAILED, so ``repair`` removes them instead of committing them."""
        for item in stored:
            date, event_key = item["sk"].split("#", 1)
            if event_key not in including or not item.get("digest"):
                continue
            try:
                self.table.update_item(
                    Key=intent_key(fmt, date, event_key, str(item["digest"])),
                    UpdateExpression="SET failed = :r",
                    ConditionExpression=Attr("pk").exists(),
                    ExpressionAttributeValues={":r": reason[:500]},
                )
            except ClientError as exc:
                if not condition_failed(exc):  # no intent: a committed event the day did not count yet
                    raise

    def _put_day(self, day_item: Item, more_parts: list[bytes], before: DayState | None) -> None:
        """Put the day item, conditional on the version read, with its further parts (if any) in one transaction."""
        if (size := item_size(day_item)) > MAX_ITEM_BYTES:  # only past MAX_EVENTS_PER_DAY: refused as DynamoDB would
            raise ClientError(
                {"Error": {"Code": "ValidationException", "Message": f"Item size has exceeded the limit ({size:,})"}},
                "PutItem",
            )
        old_parts = before.parts if before else 1
        if not more_parts and old_parts <= 1:
            self.table.put_item(Item=day_item, ConditionExpression=unchanged_since(before.version if before else None))
            return
        base = {"pk": day_item["pk"], "sk": day_item["sk"]}
        put: Item = {"TableName": self.table.name, "Item": day_item, **_day_condition(before)}
        actions: list[Item] = [{"Put": put}]
        actions += [
            {"Put": {"TableName": self.table.name, "Item": {**base, "sk": part_sk(base["sk"], n), "data": data}}}
            for n, data in enumerate(more_parts, start=2)
        ]
        actions += [
            {"Delete": {"TableName": self.table.name, "Key": {**base, "sk": part_sk(base["sk"], n)}}}
            for n in range(len(more_parts) + 2, old_parts + 1)
        ]
        try:
            self.table.meta.client.transact_write_items(TransactItems=actions)
        except ClientError as exc:
            if cancelled_by_condition(exc):
                raise ClientError(
                    {"Error": {"Code": "ConditionalCheckFailedException", "Message": "the day changed"}}, "PutItem"
                ) from exc
            raise

    def _write_archetype_days(
        self, fmt: str, date: str, version: int, card_parts: dict[str, list[bytes]], before: DayState | None
    ) -> None:
        """Write a day's per-archetype items (each in one or more parts) as of day ``version``, delete those of
        archetypes (or parts) it no longer holds, then mark the day as complete.

        Each transaction (at most 99 items) also checks that the day is still at ``version``, so a slow
        writer never puts an older day's cards over a newer day's: once a newer rebuild has written the day,
        it writes every archetype item itself. A day whose ``archetypes_version`` lags its ``version``
        (a writer stopped in between) is rebuilt by ``meta-mage repair``."""
        still = {
            "ConditionCheck": {
                "TableName": self.table.name,
                "Key": day_key(fmt, date),
                "ConditionExpression": "#v = :v",
                "ExpressionAttributeNames": {"#v": "version"},
                "ExpressionAttributeValues": {":v": version},
            }
        }
        old_parts = {arch: before.archetype_parts.get(arch, 1) for arch in before.archetypes} if before else {}
        # the resource's client takes Python values, as the table does
        actions: list[Item] = [
            {"Put": {"TableName": self.table.name, "Item": {**self._archetype_key(fmt, arch, date, n), "data": data}}}
            for arch, parts in sorted(card_parts.items())
            for n, data in enumerate(parts, start=1)
        ]
        actions += [
            {"Delete": {"TableName": self.table.name, "Key": self._archetype_key(fmt, arch, date, n)}}
            for arch, was in sorted(old_parts.items())
            for n in range(len(card_parts.get(arch, [])) + 1, was + 1)
        ]
        client = self.table.meta.client
        try:
            for chunk in transaction_chunks(actions):
                client.transact_write_items(TransactItems=[still, *chunk])
            self.table.update_item(
                Key=day_key(fmt, date),
                UpdateExpression="SET archetypes_version = :v",
                ConditionExpression=Attr("version").eq(version),
                ExpressionAttributeValues={":v": version},
            )
        except ClientError as exc:
            if condition_failed(exc) or cancelled_by_condition(exc):
                return  # a newer rebuild of this day writes (or wrote) every archetype item itself
            raise

    @staticmethod
    def _archetype_key(fmt: str, archetype: str, date: str, part: int) -> dict[str, str]:
        return {"pk": archetype_pk(fmt, archetype), "sk": part_sk(f"DAY#{date}", part)}

    @storage_operation
    def counted_events(self, fmt: str, date: str, events: Collection[str]) -> list[EventAggregate]:
        """The stored aggregates of a day's ``events`` (one Query): the check sums them afresh and compares a
        day's totals, data and archetypes with their sum."""
        return [aggregate for _, _, aggregate in _events_of(self._event_items(fmt, date), set(events))]

    @storage_operation
    def stored_day_data(self, fmt: str, date: str) -> FormatTotals:
        """A day's format data as stored, its parts summed (a consistent Query)."""
        items = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(day_pk(fmt)) & Key("sk").between(f"DAY#{date}", f"DAY#{date}#\uffff"),
            ProjectionExpression="sk, #d",
            ExpressionAttributeNames={"#d": "data"},
            ConsistentRead=True,
        )
        days = days_of(tuple((item["sk"], binary_bytes(item["data"])) for item in items if "data" in item))
        return format_totals_of(days[0].data if days else {})

    @storage_operation
    def archetype_items(self, since: str = "") -> dict[tuple[str, str], dict[str, set[int]]]:
        """Every stored archetype day item dated ``since`` or later: (format, date) -> archetype -> its parts.
        One Scan of the table (``repair --check`` only: archetype partitions cannot be listed by a Query)."""
        items = all_pages(
            self.table.scan,
            FilterExpression=Attr("pk").begins_with("ARCH#") & Attr("sk").gte(f"DAY#{since}"),
            ProjectionExpression="pk, sk",
            ConsistentRead=True,
        )
        found: dict[tuple[str, str], dict[str, set[int]]] = {}
        for pk, sk in ((str(item["pk"]), str(item["sk"])) for item in items):
            _, fmt, archetype = pk.split("#", 2)
            date, _, part = sk[4:].partition("#")
            found.setdefault((fmt, date), {}).setdefault(archetype, set()).add(int(part or 1))
        return found

    @storage_operation
    def delete_unlisted_archetype(self, fmt: str, date: str, archetype: str, parts: Collection[int]) -> bool:
        """Delete an archetype's day items on condition that its day does not list it (in one transaction);
        False when the day lists it again meanwhile."""
        check = {
            "ConditionCheck": {
                "TableName": self.table.name,
                "Key": day_key(fmt, date),
                "ConditionExpression": "NOT contains(archetype_names, :a)",
                "ExpressionAttributeValues": {":a": archetype},
            }
        }
        deletes: list[Item] = [
            {"Delete": {"TableName": self.table.name, "Key": self._archetype_key(fmt, archetype, date, n)}}
            for n in sorted(parts)
        ]
        try:
            for chunk in transaction_chunks(deletes):
                self.table.meta.client.transact_write_items(TransactItems=[check, *chunk])
        except ClientError as exc:
            if cancelled_by_condition(exc):
                return False
            raise
        return True


def _day_condition(before: DayState | None) -> Item:
    """The day item's put condition in a transaction: still as read (absent, unversioned or at its version)."""
    if before is None:
        return {"ConditionExpression": "attribute_not_exists(pk)"}
    if before.version == 0:
        return {"ConditionExpression": "attribute_not_exists(version)"}
    return {"ConditionExpression": "version = :v", "ExpressionAttributeValues": {":v": before.version}}


def _events_of(stored: list[Item], counted: Collection[str]) -> list[tuple[str, str, EventAggregate]]:
    """The event key, version and typed data of each stored aggregate ``counted`` names, in key order."""
    found = []
    for item in stored:
        event_key = item["sk"].split("#", 1)[1]
        if event_key in counted:
            found.append((event_key, str(item.get("digest", "")), event_aggregate_of(unpack(item["data"]))))
    return found
