"""Event versions: their intents, decks and aggregates written, committed by the header, and deleted."""

from __future__ import annotations

from collections.abc import Collection

from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError

from meta_mage.models.aggregates import EventAggregate
from meta_mage.models.tournaments import ParsedDeck, ParsedTournament
from meta_mage.storage.dynamo import Item, pack, query_all, storage_operation
from meta_mage.storage.meta.aggregate_items import event_json
from meta_mage.storage.meta.keys import (
    BATCH_GET_LIMIT,
    HEADER_SK,
    MAX_ITEM_BYTES,
    aggregate_key,
    deck_item,
    deck_version,
    event_identity,
    event_pk,
    events_pk,
    header_key,
    intent_item,
    intent_key,
    intents_pk,
    item_size,
)
from meta_mage.storage.meta.records import (
    CommitOutcome,
    EventVersion,
    ItemTooLarge,
    StoredAggregate,
    StoredEvent,
    WriteIntent,
)
from meta_mage.storage.meta.writes import TableAccess, cancellation_reasons


class EventWrites(TableAccess):
    """Writes, commits, reads and deletes of event versions."""

    @storage_operation
    def get_event_header(self, event_key: str) -> Item | None:
        item = self.table.get_item(Key=header_key(event_key), ConsistentRead=True).get("Item")
        return dict(item) if item else None

    @storage_operation
    def write_event(self, tournament: ParsedTournament, digest: str, aggregate: EventAggregate) -> None:
        """Write one version of an event: its intent, its decks, then its aggregate (not yet its header).

        ``ItemTooLarge`` before writing anything when one of its items would pass DynamoDB's item size limit.
        The decks are keyed by the version, so two versions written at once never mix; the aggregate is
        written last, so a stored aggregate means every deck of its version is stored."""
        pk = event_pk(tournament.event_key)
        decks = [deck_item(pk, digest, index, deck) for index, deck in enumerate(tournament.decks, start=1)]
        stored = {
            **aggregate_key(tournament.format, tournament.date, tournament.event_key),
            "digest": digest,
            **event_identity(tournament),
            "data": pack(event_json(aggregate)),
        }
        named = [(f"the deck of {deck['player']!r}", deck) for deck in decks] + [("its aggregate", stored)]
        for what, item in named:
            if (size := item_size(item)) > MAX_ITEM_BYTES:
                raise ItemTooLarge(
                    f"{what} would be stored as {size / 1024:,.0f} KB, over DynamoDB's "
                    f"{MAX_ITEM_BYTES // 1024} KB item limit"
                )
        intent = WriteIntent(tournament.format, tournament.date, tournament.event_key, digest, tournament.source_file)
        self.table.put_item(Item=intent_item(intent))
        with self.table.batch_writer(overwrite_by_pkeys=["pk", "sk"]) as batch:
            for deck in decks:
                batch.put_item(Item=deck)
        self.table.put_item(Item=stored)

    @storage_operation
    def commit_event(self, tournament: ParsedTournament, digest: str) -> CommitOutcome:
        """Write the event's header (its commit marker) and drop its intent, in one transaction that checks the
        stored aggregate is this version; then delete the decks of every other version.

        ``replaced``: committed over another committed version; ``superseded``: another writer stored another
        version of the event meanwhile (it commits its own); ``unchanged``: another writer committed this very
        version meanwhile."""
        client = self.table.meta.client
        previous = self.get_event_header(tournament.event_key)
        header = {**header_key(tournament.event_key), "digest": digest, **event_identity(tournament)}
        own_intent = intent_key(tournament.format, tournament.date, tournament.event_key, digest)
        try:
            client.transact_write_items(
                TransactItems=[
                    {
                        "ConditionCheck": {
                            "TableName": self.table.name,
                            "Key": aggregate_key(tournament.format, tournament.date, tournament.event_key),
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
                    {"Delete": {"TableName": self.table.name, "Key": own_intent}},
                ]
            )
        except ClientError as exc:
            reasons = cancellation_reasons(exc)
            if reasons is None:
                raise
            if reasons[:1] == ["ConditionalCheckFailed"]:  # drop what this version wrote: the other one stays
                self.delete_version(tournament.format, tournament.date, tournament.event_key, digest)
                return "superseded"
            if reasons[1:2] == ["ConditionalCheckFailed"]:
                self.table.delete_item(Key=own_intent)
                return "unchanged"
            raise
        self.delete_other_versions(tournament.event_key, digest, tournament.format, tournament.date)
        return "replaced" if previous else "committed"

    @storage_operation
    def delete_other_versions(self, event_key: str, digest: str, fmt: str = "", date: str = "") -> int:
        """Delete the deck items of ``event_key`` that are not of version ``digest`` nor of a version another
        writer is writing now (an intent of ``fmt`` on ``date``); how many were deleted.

        The decks are read before the intents: a deck written meanwhile has its intent written before it."""
        pk = event_pk(event_key)
        decks = self._deck_keys(pk, "DECK#")
        writing = (
            {
                intent["sk"].rpartition("#")[2]
                for intent in query_all(
                    self.table,
                    KeyConditionExpression=Key("pk").eq(intents_pk(fmt))
                    & Key("sk").begins_with(f"{date}#{event_key}#"),
                    ProjectionExpression="sk",
                    ConsistentRead=True,
                )
            }
            if fmt
            else set()
        )
        kept = {digest} | writing
        stale = [sk for sk in decks if deck_version(sk) not in kept]
        self._delete_all(pk, stale)
        return len(stale)

    @storage_operation
    def delete_version(self, fmt: str, date: str, event_key: str, digest: str, keep_intent: bool = False) -> int:
        """Delete an uncommitted version's decks and its intent (``repair``; ``keep_intent``: a failed version's
        intent stays, naming its file); how many decks were deleted."""
        pk = event_pk(event_key)
        decks = self._deck_keys(pk, f"DECK#{digest}#")
        self._delete_all(pk, decks)
        if not keep_intent:
            self.table.delete_item(Key=intent_key(fmt, date, event_key, digest))
        return len(decks)

    def _deck_keys(self, pk: str, prefix: str) -> list[str]:
        items = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(pk) & Key("sk").begins_with(prefix),
            ProjectionExpression="sk",
            ConsistentRead=True,
        )
        return [str(item["sk"]) for item in items]

    def _delete_all(self, pk: str, sort_keys: list[str]) -> None:
        with self.table.batch_writer() as batch:
            for sk in sort_keys:
                batch.delete_item(Key={"pk": pk, "sk": sk})

    @storage_operation
    def delete_event(self, event_key: str) -> None:
        """Delete an event's header and every deck (``repair``, when its aggregate is lost)."""
        pk = event_pk(event_key)
        items = query_all(self.table, KeyConditionExpression=Key("pk").eq(pk), ProjectionExpression="sk")
        self._delete_all(pk, [str(item["sk"]) for item in items])

    @storage_operation
    def delete_aggregate(self, fmt: str, date: str, event_key: str) -> None:
        """Delete an event aggregate no header commits (``repair``)."""
        self.table.delete_item(Key=aggregate_key(fmt, date, event_key))

    @storage_operation
    def stored_event(self, event_key: str) -> StoredEvent:
        """The header and the deck versions of one event (one Query, no deck contents)."""
        items = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(event_pk(event_key)),
            ProjectionExpression="sk, digest, #f, #d, decks, source_file",
            ExpressionAttributeNames={"#f": "format", "#d": "date"},
            ConsistentRead=True,
        )
        header = next(
            (
                version_of(item, item.get("format", ""), item.get("date", ""), event_key, 0)
                for item in items
                if item["sk"] == HEADER_SK
            ),
            None,
        )
        versions: dict[str, int] = {}
        for item in items:
            if item["sk"].startswith("DECK#"):
                version = deck_version(item["sk"])
                versions[version] = versions.get(version, 0) + 1
        return StoredEvent(event_key, header, versions)

    @storage_operation
    def write_intents(self, fmt: str, since: str = "") -> list[WriteIntent]:
        """The event versions of ``fmt`` dated ``since`` or later whose write began and was not committed."""
        items = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(intents_pk(fmt)) & Key("sk").gte(since or "0"),
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
            KeyConditionExpression=Key("pk").eq(events_pk(fmt)) & Key("sk").gte(since or "0"),
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
    def aggregate_data(self, fmt: str, date: str, event_key: str) -> EventVersion | None:
        """One event aggregate's identity and version, without its data (``repair`` commits an interrupted
        write from it)."""
        item = self.table.get_item(
            Key=aggregate_key(fmt, date, event_key),
            ConsistentRead=True,
            ProjectionExpression="digest, decks, #n, uri, #s, source_file",
            ExpressionAttributeNames={"#n": "name", "#s": "source"},
        ).get("Item")
        return None if item is None else version_of(item, fmt, date, event_key, -1)

    @storage_operation
    def commit_stored_version(self, aggregate: EventVersion) -> CommitOutcome:
        """Commit the version whose aggregate is stored (``repair`` finishing an interrupted ingest)."""
        tournament = ParsedTournament(
            event_key=aggregate.event_key,
            name=aggregate.name,
            date=aggregate.date,
            format=aggregate.format,
            source=aggregate.source,
            uri=aggregate.uri,
            source_file=aggregate.source_file,
            decks=[ParsedDeck("", "", {}, {})] * max(aggregate.decks, 0),
        )
        return self.commit_event(tournament, aggregate.digest)

    @storage_operation
    def committed_events(self, event_keys: Collection[str]) -> dict[str, str]:
        """Those of ``event_keys`` whose header (the commit marker) is stored, with the version it commits."""
        wanted = list(dict.fromkeys(event_keys))
        found: dict[str, str] = {}
        client = self.table.meta.client
        for start in range(0, len(wanted), BATCH_GET_LIMIT):
            keys = [header_key(key) for key in wanted[start : start + BATCH_GET_LIMIT]]
            request: Item = {
                self.table.name: {"Keys": keys, "ProjectionExpression": "pk, digest", "ConsistentRead": True}
            }
            while request:
                response = client.batch_get_item(RequestItems=request)
                for item in response.get("Responses", {}).get(self.table.name, []):
                    found[item["pk"].removeprefix("EVENT#")] = str(item.get("digest", ""))
                request = response.get("UnprocessedKeys") or {}
        return found

    @storage_operation
    def put_failed_marker(self, intent: WriteIntent) -> None:
        """Store ``intent`` (its ``failed`` reason set) alone: ``repair`` names its file until it is ingested
        (an ingest of the same version puts its own intent over it; any commit of the event clears it)."""
        self.table.put_item(Item=intent_item(intent))

    @storage_operation
    def delete_intent(self, fmt: str, date: str, event_key: str, digest: str) -> None:
        self.table.delete_item(Key=intent_key(fmt, date, event_key, digest))


_VERSION_TEXTS = {"digest": "", "name": "", "uri": "", "source": "other", "source_file": ""}


def version_of(item: Item, fmt: str, date: str, event_key: str, no_decks: int) -> EventVersion:
    """The version an aggregate or header item names (``no_decks``: its deck count when it holds none)."""
    texts = {name: str(item.get(name, default)) for name, default in _VERSION_TEXTS.items()}
    return EventVersion(fmt, date, event_key, decks=int(item.get("decks", no_decks)), **texts)
