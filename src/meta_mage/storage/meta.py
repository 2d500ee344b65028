"""MetaTable repository: events, decks, per-event and per-day aggregates, the format registry.

Keys (``pk`` / ``sk``):

- ``FMT#<format>#INTENTS`` / ``<date>#<event_key>#<digest>``: an event version being written (the first write,
  removed by the commit), so ``meta-mage repair`` finds every interrupted ingest; marked ``failed`` when its day
  was refused (its file is reported FAILED), it is never committed and names the file until it is ingested
- ``EVENT#<event_key>`` / ``DECK#<digest>#0001``: one decklist of the event version ``digest``
- ``FMT#<format>#EVENTS`` / ``<date>#<event_key>``: the event's aggregate (compressed) with its ``digest``
- ``EVENT#<event_key>`` / ``#HEADER``: the event's identity and digest, written last (the commit marker), in
  one transaction with a check that the aggregate stored is of the same version
- ``FMT#<format>`` / ``DAY#<date>``: the sum of that day's counted event aggregates, the events and versions
  it counts; ``DAY#<date>#2``, ``#3``…: further parts of a day too large for one item (``storage/shards.py``)
- ``ARCH#<format>#<archetype>`` / ``DAY#<date>`` (and its parts ``#2``…): that archetype's card statistics
- ``FORMATS`` / ``<format>``: first and last date and totals of a format
- ``FMT#<format>#MODELS`` / ``<days>``: the matchup model of the window of that many days ending at the
  format's newest tournament (``end``), fitted when data is written, with the ``fingerprint`` of the figures
  it was fitted on (``analytics/matchup_fit.py``); ``LOOKALIKES``: its archetypes that are possibly one deck
  (``analytics/lookalikes.py``)
- ``FMT#<format>#PROVISIONAL`` / ``RULES``: the format's provisional archetypes (``archetypes/provisional.py``) as
  one versioned item, replaced whole and only on the version read, so concurrent ingests never mix two sets
- ``SEED`` / ``demo``: the digest of the bundled demo data last loaded (``local/seed.py``), written last
- ``SYNC#<owner>/<repo>#<branch>`` / ``cursor``: the last commit a sync (``sync/run.py``) stored every file of

Every read tool is one ``Query`` on a ``FMT#`` or ``ARCH#`` partition over a date range, so its
cost depends on the window length, not on the number of tournaments. The invariants these items keep,
and how ``meta-mage repair --check`` proves them, are in ``ingest/invariants.py``.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import random
import time
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import ClientError

from meta_mage.errors import MetaMageError, StorageUnavailable
from meta_mage.models.aggregates import merge
from meta_mage.models.evidence import ArchetypeStats, CardRow, FormatStats, Record
from meta_mage.models.meta import FormatSummary
from meta_mage.models.tournaments import ParsedDeck, ParsedTournament
from meta_mage.storage.dynamo import all_pages, binary_bytes, pack, query_all, storage_operation, unpack
from meta_mage.storage.shards import CARD_LISTS, CARD_SECTIONS, FORMAT_SECTIONS, split_aggregate

_BATCH_GET_LIMIT = 100
MAX_ITEM_BYTES = 400 * 1024  # DynamoDB's item size limit
_DAY_WRITE_ATTEMPTS = 12  # conditional writes lost to other writers of the same day before giving up
_TRANSACTION_ITEMS = 99  # DynamoDB's 100, less the check that the day is still at the version written
_TRANSACTION_BYTES = 3_500_000  # DynamoDB's limit is 4 MB per transaction


class ItemTooLarge(MetaMageError):
    """An item would pass DynamoDB's item size limit: the input is at fault, not DynamoDB."""

    code = "item_too_large"


class DayFull(MetaMageError):
    """A format's day already counts :data:`MAX_EVENTS_PER_DAY` events: the input is at fault."""

    code = "day_full"


# A day item lists the events it counts with their versions (``digests``: event key -> version). An event key
# is at most 487 characters (``mtgo:`` and the digits of a 500-character URI), so at this cap the day item
# without its data is at most 256,124 bytes (measured); the day's first data part takes what is left of the item
# (``_DAY_ITEM_MARGIN`` spare, at least 146 KB) and its further parts the rest. The busiest real day of a format
# holds about 20 events (about 1.2 KB).
MAX_EVENTS_PER_DAY = 500
_DAY_ITEM_MARGIN = 4 * 1024


@dataclass(frozen=True)
class DayAggregate:
    date: str
    data: dict[str, Any]


@dataclass(frozen=True)
class DayState:
    """What a stored day item says of itself: its version and the events (and their versions) it counts."""

    version: int  # 0: written before days carried versions
    events: frozenset[str]
    tournaments: int
    decks: int
    archetypes: frozenset[str]
    archetypes_version: int  # the version whose archetype items are all written
    digests: dict[str, str] = field(default_factory=dict)  # event key -> the version counted
    parts: int = 1  # items holding the day's format data
    archetype_parts: dict[str, int] = field(default_factory=dict)  # archetypes stored in more than one item
    matches: int = 0

    @property
    def complete(self) -> bool:
        return self.version > 0 and self.archetypes_version == self.version


@dataclass(frozen=True)
class DayRebuild:
    """A day before and after a rebuild."""

    format: str
    date: str
    before: DayState | None
    events: frozenset[str]
    tournaments: int
    decks: int

    @property
    def changed(self) -> bool:
        return self.before is None or (self.before.events, self.before.tournaments, self.before.decks) != (
            self.events,
            self.tournaments,
            self.decks,
        )


@dataclass(frozen=True)
class DayRecount:
    """A day's format data and archetypes summed afresh from the event aggregates it counts."""

    data: dict[str, Any]
    archetypes: frozenset[str]


@dataclass(frozen=True)
class StoredDeck:
    """One stored decklist with its event (``format_decks``)."""

    event_key: str
    event_name: str
    date: str
    player: str
    placing: str
    archetype: str
    colors: str
    mainboard: dict[str, int]
    sideboard: dict[str, int]


@dataclass(frozen=True)
class StoredAggregate:
    """An event aggregate's identity (no data): what the day rebuild and ``repair`` go by."""

    format: str
    date: str
    event_key: str
    digest: str | None  # None: written before aggregates carried their version
    source_file: str


@dataclass(frozen=True)
class WriteIntent:
    """An event version whose write began and was not committed (yet)."""

    format: str
    date: str
    event_key: str
    digest: str
    source_file: str
    failed: str = ""  # why its ingest failed (it was reported FAILED): never committed, only removed


@dataclass(frozen=True)
class StoredEvent:
    """What ``EVENT#<key>`` holds: its header (if committed) and the versions of its deck items."""

    event_key: str
    header: dict[str, Any] | None
    deck_versions: dict[str, int]  # digest ("" for decks written before versions) -> deck items


CommitOutcome = Literal["committed", "replaced", "unchanged", "superseded"]


class MetaRepository:
    """All reads and writes of the MetaTable."""

    def __init__(self, table: Any) -> None:
        self.table = table

    # --- events -------------------------------------------------------------------------

    @storage_operation
    def get_event_header(self, event_key: str) -> dict[str, Any] | None:
        item = self.table.get_item(Key={"pk": f"EVENT#{event_key}", "sk": "#HEADER"}, ConsistentRead=True).get("Item")
        return dict(item) if item else None

    @storage_operation
    def write_event(
        self,
        tournament: ParsedTournament,
        digest: str,
        format_part: dict[str, Any],
        card_parts: dict[str, dict[str, Any]],
    ) -> None:
        """Write one version of an event: its intent, its decks, then its aggregate (not yet its header).

        ``ItemTooLarge`` before writing anything when one of its items would pass DynamoDB's item size limit.
        The decks are keyed by the version, so two versions written at once never mix; the aggregate is
        written last, so a stored aggregate means every deck of its version is stored."""
        pk = f"EVENT#{tournament.event_key}"
        decks = [_deck_item(pk, digest, index, deck) for index, deck in enumerate(tournament.decks, start=1)]
        aggregate = {
            "pk": f"FMT#{tournament.format}#EVENTS",
            "sk": f"{tournament.date}#{tournament.event_key}",
            "digest": digest,
            **_event_identity(tournament),
            "data": pack({"format": format_part, "cards": card_parts}),
        }
        named = [(f"the deck of {deck['player']!r}", deck) for deck in decks] + [("its aggregate", aggregate)]
        for what, item in named:
            if (size := item_size(item)) > MAX_ITEM_BYTES:
                raise ItemTooLarge(
                    f"{what} would be stored as {size / 1024:,.0f} KB, over DynamoDB's "
                    f"{MAX_ITEM_BYTES // 1024} KB item limit"
                )
        self.table.put_item(Item=_intent_item(tournament, digest))
        with self.table.batch_writer(overwrite_by_pkeys=["pk", "sk"]) as batch:
            for deck in decks:
                batch.put_item(Item=deck)
        self.table.put_item(Item=aggregate)

    @storage_operation
    def commit_event(self, tournament: ParsedTournament, digest: str) -> CommitOutcome:
        """Write the event's header (its commit marker) and drop its intent, in one transaction that checks the
        stored aggregate is this version; then delete the decks of every other version.

        ``replaced``: committed over another committed version; ``superseded``: another writer stored another
        version of the event meanwhile (it commits its own); ``unchanged``: another writer committed this very
        version meanwhile."""
        client = self.table.meta.client
        previous = self.get_event_header(tournament.event_key)
        aggregate_key = {"pk": f"FMT#{tournament.format}#EVENTS", "sk": f"{tournament.date}#{tournament.event_key}"}
        header = {
            "pk": f"EVENT#{tournament.event_key}",
            "sk": "#HEADER",
            "digest": digest,
            "decks": len(tournament.decks),
            **_event_identity(tournament),
        }
        try:
            client.transact_write_items(
                TransactItems=[
                    {
                        "ConditionCheck": {
                            "TableName": self.table.name,
                            "Key": aggregate_key,
                            "ConditionExpression": "digest = :d",
                            "ExpressionAttributeValues": {":d": digest},
                        }
                    },
                    {
                        "Put": {
                            "TableName": self.table.name,
                            "Item": header,
                            "ConditionExpression": "attribute_not_exists(pk) OR digest <> :d",
                            "ExpressionAttributeValues": {":d": digest},
                        }
                    },
                    {"Delete": {"TableName": self.table.name, "Key": _intent_key(tournament, digest)}},
                ]
            )
        except ClientError as exc:
            reasons = [reason.get("Code") for reason in exc.response.get("CancellationReasons", [])]
            if exc.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                raise
            if reasons[:1] == ["ConditionalCheckFailed"]:  # drop what this version wrote: the other one stays
                self.delete_version(tournament.format, tournament.date, tournament.event_key, digest)
                return "superseded"
            if reasons[1:2] == ["ConditionalCheckFailed"]:
                self.table.delete_item(Key=_intent_key(tournament, digest))
                return "unchanged"
            raise
        self.delete_other_versions(tournament.event_key, digest, tournament.format, tournament.date)
        return "replaced" if previous else "committed"

    @storage_operation
    def delete_other_versions(self, event_key: str, digest: str, fmt: str = "", date: str = "") -> int:
        """Delete the deck items of ``event_key`` that are not of version ``digest`` nor of a version another
        writer is writing now (an intent of ``fmt`` on ``date``); how many were deleted.

        The decks are read before the intents: a deck written meanwhile has its intent written before it."""
        pk = f"EVENT#{event_key}"
        decks = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(pk) & Key("sk").begins_with("DECK#"),
            ProjectionExpression="sk",
            ConsistentRead=True,
        )
        writing = (
            {
                intent["sk"].rpartition("#")[2]
                for intent in query_all(
                    self.table,
                    KeyConditionExpression=Key("pk").eq(f"FMT#{fmt}#INTENTS")
                    & Key("sk").begins_with(f"{date}#{event_key}#"),
                    ProjectionExpression="sk",
                    ConsistentRead=True,
                )
            }
            if fmt
            else set()
        )
        kept = {digest} | writing
        stale = [item["sk"] for item in decks if item["sk"][5:].rpartition("#")[0] not in kept]
        with self.table.batch_writer() as batch:
            for sk in stale:
                batch.delete_item(Key={"pk": pk, "sk": sk})
        return len(stale)

    @storage_operation
    def delete_version(self, fmt: str, date: str, event_key: str, digest: str, keep_intent: bool = False) -> int:
        """Delete an uncommitted version's decks and its intent (``repair``; ``keep_intent``: a failed version's
        intent stays, naming its file); how many decks were deleted."""
        pk = f"EVENT#{event_key}"
        decks = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(pk) & Key("sk").begins_with(f"DECK#{digest}#"),
            ProjectionExpression="sk",
            ConsistentRead=True,
        )
        with self.table.batch_writer() as batch:
            for item in decks:
                batch.delete_item(Key={"pk": pk, "sk": item["sk"]})
        if not keep_intent:
            self.table.delete_item(Key={"pk": f"FMT#{fmt}#INTENTS", "sk": f"{date}#{event_key}#{digest}"})
        return len(decks)

    @storage_operation
    def delete_event(self, event_key: str) -> None:
        """Delete an event's header and every deck (``repair``, when its aggregate is lost)."""
        pk = f"EVENT#{event_key}"
        items = query_all(self.table, KeyConditionExpression=Key("pk").eq(pk), ProjectionExpression="sk")
        with self.table.batch_writer() as batch:
            for item in items:
                batch.delete_item(Key={"pk": pk, "sk": item["sk"]})

    @storage_operation
    def delete_aggregate(self, fmt: str, date: str, event_key: str) -> None:
        """Delete an event aggregate no header commits (``repair``)."""
        self.table.delete_item(Key={"pk": f"FMT#{fmt}#EVENTS", "sk": f"{date}#{event_key}"})

    @storage_operation
    def stored_event(self, event_key: str) -> StoredEvent:
        """The header and the deck versions of one event (one Query, no deck contents)."""
        items = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(f"EVENT#{event_key}"),
            ProjectionExpression="sk, digest, #f, #d, decks, source_file",
            ExpressionAttributeNames={"#f": "format", "#d": "date"},
            ConsistentRead=True,
        )
        header = next((dict(item) for item in items if item["sk"] == "#HEADER"), None)
        versions: dict[str, int] = {}
        for item in items:
            if item["sk"].startswith("DECK#"):
                version = item["sk"][5:].rpartition("#")[0]
                versions[version] = versions.get(version, 0) + 1
        return StoredEvent(event_key, header, versions)

    @storage_operation
    def write_intents(self, fmt: str, since: str = "") -> list[WriteIntent]:
        """The event versions of ``fmt`` dated ``since`` or later whose write began and was not committed."""
        items = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(f"FMT#{fmt}#INTENTS") & Key("sk").gte(since or "0"),
            ConsistentRead=True,
        )
        intents = []
        for item in items:
            date, rest = item["sk"].split("#", 1)
            event_key, _, digest = rest.rpartition("#")
            intents.append(
                WriteIntent(fmt, date, event_key, digest, str(item.get("source_file", "")), str(item.get("failed", "")))
            )
        return intents

    @storage_operation
    def stored_aggregates(self, fmt: str, since: str = "") -> list[StoredAggregate]:
        """Every event aggregate of ``fmt`` dated ``since`` or later, without its data."""
        items = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(f"FMT#{fmt}#EVENTS") & Key("sk").gte(since or "0"),
            ProjectionExpression="sk, digest, source_file",
            ConsistentRead=True,
        )
        stored = []
        for item in items:
            date, event_key = item["sk"].split("#", 1)
            digest = item.get("digest")
            stored.append(
                StoredAggregate(fmt, date, event_key, str(digest) if digest else None, str(item.get("source_file", "")))
            )
        return stored

    @storage_operation
    def aggregate_data(self, fmt: str, date: str, event_key: str) -> dict[str, Any] | None:
        """One event aggregate's identity and unpacked data (``repair`` commits an interrupted write from it)."""
        item = self.table.get_item(
            Key={"pk": f"FMT#{fmt}#EVENTS", "sk": f"{date}#{event_key}"}, ConsistentRead=True
        ).get("Item")
        return {**item, "data": unpack(item["data"])} if item else None

    @storage_operation
    def commit_stored_version(self, aggregate: dict[str, Any]) -> CommitOutcome:
        """Commit the version whose aggregate is stored (``repair`` finishing an interrupted ingest)."""
        fmt = aggregate["pk"].removeprefix("FMT#").removesuffix("#EVENTS")
        date, event_key = aggregate["sk"].split("#", 1)
        tournament = ParsedTournament(
            event_key=event_key,
            name=str(aggregate.get("name", "")),
            date=date,
            format=fmt,
            source=str(aggregate.get("source", "other")),
            uri=str(aggregate.get("uri", "")),
            source_file=str(aggregate.get("source_file", "")),
            decks=[ParsedDeck("", "", {}, {})] * int(aggregate.get("decks", 0)),
        )
        return self.commit_event(tournament, str(aggregate["digest"]))

    # --- day aggregates -------------------------------------------------------------------

    @storage_operation
    def committed_events(self, event_keys: Collection[str]) -> dict[str, str]:
        """Those of ``event_keys`` whose header (the commit marker) is stored, with the version it commits."""
        wanted = list(dict.fromkeys(event_keys))
        found: dict[str, str] = {}
        client = self.table.meta.client
        for start in range(0, len(wanted), _BATCH_GET_LIMIT):
            keys = [{"pk": f"EVENT#{key}", "sk": "#HEADER"} for key in wanted[start : start + _BATCH_GET_LIMIT]]
            request: dict[str, Any] = {
                self.table.name: {"Keys": keys, "ProjectionExpression": "pk, digest", "ConsistentRead": True}
            }
            while request:
                response = client.batch_get_item(RequestItems=request)
                for item in response.get("Responses", {}).get(self.table.name, []):
                    found[item["pk"].removeprefix("EVENT#")] = str(item.get("digest", ""))
                request = response.get("UnprocessedKeys") or {}
        return found

    @storage_operation
    def day_state(self, fmt: str, date: str) -> DayState | None:
        """The stored day's version, the events it counts and its totals (a consistent read), or None."""
        item = self.table.get_item(
            Key={"pk": f"FMT#{fmt}", "sk": f"DAY#{date}"}, ConsistentRead=True, ProjectionExpression=_DAY_STATE
        ).get("Item")
        return None if item is None else _day_state_of(item)

    @storage_operation
    def day_states(self, fmt: str, since: str = "") -> dict[str, DayState]:
        """Every stored day of ``fmt`` dated ``since`` or later by date, as :meth:`day_state` reads one (one
        Query: ``repair --check`` reads a format's days at once)."""
        items = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(f"FMT#{fmt}") & Key("sk").between(f"DAY#{since}", "DAY#\uffff"),
            ProjectionExpression=f"sk, {_DAY_STATE}",
            ConsistentRead=True,
        )
        return {item["sk"][4:]: _day_state_of(item) for item in items if not _is_part(item["sk"])}

    @storage_operation
    def rebuild_day(
        self, fmt: str, date: str, including: Collection[str] = (), committed_only: bool = False
    ) -> DayRebuild:
        """Recompute a day's aggregates from the event aggregates stored for that day; safe against
        concurrent writers of the same day.

        The day counts the events it counted before, the committed ones (with a header) and
        ``including`` (the events this ingest commits next). Its write is conditional on the version
        read, so two writers of one day cannot both succeed from the same state: the loser reads the
        winner's day (and its events) and tries again. An event whose ingest failed before the day
        counted it and before its header is not counted until a retry (or ``repair``) commits it;
        ``committed_only`` (``repair``) counts only the committed events and ``including``. Its format data
        and each archetype's are split into parts that each fit an item."""
        for attempt in range(_DAY_WRITE_ATTEMPTS):
            before = self.day_state(fmt, date)
            stored = query_all(
                self.table,
                KeyConditionExpression=Key("pk").eq(f"FMT#{fmt}#EVENTS") & Key("sk").begins_with(f"{date}#"),
                ConsistentRead=True,
            )
            keys = {item["sk"].split("#", 1)[1] for item in stored}
            kept = set() if committed_only or before is None else set(before.events)
            counted = (set(including) | kept) & keys
            counted |= set(self.committed_events(keys - counted))
            day_format: dict[str, Any] = {}
            day_cards: dict[str, dict[str, Any]] = {}
            digests: dict[str, str] = {}
            for item in stored:
                event_key = item["sk"].split("#", 1)[1]
                if event_key not in counted:
                    continue
                digests[event_key] = str(item.get("digest", ""))
                data = unpack(item["data"])
                merge(day_format, data["format"], owned=True)
                for arch, stats in data["cards"].items():
                    merge(day_cards.setdefault(arch, {}), stats, owned=True)
            version = (before.version if before else 0) + 1
            card_parts = {arch: split_aggregate(stats, CARD_SECTIONS, CARD_LISTS) for arch, stats in day_cards.items()}
            day_item, format_parts = _day_item(fmt, date, version, digests, day_format, card_parts)
            try:
                self._put_day(day_item, format_parts[1:], before)
            except ClientError as exc:
                if _refused(exc):  # the data is at fault: the versions written for this day are failed, not pending
                    self._mark_failed(fmt, stored, set(including), str(exc))
                if not _condition_failed(exc):
                    raise
                time.sleep(random.uniform(0, 0.02 * 2**attempt))  # another writer of this day won: read its day
                continue
            self._write_archetype_days(fmt, date, version, card_parts, before)
            return DayRebuild(fmt, date, before, frozenset(counted), day_item["tournaments"], day_item["decks"])
        raise StorageUnavailable(
            f"{fmt} {date}: the day changed under this write {_DAY_WRITE_ATTEMPTS} times in a row; run it again"
        )

    def _mark_failed(self, fmt: str, stored: list[dict[str, Any]], including: set[str], reason: str) -> None:
        """Mark the intents of the ``including`` versions stored for a day that could not be written as failed:
        their ingest reports them FAILED, so ``repair`` removes them instead of committing them."""
        for item in stored:
            date, event_key = item["sk"].split("#", 1)
            if event_key not in including or not item.get("digest"):
                continue
            try:
                self.table.update_item(
                    Key={"pk": f"FMT#{fmt}#INTENTS", "sk": f"{date}#{event_key}#{item['digest']}"},
                    UpdateExpression="SET failed = :r",
                    ConditionExpression=Attr("pk").exists(),
                    ExpressionAttributeValues={":r": reason[:500]},
                )
            except ClientError as exc:
                if not _condition_failed(exc):  # no intent: a committed event the day did not count yet
                    raise

    def _put_day(self, day_item: dict[str, Any], more_parts: list[bytes], before: DayState | None) -> None:
        """Put the day item, conditional on the version read, with its further parts (if any) in one transaction."""
        if (size := item_size(day_item)) > MAX_ITEM_BYTES:  # only past MAX_EVENTS_PER_DAY: refused as DynamoDB would
            raise ClientError(
                {"Error": {"Code": "ValidationException", "Message": f"Item size has exceeded the limit ({size:,})"}},
                "PutItem",
            )
        expected = _unchanged_since(before.version if before else None)
        old_parts = before.parts if before else 1
        if not more_parts and old_parts <= 1:
            self.table.put_item(Item=day_item, ConditionExpression=expected)
            return
        base = {"pk": day_item["pk"], "sk": day_item["sk"]}
        condition = (
            ("attribute_not_exists(pk)", {})
            if before is None
            else ("attribute_not_exists(version)", {})
            if before.version == 0
            else ("version = :v", {":v": before.version})
        )
        put: dict[str, Any] = {"TableName": self.table.name, "Item": day_item, "ConditionExpression": condition[0]}
        if condition[1]:
            put["ExpressionAttributeValues"] = condition[1]
        actions: list[dict[str, Any]] = [{"Put": put}]
        actions += [
            {"Put": {"TableName": self.table.name, "Item": {**base, "sk": _part_sk(base["sk"], n), "data": data}}}
            for n, data in enumerate(more_parts, start=2)
        ]
        actions += [
            {"Delete": {"TableName": self.table.name, "Key": {**base, "sk": _part_sk(base["sk"], n)}}}
            for n in range(len(more_parts) + 2, old_parts + 1)
        ]
        try:
            self.table.meta.client.transact_write_items(TransactItems=actions)
        except ClientError as exc:
            if _cancelled_by_condition(exc):
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
        day_key = {"pk": f"FMT#{fmt}", "sk": f"DAY#{date}"}
        still = {
            "ConditionCheck": {
                "TableName": self.table.name,
                "Key": day_key,
                "ConditionExpression": "#v = :v",
                "ExpressionAttributeNames": {"#v": "version"},
                "ExpressionAttributeValues": {":v": version},
            }
        }
        old_parts = {arch: before.archetype_parts.get(arch, 1) for arch in before.archetypes} if before else {}
        # the resource's client takes Python values, as the table does
        actions: list[dict[str, Any]] = [
            {
                "Put": {
                    "TableName": self.table.name,
                    "Item": {"pk": f"ARCH#{fmt}#{arch}", "sk": _part_sk(f"DAY#{date}", n), "data": data},
                }
            }
            for arch, parts in sorted(card_parts.items())
            for n, data in enumerate(parts, start=1)
        ]
        actions += [
            {
                "Delete": {
                    "TableName": self.table.name,
                    "Key": {"pk": f"ARCH#{fmt}#{arch}", "sk": _part_sk(f"DAY#{date}", n)},
                }
            }
            for arch, was in sorted(old_parts.items())
            for n in range(len(card_parts.get(arch, [])) + 1, was + 1)
        ]
        client = self.table.meta.client
        try:
            for chunk in _transaction_chunks(actions):
                client.transact_write_items(TransactItems=[still, *chunk])
            self.table.update_item(
                Key=day_key,
                UpdateExpression="SET archetypes_version = :v",
                ConditionExpression=Attr("version").eq(version),
                ExpressionAttributeValues={":v": version},
            )
        except ClientError as exc:
            if _condition_failed(exc) or _cancelled_by_condition(exc):
                return  # a newer rebuild of this day writes (or wrote) every archetype item itself
            raise

    @storage_operation
    def recount_day(self, fmt: str, date: str, events: Collection[str]) -> DayRecount:
        """What a day counting ``events`` holds, summed afresh from their stored aggregates (one Query): the
        check compares a day's totals, data and archetypes with it."""
        stored = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(f"FMT#{fmt}#EVENTS") & Key("sk").begins_with(f"{date}#"),
            ConsistentRead=True,
        )
        day_format: dict[str, Any] = {}
        archetypes: set[str] = set()
        for item in stored:
            if item["sk"].split("#", 1)[1] in events:
                data = unpack(item["data"])
                merge(day_format, data["format"], owned=True)
                archetypes |= set(data["cards"])
        return DayRecount(day_format, frozenset(archetypes))

    @storage_operation
    def stored_day_data(self, fmt: str, date: str) -> dict[str, Any]:
        """A day's format data as stored, its parts summed (a consistent Query)."""
        items = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(f"FMT#{fmt}") & Key("sk").between(f"DAY#{date}", f"DAY#{date}#\uffff"),
            ProjectionExpression="sk, #d",
            ExpressionAttributeNames={"#d": "data"},
            ConsistentRead=True,
        )
        days = _days_of(tuple((item["sk"], binary_bytes(item["data"])) for item in items if "data" in item))
        return days[0].data if days else {}

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
                "Key": {"pk": f"FMT#{fmt}", "sk": f"DAY#{date}"},
                "ConditionExpression": "NOT contains(archetype_names, :a)",
                "ExpressionAttributeValues": {":a": archetype},
            }
        }
        deletes = [
            {
                "Delete": {
                    "TableName": self.table.name,
                    "Key": {"pk": f"ARCH#{fmt}#{archetype}", "sk": _part_sk(f"DAY#{date}", n)},
                }
            }
            for n in sorted(parts)
        ]
        try:
            for chunk in _transaction_chunks(deletes):
                self.table.meta.client.transact_write_items(TransactItems=[check, *chunk])
        except ClientError as exc:
            if _cancelled_by_condition(exc):
                return False
            raise
        return True

    @storage_operation
    def put_failed_marker(self, intent: WriteIntent) -> None:
        """Store ``intent`` (its ``failed`` reason set) alone: ``repair`` names its file until it is ingested
        (an ingest of the same version puts its own intent over it; any commit of the event clears it)."""
        self.table.put_item(
            Item={
                "pk": f"FMT#{intent.format}#INTENTS",
                "sk": f"{intent.date}#{intent.event_key}#{intent.digest}",
                "source_file": intent.source_file,
                "failed": intent.failed,
                "started_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            }
        )

    @storage_operation
    def delete_intent(self, fmt: str, date: str, event_key: str, digest: str) -> None:
        self.table.delete_item(Key={"pk": f"FMT#{fmt}#INTENTS", "sk": f"{date}#{event_key}#{digest}"})

    @storage_operation
    def refresh_format(self, fmt: str) -> bool:
        """Recompute the format's registry entry from its day items (ingest only), conditional on the
        version read, so concurrent ingests of one format cannot leave an older total last; whether it changed.

        Days whose events hold no deck count towards the totals but never set the format's first or
        last date (the default windows end at the last date)."""
        for attempt in range(_DAY_WRITE_ATTEMPTS):
            previous = self.table.get_item(Key={"pk": "FORMATS", "sk": fmt}, ConsistentRead=True).get("Item")
            summary = self._registry_summary(fmt)
            expected = _unchanged_since(int(previous.get("version", 0)) if previous else None)
            if not previous and not summary:
                return False
            if previous and summary and all(previous.get(key) == value for key, value in summary.items()):
                return False  # nothing changed: no write
            try:
                if not summary:
                    self.table.delete_item(Key={"pk": "FORMATS", "sk": fmt}, ConditionExpression=expected)
                    return True
                version = int(previous.get("version", 0)) + 1 if previous else 1
                self.table.put_item(
                    Item={"pk": "FORMATS", "sk": fmt, "version": version, **summary}, ConditionExpression=expected
                )
                return True
            except ClientError as exc:
                if not _condition_failed(exc):
                    raise
                time.sleep(random.uniform(0, 0.02 * 2**attempt))
        raise StorageUnavailable(f"{fmt}: the format registry changed under this write {_DAY_WRITE_ATTEMPTS} times")

    @storage_operation
    def registry_entry(self, fmt: str) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """The format's stored registry entry (without its version) and the one its day items add up to."""
        previous = self.table.get_item(Key={"pk": "FORMATS", "sk": fmt}, ConsistentRead=True).get("Item")
        return _registry_fields(previous), self._registry_summary(fmt)

    @storage_operation
    def registry_entries(self) -> dict[str, dict[str, Any]]:
        """Every format's stored registry entry (without its version), by format (one Query)."""
        items = query_all(self.table, KeyConditionExpression=Key("pk").eq("FORMATS"), ConsistentRead=True)
        return {str(item["sk"]): _registry_fields(item) or {} for item in items}

    def _registry_summary(self, fmt: str) -> dict[str, Any]:
        days = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(f"FMT#{fmt}") & Key("sk").begins_with("DAY#"),
            ProjectionExpression="sk, tournaments, decks, matches",
            ConsistentRead=True,
        )
        return registry_summary((day["sk"][4:], _day_state_of(day)) for day in days if not _is_part(day["sk"]))

    @storage_operation
    def put_matchup_models(self, fmt: str, end: str, fits: list[tuple[int, str, dict[str, Any]]]) -> None:
        """Store fitted window models, ``(days, fingerprint, model)`` each, replacing the previous fit of each
        window length (one batch: they are derived data, which ``repair`` refits if a write is lost)."""
        with self.table.batch_writer() as batch:
            for days, fingerprint, model in fits:
                batch.put_item(
                    Item={
                        "pk": f"FMT#{fmt}#MODELS",
                        "sk": f"{days:03d}",
                        "end": end,
                        "fingerprint": fingerprint,
                        "data": pack(model),
                    }
                )

    @storage_operation
    def fitted_windows(self, fmt: str) -> dict[int, tuple[str, str]]:
        """The ``(end, fingerprint)`` of each stored window fit of the format, by window length (one Query,
        without the models)."""
        items = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(f"FMT#{fmt}#MODELS"),
            ProjectionExpression="sk, #end, fingerprint",
            ExpressionAttributeNames={"#end": "end"},
        )
        return {
            int(item["sk"]): (str(item.get("end", "")), str(item.get("fingerprint", "")))
            for item in items
            if item["sk"].isdigit()
        }

    @storage_operation
    def matchup_model(self, fmt: str, days: int, end: str, fingerprint: str) -> dict[str, Any] | None:
        """The stored fit of the window, or None when there is none for exactly these figures."""
        item = self.table.get_item(Key={"pk": f"FMT#{fmt}#MODELS", "sk": f"{days:03d}"}).get("Item")
        if not item or item.get("end") != end or item.get("fingerprint") != fingerprint:
            return None
        data: dict[str, Any] = unpack(item["data"])
        return data

    @storage_operation
    def put_lookalikes(self, fmt: str, rows: list[dict[str, Any]]) -> None:
        """Store the format's archetypes that are possibly one deck (``analytics/lookalikes.py``)."""
        self.table.put_item(Item={"pk": f"FMT#{fmt}#MODELS", "sk": "LOOKALIKES", "data": pack(rows)})

    @storage_operation
    def lookalikes(self, fmt: str) -> list[dict[str, Any]]:
        item = self.table.get_item(Key={"pk": f"FMT#{fmt}#MODELS", "sk": "LOOKALIKES"}).get("Item")
        rows: list[dict[str, Any]] = unpack(item["data"]) if item else []
        return rows

    # --- provisional archetypes -------------------------------------------------------------

    @storage_operation
    def provisional_archetypes(self, fmt: str) -> tuple[int, list[dict[str, Any]]]:
        """The version of the format's provisional archetypes (0: none stored yet) and their rows."""
        item = self.table.get_item(Key=_provisional_key(fmt), ConsistentRead=True).get("Item")
        if item is None:
            return 0, []
        rows: list[dict[str, Any]] = unpack(item["data"])
        return int(item.get("version", 0)), rows

    @storage_operation
    def put_provisional_archetypes(self, fmt: str, rows: list[dict[str, Any]], version_read: int) -> bool:
        """Replace the format's provisional archetypes, on condition that they are still at ``version_read``;
        False when another writer replaced them meanwhile (read them again and retry)."""
        item = {**_provisional_key(fmt), "version": version_read + 1, "data": pack(rows)}
        if (size := item_size(item)) > MAX_ITEM_BYTES:
            raise ItemTooLarge(f"{fmt}'s provisional archetypes would be stored as {size / 1024:,.0f} KB")
        try:
            self.table.put_item(Item=item, ConditionExpression=_unchanged_since(version_read or None))
        except ClientError as exc:
            if _condition_failed(exc):
                return False
            raise
        return True

    # --- the demo data's marker -------------------------------------------------------------

    @storage_operation
    def holds_items(self) -> bool:
        """Whether any item is stored at all (a one-item Scan)."""
        return bool(self.table.scan(Limit=1, ProjectionExpression="pk").get("Items"))

    @storage_operation
    def seeded_digest(self) -> str | None:
        """The digest of the demo data last loaded here, or None."""
        item = self.table.get_item(Key={"pk": "SEED", "sk": "demo"}).get("Item")
        return str(item["digest"]) if item else None

    @storage_operation
    def mark_seeded(self, digest: str) -> None:
        self.table.put_item(Item={"pk": "SEED", "sk": "demo", "digest": digest})

    # --- the sync's cursor ------------------------------------------------------------------

    @storage_operation
    def sync_cursor(self, repository: str, branch: str) -> str | None:
        """The last commit of ``repository``'s ``branch`` whose files are all stored, or None."""
        item = self.table.get_item(Key=_cursor_key(repository, branch), ConsistentRead=True).get("Item")
        return str(item["sha"]) if item else None

    @storage_operation
    def advance_sync_cursor(self, repository: str, branch: str, sha: str, previous: str | None) -> bool:
        """Move the cursor from ``previous`` to ``sha``; False when another sync moved it meanwhile."""
        expected = Attr("pk").not_exists() if previous is None else Attr("sha").eq(previous)
        item = {**_cursor_key(repository, branch), "sha": sha, "synced_at": dt.datetime.now(dt.UTC).isoformat()}
        try:
            self.table.put_item(Item=item, ConditionExpression=expected)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                return False
            raise
        return True

    # --- reads ----------------------------------------------------------------------------

    @storage_operation
    def list_formats(self) -> list[FormatSummary]:
        """Every format with data (one Query)."""
        items = query_all(self.table, KeyConditionExpression=Key("pk").eq("FORMATS"))
        return [self._format_info(item) for item in items]

    @storage_operation
    def get_format(self, fmt: str) -> FormatSummary | None:
        item = self.table.get_item(Key={"pk": "FORMATS", "sk": fmt}).get("Item")
        return self._format_info(item) if item else None

    @storage_operation
    def format_days(self, fmt: str, start: str, end: str) -> list[DayAggregate]:
        """Format-level day aggregates with ``start <= date <= end`` (one Query)."""
        return self._days(f"FMT#{fmt}", start, end)

    @storage_operation
    def archetype_days(self, fmt: str, archetype: str, start: str, end: str) -> list[DayAggregate]:
        """An archetype's card statistics per day in the window (one Query)."""
        return self._days(f"ARCH#{fmt}#{archetype}", start, end)

    @storage_operation
    def archetype_stats(self, fmt: str, archetype: str, start: str, end: str) -> ArchetypeStats:
        """An archetype's card statistics summed over the window, typed (one Query)."""
        return archetype_stats_of(_total_of(self._day_items(f"ARCH#{fmt}#{archetype}", start, end)))

    @storage_operation
    def format_stats(self, fmt: str, start: str, end: str) -> FormatStats:
        """A format's totals summed over the window, typed (one Query)."""
        return format_stats_of(self.format_total(fmt, start, end))

    @storage_operation
    def format_total(self, fmt: str, start: str, end: str) -> dict[str, Any]:
        """A format's day aggregates with ``start <= date <= end`` summed (one Query). Shared with every read of
        the same stored days: read it, never change it."""
        return _total_of(self._day_items(f"FMT#{fmt}", start, end))

    @storage_operation
    def format_totals(self, fmt: str, *spans: tuple[str, str]) -> list[dict[str, Any]]:
        """:meth:`format_total` of each ``(start, end)`` span, read in one Query."""
        items = self._day_items(f"FMT#{fmt}", min(start for start, _ in spans), max(end for _, end in spans))
        return [_total_of(tuple(item for item in items if start <= item[0][4:14] <= end)) for start, end in spans]

    @storage_operation
    def format_decks(self, fmt: str, start: str, end: str) -> list[StoredDeck]:
        """Every decklist of ``fmt``'s committed events with ``start <= date <= end``: one Query on the format's
        event index, then one Query per event (its header and decks). For offline tools (``meta-mage rules
        suggest``), not the chat path."""
        events = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(f"FMT#{fmt}#EVENTS") & Key("sk").between(f"{start}#", f"{end}#\uffff"),
            ProjectionExpression="sk",
        )
        decks: list[StoredDeck] = []
        for event in events:
            items = query_all(self.table, KeyConditionExpression=Key("pk").eq(f"EVENT#{event['sk'].split('#', 1)[1]}"))
            header = next((item for item in items if item["sk"] == "#HEADER"), None)
            if header is None:  # not committed: its ingest failed before the header
                continue
            version = f"DECK#{header.get('digest', '')}#"
            decks.extend(
                _stored_deck(header, item) for item in items if item["sk"].startswith(version) and item["archetype"]
            )
        return decks

    def _days(self, pk: str, start: str, end: str) -> list[DayAggregate]:
        return list(_days_of(self._day_items(pk, start, end)))

    def _day_items(self, pk: str, start: str, end: str) -> DayItems:
        items = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(pk) & Key("sk").between(f"DAY#{start}", f"DAY#{end}#\uffff"),
            ProjectionExpression="sk, #d",
            ExpressionAttributeNames={"#d": "data"},
        )
        return tuple((item["sk"], binary_bytes(item["data"])) for item in items)

    @staticmethod
    def _format_info(item: dict[str, Any]) -> FormatSummary:
        return FormatSummary(
            format=item["sk"],
            first_date=item["first_date"],
            last_date=item["last_date"],
            tournaments=int(item["tournaments"]),
            decks=int(item["decks"]),
            matches=int(item["matches"]),
        )


# A window's day items, as stored: (sort key, packed data) in key order.
DayItems = tuple[tuple[str, bytes], ...]


def _days_of(items: DayItems) -> tuple[DayAggregate, ...]:
    """Each day's parts summed into one aggregate per day."""
    days: dict[str, dict[str, Any]] = {}
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
def _total_of(items: DayItems) -> dict[str, Any]:
    """The days of a window summed."""
    total: dict[str, Any] = {}
    for day in _days_of(items):  # unpacked for this sum alone
        merge(total, day.data, owned=True)
    return total


_DAY_STATE = (
    "version, events, digests, tournaments, decks, matches, archetype_names, archetypes_version, parts, archetype_parts"
)


def _day_state_of(item: dict[str, Any]) -> DayState:
    # ``events``: days written before the event list was kept as ``digests`` alone
    return DayState(
        version=int(item.get("version", 0)),
        events=frozenset(item.get("events", item.get("digests", {}))),
        tournaments=int(item.get("tournaments", 0)),
        decks=int(item.get("decks", 0)),
        archetypes=frozenset(item.get("archetype_names", [])) - {"-"},
        archetypes_version=int(item.get("archetypes_version", 0)),
        digests={key: str(value) for key, value in item.get("digests", {}).items()},
        parts=int(item.get("parts", 1)),
        archetype_parts={name: int(n) for name, n in item.get("archetype_parts", {}).items()},
        matches=int(item.get("matches", 0)),
    )


def registry_summary(days: Iterable[tuple[str, DayState]]) -> dict[str, Any]:
    """The registry entry a format's days (in date order) add up to; {} when none holds a deck."""
    ordered = list(days)
    with_decks = [date for date, day in ordered if day.decks > 0]
    if not with_decks:
        return {}
    return {
        "first_date": with_decks[0],
        "last_date": with_decks[-1],
        "tournaments": sum(day.tournaments for _, day in ordered),
        "decks": sum(day.decks for _, day in ordered),
        "matches": sum(day.matches for _, day in ordered),
    }


def _registry_fields(item: dict[str, Any] | None) -> dict[str, Any] | None:
    return {key: value for key, value in item.items() if key not in ("pk", "sk", "version")} if item else None


def _record(counts: list[int]) -> Record:
    """``[wins, losses]`` or ``[wins, losses, draws]``."""
    return Record(*counts)


def _versus(section: dict[str, dict[str, list[int]]]) -> dict[str, dict[str, Record]]:
    return {name: {opponent: _record(wl) for opponent, wl in rows.items()} for name, rows in section.items()}


def archetype_stats_of(data: dict[str, Any]) -> ArchetypeStats:
    """An archetype aggregate's JSON (``analytics/aggregate.py``'s ``card_part``) as typed records."""
    return ArchetypeStats(
        decks=data.get("decks", 0),
        record=_record(data.get("record", [0, 0, 0])),
        main={card: CardRow(*row) for card, row in data.get("main", {}).items()},
        side={card: CardRow(*row) for card, row in data.get("side", {}).items()},
        main_vs=_versus(data.get("main_vs", {})),
        side_vs=_versus(data.get("side_vs", {})),
        lands=tuple(data.get("lands", [])),
    )


def format_stats_of(data: dict[str, Any]) -> FormatStats:
    """A format aggregate's JSON (``format_part``) as typed records: list counts and results."""
    return FormatStats(
        decks=data.get("decks", 0),
        archetype_decks={name: entry["decks"] for name, entry in data.get("archetypes", {}).items()},
        results=_versus(data.get("results", {})),
    )


def _deck_item(pk: str, digest: str, index: int, deck: ParsedDeck) -> dict[str, Any]:
    return {
        "pk": pk,
        "sk": f"DECK#{digest}#{index:04d}",
        "player": deck.player,
        "placing": deck.placing,
        "archetype": deck.archetype or "",
        "colors": deck.colors,
        # One JSON string, not nested maps: smaller and much cheaper to write.
        "cards": json.dumps(
            {"mainboard": deck.mainboard, "sideboard": deck.sideboard}, separators=(",", ":"), ensure_ascii=False
        ),
    }


def _event_identity(tournament: ParsedTournament) -> dict[str, Any]:
    """What a header says of its event (the aggregate carries it too, so ``repair`` can commit from it)."""
    return {
        "format": tournament.format,
        "date": tournament.date,
        "name": tournament.name,
        "uri": tournament.uri,
        "source": tournament.source,
        "source_file": tournament.source_file,
        "decks": len(tournament.decks),
    }


def _intent_key(tournament: ParsedTournament, digest: str) -> dict[str, str]:
    return {"pk": f"FMT#{tournament.format}#INTENTS", "sk": f"{tournament.date}#{tournament.event_key}#{digest}"}


def _intent_item(tournament: ParsedTournament, digest: str) -> dict[str, Any]:
    return {
        **_intent_key(tournament, digest),
        "source_file": tournament.source_file,
        "started_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }


def _day_item(
    fmt: str,
    date: str,
    version: int,
    digests: dict[str, str],
    day_format: dict[str, Any],
    card_parts: dict[str, list[bytes]],
) -> tuple[dict[str, Any], list[bytes]]:
    """The day item (its first data part in what its event list leaves of an item) and its format data parts."""
    day_item: dict[str, Any] = {
        "pk": f"FMT#{fmt}",
        "sk": f"DAY#{date}",
        "version": version,
        "digests": digests,
        "tournaments": day_format.get("tournaments", 0),
        "decks": day_format.get("decks", 0),
        "matches": day_format.get("matches", 0),
        "archetype_names": sorted(card_parts) or ["-"],
        "parts": 0,
        "archetype_parts": {arch: len(parts) for arch, parts in card_parts.items() if len(parts) > 1},
    }
    room = MAX_ITEM_BYTES - item_size(day_item) - len("data") - _DAY_ITEM_MARGIN
    format_parts = split_aggregate(day_format, FORMAT_SECTIONS, first_max_bytes=max(room, 1024))
    day_item.update(data=format_parts[0], parts=len(format_parts))
    return day_item, format_parts


def _refused(exc: ClientError) -> bool:
    """DynamoDB refused the request for what it held (an item too large): no retry can fix it."""
    return exc.response.get("Error", {}).get("Code") == "ValidationException"


def _part_sk(sk: str, part: int) -> str:
    """The sort key of a day item's ``part``-th part (the first is the day item itself)."""
    return sk if part == 1 else f"{sk}#{part}"


def _is_part(sk: str) -> bool:
    """Whether a ``DAY#`` sort key is a further part of a day, not the day itself."""
    return sk.count("#") > 1


def item_size(item: dict[str, Any]) -> int:
    """An item's size as DynamoDB counts it: attribute names plus values (UTF-8 text, binaries, numbers,
    lists and maps with their overhead), an upper bound for the items written here."""
    return sum(len(name.encode()) + _value_size(value) for name, value in item.items())


def _value_size(value: Any) -> int:
    if isinstance(value, str):
        return len(value.encode())
    if hasattr(value, "value") and isinstance(value.value, bytes):  # boto3's Binary
        return len(value.value)
    if isinstance(value, bytes | bytearray):
        return len(value)
    if isinstance(value, dict):
        return 3 + sum(len(str(k).encode()) + _value_size(v) + 1 for k, v in value.items())
    if isinstance(value, list | set | frozenset):
        return 3 + sum(_value_size(v) + 1 for v in value)
    return len(str(value)) + 1


def _unchanged_since(version: int | None) -> Any:
    """The condition that an item is still as read: absent (None), unversioned (0) or at ``version``."""
    if version is None:
        return Attr("pk").not_exists()
    return Attr("version").not_exists() if version == 0 else Attr("version").eq(version)


def _condition_failed(exc: ClientError) -> bool:
    return exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException"


def _cancelled_by_condition(exc: ClientError) -> bool:
    """A transaction cancelled because one of its conditions failed."""
    return exc.response.get("Error", {}).get("Code") == "TransactionCanceledException" and any(
        reason.get("Code") == "ConditionalCheckFailed" for reason in exc.response.get("CancellationReasons", [])
    )


def _transaction_chunks(actions: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """``actions`` in transactions within DynamoDB's item and size limits."""
    chunks: list[list[dict[str, Any]]] = [[]]
    size = 0
    for action in actions:
        item = action.get("Put", {}).get("Item", {})
        weight = len(item.get("data", b"")) + 200
        if len(chunks[-1]) == _TRANSACTION_ITEMS or (chunks[-1] and size + weight > _TRANSACTION_BYTES):
            chunks.append([])
            size = 0
        chunks[-1].append(action)
        size += weight
    return [chunk for chunk in chunks if chunk]


def _provisional_key(fmt: str) -> dict[str, str]:
    return {"pk": f"FMT#{fmt}#PROVISIONAL", "sk": "RULES"}


def _cursor_key(repository: str, branch: str) -> dict[str, str]:
    return {"pk": f"SYNC#{repository}#{branch}", "sk": "cursor"}


def _stored_deck(header: dict[str, Any], item: dict[str, Any]) -> StoredDeck:
    cards = json.loads(item["cards"])
    return StoredDeck(
        event_key=header["pk"].removeprefix("EVENT#"),
        event_name=header["name"],
        date=header["date"],
        player=item["player"],
        placing=item["placing"],
        archetype=item["archetype"],
        colors=item["colors"],
        mainboard={name: int(count) for name, count in cards["mainboard"].items()},
        sideboard={name: int(count) for name, count in cards["sideboard"].items()},
    )
