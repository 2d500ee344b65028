"""MetaTable repository: events, decks, per-event and per-day aggregates, the format registry.

Keys (``pk`` / ``sk``):

- ``EVENT#<event_key>`` / ``#HEADER``: the event's identity and digest, written last (commit marker)
- ``EVENT#<event_key>`` / ``DECK#0001``: one decklist with its archetype
- ``FMT#<format>#EVENTS`` / ``<date>#<event_key>``: the event's aggregate (compressed)
- ``FMT#<format>`` / ``DAY#<date>``: the sum of that day's event aggregates
- ``ARCH#<format>#<archetype>`` / ``DAY#<date>``: that archetype's card statistics for the day
- ``FORMATS`` / ``<format>``: first and last date and totals of a format
- ``SEED`` / ``demo``: the digest of the bundled demo data last loaded (``local/seed.py``), written last
- ``SYNC#<owner>/<repo>#<branch>`` / ``cursor``: the last commit a sync (``sync/run.py``) stored every file of

Every read tool is one ``Query`` on a ``FMT#`` or ``ARCH#`` partition over a date range, so its
cost depends on the window length, not on the number of tournaments.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import ClientError

from meta_mage.errors import MetaMageError, StorageUnavailable
from meta_mage.models.aggregates import merge
from meta_mage.models.meta import FormatSummary
from meta_mage.models.tournaments import ParsedDeck, ParsedTournament
from meta_mage.storage.dynamo import pack, query_all, storage_operation, unpack

_BATCH_GET_LIMIT = 100
MAX_ITEM_BYTES = 400 * 1024  # DynamoDB's item size limit
_DAY_WRITE_ATTEMPTS = 12  # conditional writes lost to other writers of the same day before giving up
_TRANSACTION_ITEMS = 99  # DynamoDB's 100, less the check that the day is still at the version written
_TRANSACTION_BYTES = 3_500_000  # DynamoDB's limit is 4 MB per transaction


class ItemTooLarge(MetaMageError):
    """An item would pass DynamoDB's item size limit: the input is at fault, not DynamoDB."""

    code = "item_too_large"


@dataclass(frozen=True)
class DayAggregate:
    date: str
    data: dict[str, Any]


@dataclass(frozen=True)
class DayState:
    """What a stored day item says of itself: its version and the events it counts."""

    version: int  # 0: written before days carried versions
    events: frozenset[str]
    tournaments: int
    decks: int
    archetypes: frozenset[str]
    archetypes_version: int  # the version whose archetype items are all written

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


class MetaRepository:
    """All reads and writes of the MetaTable."""

    def __init__(self, table: Any) -> None:
        self.table = table

    # --- events -------------------------------------------------------------------------

    @storage_operation
    def get_event_header(self, event_key: str) -> dict[str, Any] | None:
        item = self.table.get_item(Key={"pk": f"EVENT#{event_key}", "sk": "#HEADER"}).get("Item")
        return dict(item) if item else None

    @storage_operation
    def write_event(
        self,
        tournament: ParsedTournament,
        format_part: dict[str, Any],
        card_parts: dict[str, dict[str, Any]],
        replacing: bool = False,
    ) -> None:
        """Write an event's decks and aggregate (not yet its header); ``ItemTooLarge`` before writing
        anything when one of its items would pass DynamoDB's item size limit."""
        pk = f"EVENT#{tournament.event_key}"
        decks = [_deck_item(pk, index, deck) for index, deck in enumerate(tournament.decks, start=1)]
        aggregate = {
            "pk": f"FMT#{tournament.format}#EVENTS",
            "sk": f"{tournament.date}#{tournament.event_key}",
            "data": pack({"format": format_part, "cards": card_parts}),
        }
        named = [(f"the deck of {deck['player']!r}", deck) for deck in decks] + [("its aggregate", aggregate)]
        for what, item in named:
            if (size := item_size(item)) > MAX_ITEM_BYTES:
                raise ItemTooLarge(
                    f"{what} would be stored as {size / 1024:,.0f} KB, over DynamoDB's "
                    f"{MAX_ITEM_BYTES // 1024} KB item limit"
                )
        new_keys = {deck["sk"] for deck in decks}
        stale = (
            [
                item["sk"]
                for item in query_all(
                    self.table,
                    KeyConditionExpression=Key("pk").eq(pk) & Key("sk").begins_with("DECK#"),
                    ProjectionExpression="sk",
                )
                if item["sk"] not in new_keys
            ]
            if replacing
            else []
        )
        with self.table.batch_writer(overwrite_by_pkeys=["pk", "sk"]) as batch:
            for deck in decks:
                batch.put_item(Item=deck)
            for sk in stale:
                batch.delete_item(Key={"pk": pk, "sk": sk})
            batch.put_item(Item=aggregate)

    @storage_operation
    def put_event_header(self, tournament: ParsedTournament, digest: str) -> None:
        self.table.put_item(
            Item={
                "pk": f"EVENT#{tournament.event_key}",
                "sk": "#HEADER",
                "format": tournament.format,
                "date": tournament.date,
                "name": tournament.name,
                "uri": tournament.uri,
                "source": tournament.source,
                "source_file": tournament.source_file,
                "digest": digest,
                "decks": len(tournament.decks),
            }
        )

    # --- day aggregates -------------------------------------------------------------------

    @storage_operation
    def committed_events(self, event_keys: Collection[str]) -> set[str]:
        """Those of ``event_keys`` whose header (the commit marker) is stored (BatchGetItem)."""
        wanted = list(dict.fromkeys(event_keys))
        found: set[str] = set()
        client = self.table.meta.client
        for start in range(0, len(wanted), _BATCH_GET_LIMIT):
            keys = [{"pk": f"EVENT#{key}", "sk": "#HEADER"} for key in wanted[start : start + _BATCH_GET_LIMIT]]
            request: dict[str, Any] = {
                self.table.name: {"Keys": keys, "ProjectionExpression": "pk", "ConsistentRead": True}
            }
            while request:
                response = client.batch_get_item(RequestItems=request)
                for item in response.get("Responses", {}).get(self.table.name, []):
                    found.add(item["pk"].removeprefix("EVENT#"))
                request = response.get("UnprocessedKeys") or {}
        return found

    @storage_operation
    def day_state(self, fmt: str, date: str) -> DayState | None:
        """The stored day's version, the events it counts and its totals (a consistent read), or None."""
        item = self.table.get_item(
            Key={"pk": f"FMT#{fmt}", "sk": f"DAY#{date}"},
            ConsistentRead=True,
            ProjectionExpression="version, events, tournaments, decks, archetype_names, archetypes_version",
        ).get("Item")
        if item is None:
            return None
        return DayState(
            version=int(item.get("version", 0)),
            events=frozenset(item.get("events", [])),
            tournaments=int(item.get("tournaments", 0)),
            decks=int(item.get("decks", 0)),
            archetypes=frozenset(item.get("archetype_names", [])) - {"-"},
            archetypes_version=int(item.get("archetypes_version", 0)),
        )

    @storage_operation
    def stored_event_days(self, fmt: str, since: str = "") -> dict[str, set[str]]:
        """Every date of ``fmt`` on or after ``since`` with the event keys whose aggregates are stored."""
        items = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(f"FMT#{fmt}#EVENTS") & Key("sk").gte(since or "0"),
            ProjectionExpression="sk",
            ConsistentRead=True,
        )
        days: dict[str, set[str]] = {}
        for item in items:
            date, key = item["sk"].split("#", 1)
            days.setdefault(date, set()).add(key)
        return days

    @storage_operation
    def rebuild_day(self, fmt: str, date: str, including: Collection[str] = ()) -> DayRebuild:
        """Recompute a day's aggregates from the event aggregates stored for that day; safe against
        concurrent writers of the same day.

        The day counts the events it counted before, the committed ones (with a header) and
        ``including`` (the events this ingest commits next). Its write is conditional on the version
        read, so two writers of one day cannot both succeed from the same state: the loser reads the
        winner's day (and its events) and tries again. An event whose ingest failed before the day
        counted it and before its header is not counted until a retry commits it."""
        for attempt in range(_DAY_WRITE_ATTEMPTS):
            before = self.day_state(fmt, date)
            stored = query_all(
                self.table,
                KeyConditionExpression=Key("pk").eq(f"FMT#{fmt}#EVENTS") & Key("sk").begins_with(f"{date}#"),
                ConsistentRead=True,
            )
            keys = {item["sk"].split("#", 1)[1] for item in stored}
            counted = (set(including) | (before.events if before else set())) & keys
            counted |= self.committed_events(keys - counted)
            day_format: dict[str, Any] = {}
            day_cards: dict[str, dict[str, Any]] = {}
            for item in stored:
                if item["sk"].split("#", 1)[1] not in counted:
                    continue
                data = unpack(item["data"])
                merge(day_format, data["format"])
                for arch, stats in data["cards"].items():
                    merge(day_cards.setdefault(arch, {}), stats)
            version = (before.version if before else 0) + 1
            day_item = {
                "pk": f"FMT#{fmt}",
                "sk": f"DAY#{date}",
                "version": version,
                "events": sorted(counted),
                "tournaments": day_format.get("tournaments", 0),
                "decks": day_format.get("decks", 0),
                "matches": day_format.get("matches", 0),
                "archetype_names": sorted(day_cards) or ["-"],
                "data": pack(day_format),
            }
            expected = _unchanged_since(before.version if before else None)
            try:
                self.table.put_item(Item=day_item, ConditionExpression=expected)
            except ClientError as exc:
                if not _condition_failed(exc):
                    raise
                time.sleep(random.uniform(0, 0.02 * 2**attempt))  # another writer of this day won: read its day
                continue
            gone = (before.archetypes if before else frozenset()) - set(day_cards)
            self._write_archetype_days(fmt, date, version, day_cards, gone)
            return DayRebuild(fmt, date, before, frozenset(counted), day_item["tournaments"], day_item["decks"])
        raise StorageUnavailable(
            f"{fmt} {date}: the day changed under this write {_DAY_WRITE_ATTEMPTS} times in a row; run it again"
        )

    def _write_archetype_days(
        self, fmt: str, date: str, version: int, day_cards: dict[str, dict[str, Any]], gone: Collection[str]
    ) -> None:
        """Write a day's per-archetype items as of day ``version``, then mark the day as complete.

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
        # the resource's client takes Python values, as the table does
        actions: list[dict[str, Any]] = [
            {
                "Put": {
                    "TableName": self.table.name,
                    "Item": {"pk": f"ARCH#{fmt}#{arch}", "sk": f"DAY#{date}", "data": pack(stats)},
                }
            }
            for arch, stats in sorted(day_cards.items())
        ]
        actions += [
            {"Delete": {"TableName": self.table.name, "Key": {"pk": f"ARCH#{fmt}#{arch}", "sk": f"DAY#{date}"}}}
            for arch in sorted(gone)
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
            if _condition_failed(exc) or (
                exc.response.get("Error", {}).get("Code") == "TransactionCanceledException"
                and any(
                    reason.get("Code") == "ConditionalCheckFailed"
                    for reason in exc.response.get("CancellationReasons", [])
                )
            ):
                return  # a newer rebuild of this day writes (or wrote) every archetype item itself
            raise

    @storage_operation
    def refresh_format(self, fmt: str) -> None:
        """Recompute the format's registry entry from its day items (ingest only), conditional on the
        version read, so concurrent ingests of one format cannot leave an older total last.

        Days whose events hold no deck count towards the totals but never set the format's first or
        last date (the default windows end at the last date)."""
        for attempt in range(_DAY_WRITE_ATTEMPTS):
            previous = self.table.get_item(Key={"pk": "FORMATS", "sk": fmt}, ConsistentRead=True).get("Item")
            days = query_all(
                self.table,
                KeyConditionExpression=Key("pk").eq(f"FMT#{fmt}") & Key("sk").begins_with("DAY#"),
                ProjectionExpression="sk, tournaments, decks, matches",
                ConsistentRead=True,
            )
            with_decks = [day for day in days if int(day["decks"]) > 0]
            expected = _unchanged_since(int(previous.get("version", 0)) if previous else None)
            if not previous and not with_decks:
                return
            summary = (
                {
                    "first_date": with_decks[0]["sk"][4:],
                    "last_date": with_decks[-1]["sk"][4:],
                    "tournaments": sum(int(d["tournaments"]) for d in days),
                    "decks": sum(int(d["decks"]) for d in days),
                    "matches": sum(int(d["matches"]) for d in days),
                }
                if with_decks
                else {}
            )
            if previous and summary and all(previous.get(key) == value for key, value in summary.items()):
                return  # nothing changed: no write
            try:
                if not with_decks:
                    self.table.delete_item(Key={"pk": "FORMATS", "sk": fmt}, ConditionExpression=expected)
                    return
                version = int(previous.get("version", 0)) + 1 if previous else 1
                self.table.put_item(
                    Item={"pk": "FORMATS", "sk": fmt, "version": version, **summary}, ConditionExpression=expected
                )
                return
            except ClientError as exc:
                if not _condition_failed(exc):
                    raise
                time.sleep(random.uniform(0, 0.02 * 2**attempt))
        raise StorageUnavailable(f"{fmt}: the format registry changed under this write {_DAY_WRITE_ATTEMPTS} times")

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
            decks.extend(
                _stored_deck(header, item) for item in items if item["sk"].startswith("DECK#") and item["archetype"]
            )
        return decks

    def _days(self, pk: str, start: str, end: str) -> list[DayAggregate]:
        items = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(pk) & Key("sk").between(f"DAY#{start}", f"DAY#{end}"),
            ProjectionExpression="sk, #d",
            ExpressionAttributeNames={"#d": "data"},
        )
        return [DayAggregate(item["sk"][4:], unpack(item["data"])) for item in items]

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


def _deck_item(pk: str, index: int, deck: ParsedDeck) -> dict[str, Any]:
    return {
        "pk": pk,
        "sk": f"DECK#{index:04d}",
        "player": deck.player,
        "placing": deck.placing,
        "archetype": deck.archetype or "",
        "colors": deck.colors,
        # One JSON string, not nested maps: smaller and much cheaper to write.
        "cards": json.dumps(
            {"mainboard": deck.mainboard, "sideboard": deck.sideboard}, separators=(",", ":"), ensure_ascii=False
        ),
    }


def item_size(item: dict[str, Any]) -> int:
    """An item's size as DynamoDB counts it (names plus values, UTF-8), for the flat items written here."""
    size = 0
    for name, value in item.items():
        size += len(name.encode())
        if isinstance(value, str):
            size += len(value.encode())
        elif isinstance(value, bytes):
            size += len(value)
        elif isinstance(value, list):
            size += 3 + sum(len(str(v).encode()) + 1 for v in value)
        else:
            size += len(str(value)) + 1
    return size


def _unchanged_since(version: int | None) -> Any:
    """The condition that an item is still as read: absent (None), unversioned (0) or at ``version``."""
    if version is None:
        return Attr("pk").not_exists()
    return Attr("version").not_exists() if version == 0 else Attr("version").eq(version)


def _condition_failed(exc: ClientError) -> bool:
    return exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException"


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
