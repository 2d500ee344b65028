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
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import ClientError

from meta_mage.analytics.aggregate import merge
from meta_mage.models.meta import FormatSummary
from meta_mage.models.tournaments import ParsedTournament
from meta_mage.storage.dynamo import pack, query_all, storage_operation, unpack

_BATCH_GET_LIMIT = 100


@dataclass(frozen=True)
class DayAggregate:
    date: str
    data: dict[str, Any]


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
        """Write an event's decks and aggregate (not yet its header)."""
        pk = f"EVENT#{tournament.event_key}"
        new_keys = {f"DECK#{i:04d}" for i in range(1, len(tournament.decks) + 1)}
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
            for index, deck in enumerate(tournament.decks, start=1):
                batch.put_item(
                    Item={
                        "pk": pk,
                        "sk": f"DECK#{index:04d}",
                        "player": deck.player,
                        "placing": deck.placing,
                        "archetype": deck.archetype or "",
                        "colors": deck.colors,
                        # One JSON string, not nested maps: smaller and much cheaper to write.
                        "cards": json.dumps(
                            {"mainboard": deck.mainboard, "sideboard": deck.sideboard},
                            separators=(",", ":"),
                            ensure_ascii=False,
                        ),
                    }
                )
            for sk in stale:
                batch.delete_item(Key={"pk": pk, "sk": sk})
            batch.put_item(
                Item={
                    "pk": f"FMT#{tournament.format}#EVENTS",
                    "sk": f"{tournament.date}#{tournament.event_key}",
                    "data": pack({"format": format_part, "cards": card_parts}),
                }
            )

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
            request: dict[str, Any] = {self.table.name: {"Keys": keys, "ProjectionExpression": "pk"}}
            while request:
                response = client.batch_get_item(RequestItems=request)
                for item in response.get("Responses", {}).get(self.table.name, []):
                    found.add(item["pk"].removeprefix("EVENT#"))
                request = response.get("UnprocessedKeys") or {}
        return found

    @storage_operation
    def rebuild_day(self, fmt: str, date: str, committing: Collection[str] = ()) -> None:
        """Recompute a day's aggregates from the event aggregates stored for that day.

        Only committed events count (those with a header) plus ``committing``, the events whose
        headers this ingest writes next: an aggregate left by a run that failed before its header
        is not counted until a retry commits it."""
        stored = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(f"FMT#{fmt}#EVENTS") & Key("sk").begins_with(f"{date}#"),
        )
        event_keys = {item["sk"]: item["sk"].split("#", 1)[1] for item in stored}
        committed = set(committing) | self.committed_events(
            [key for key in event_keys.values() if key not in committing]
        )
        events = [item for item in stored if event_keys[item["sk"]] in committed]
        day_format: dict[str, Any] = {}
        day_cards: dict[str, dict[str, Any]] = {}
        for item in events:
            data = unpack(item["data"])
            merge(day_format, data["format"])
            for arch, stats in data["cards"].items():
                merge(day_cards.setdefault(arch, {}), stats)
        previous = self.table.get_item(Key={"pk": f"FMT#{fmt}", "sk": f"DAY#{date}"}).get("Item")
        old_archetypes = set(previous.get("archetype_names", [])) if previous else set()
        with self.table.batch_writer(overwrite_by_pkeys=["pk", "sk"]) as batch:
            for arch, stats in day_cards.items():
                batch.put_item(Item={"pk": f"ARCH#{fmt}#{arch}", "sk": f"DAY#{date}", "data": pack(stats)})
            for arch in old_archetypes - set(day_cards):
                batch.delete_item(Key={"pk": f"ARCH#{fmt}#{arch}", "sk": f"DAY#{date}"})
        if not events:
            self.table.delete_item(Key={"pk": f"FMT#{fmt}", "sk": f"DAY#{date}"})
            return
        self.table.put_item(
            Item={
                "pk": f"FMT#{fmt}",
                "sk": f"DAY#{date}",
                "tournaments": day_format.get("tournaments", 0),
                "decks": day_format.get("decks", 0),
                "matches": day_format.get("matches", 0),
                "archetype_names": sorted(day_cards) or ["-"],
                "data": pack(day_format),
            }
        )

    @storage_operation
    def refresh_format(self, fmt: str) -> None:
        """Recompute the format's registry entry from its day items (ingest only)."""
        days = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(f"FMT#{fmt}") & Key("sk").begins_with("DAY#"),
            ProjectionExpression="sk, tournaments, decks, matches",
        )
        if not days:
            self.table.delete_item(Key={"pk": "FORMATS", "sk": fmt})
            return
        self.table.put_item(
            Item={
                "pk": "FORMATS",
                "sk": fmt,
                "first_date": days[0]["sk"][4:],
                "last_date": days[-1]["sk"][4:],
                "tournaments": sum(int(d["tournaments"]) for d in days),
                "decks": sum(int(d["decks"]) for d in days),
                "matches": sum(int(d["matches"]) for d in days),
            }
        )

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
