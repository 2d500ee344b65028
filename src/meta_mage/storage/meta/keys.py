"""Every key and item schema of the MetaTable (``pk`` / ``sk``):

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
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from typing import Any

from meta_mage.models.tournaments import ParsedDeck, ParsedTournament
from meta_mage.storage.dynamo import Item
from meta_mage.storage.meta.records import DayState, WriteIntent
from meta_mage.storage.shards import FORMAT_SECTIONS, split_aggregate

BATCH_GET_LIMIT = 100
MAX_ITEM_BYTES = 400 * 1024  # DynamoDB's item size limit

# A day item lists the events it counts with their versions (``digests``: event key -> version). An event key
# is at most 487 characters (``mtgo:`` and the digits of a 500-character URI), so at this cap the day item
# without its data is at most 256,124 bytes (measured); the day's first data part takes what is left of the item
# (``DAY_ITEM_MARGIN`` spare, at least 146 KB) and its further parts the rest. The busiest real day of a format
# holds about 20 events (about 1.2 KB).
MAX_EVENTS_PER_DAY = 500
DAY_ITEM_MARGIN = 4 * 1024

HEADER_SK = "#HEADER"
REGISTRY_PK = "FORMATS"
LOOKALIKES_SK = "LOOKALIKES"
SEED_KEY = {"pk": "SEED", "sk": "demo"}


def event_pk(event_key: str) -> str:
    return f"EVENT#{event_key}"


def header_key(event_key: str) -> dict[str, str]:
    return {"pk": event_pk(event_key), "sk": HEADER_SK}


def events_pk(fmt: str) -> str:
    """The partition of a format's event aggregates."""
    return f"FMT#{fmt}#EVENTS"


def aggregate_key(fmt: str, date: str, event_key: str) -> dict[str, str]:
    return {"pk": events_pk(fmt), "sk": f"{date}#{event_key}"}


def intents_pk(fmt: str) -> str:
    return f"FMT#{fmt}#INTENTS"


def intent_key(fmt: str, date: str, event_key: str, digest: str) -> dict[str, str]:
    return {"pk": intents_pk(fmt), "sk": f"{date}#{event_key}#{digest}"}


def day_pk(fmt: str) -> str:
    return f"FMT#{fmt}"


def day_key(fmt: str, date: str) -> dict[str, str]:
    return {"pk": day_pk(fmt), "sk": f"DAY#{date}"}


def archetype_pk(fmt: str, archetype: str) -> str:
    return f"ARCH#{fmt}#{archetype}"


def part_sk(sk: str, part: int) -> str:
    """The sort key of a day item's ``part``-th part (the first is the day item itself)."""
    return sk if part == 1 else f"{sk}#{part}"


def is_part(sk: str) -> bool:
    """Whether a ``DAY#`` sort key is a further part of a day, not the day itself."""
    return sk.count("#") > 1


def deck_version(sk: str) -> str:
    """The event version a ``DECK#<digest>#<n>`` sort key belongs to."""
    return sk[5:].rpartition("#")[0]


def registry_key(fmt: str) -> dict[str, str]:
    return {"pk": REGISTRY_PK, "sk": fmt}


def models_pk(fmt: str) -> str:
    return f"FMT#{fmt}#MODELS"


def model_key(fmt: str, days: int) -> dict[str, str]:
    return {"pk": models_pk(fmt), "sk": f"{days:03d}"}


def provisional_key(fmt: str) -> dict[str, str]:
    return {"pk": f"FMT#{fmt}#PROVISIONAL", "sk": "RULES"}


def cursor_key(repository: str, branch: str) -> dict[str, str]:
    return {"pk": f"SYNC#{repository}#{branch}", "sk": "cursor"}


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def deck_item(pk: str, digest: str, index: int, deck: ParsedDeck) -> Item:
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


IDENTITY_FIELDS = ("format", "date", "name", "uri", "source", "source_file")
"""What a header says of its event besides its deck count (the aggregate carries it too, so ``repair`` can
commit from it)."""


def event_identity(tournament: ParsedTournament) -> Item:
    return {name: getattr(tournament, name) for name in IDENTITY_FIELDS} | {"decks": len(tournament.decks)}


def intent_item(intent: WriteIntent) -> Item:
    """An intent item; its ``failed`` reason only when it has one."""
    item = {
        **intent_key(intent.format, intent.date, intent.event_key, intent.digest),
        "source_file": intent.source_file,
        "started_at": now(),
    }
    return item | {"failed": intent.failed} if intent.failed else item


def day_item(
    fmt: str, date: str, version: int, digests: dict[str, str], day_format: Item, card_parts: dict[str, list[bytes]]
) -> tuple[Item, list[bytes]]:
    """The day item (its first data part in what its event list leaves of an item) and its format data parts."""
    item: Item = {
        **day_key(fmt, date),
        "version": version,
        "digests": digests,
        "tournaments": day_format.get("tournaments", 0),
        "decks": day_format.get("decks", 0),
        "matches": day_format.get("matches", 0),
        "archetype_names": sorted(card_parts) or ["-"],
        "parts": 0,
        "archetype_parts": {arch: len(parts) for arch, parts in card_parts.items() if len(parts) > 1},
    }
    room = MAX_ITEM_BYTES - item_size(item) - len("data") - DAY_ITEM_MARGIN
    format_parts = split_aggregate(day_format, FORMAT_SECTIONS, first_max_bytes=max(room, 1024))
    item.update(data=format_parts[0], parts=len(format_parts))
    return item, format_parts


DAY_STATE = (
    "version, events, digests, tournaments, decks, matches, archetype_names, archetypes_version, parts, archetype_parts"
)


def day_state_of(item: Item) -> DayState:
    # ``events``: days written before the event list was kept as ``digests`` alone
    events: Iterable[str] = item["events"] if "events" in item else item.get("digests", {})
    return DayState(
        version=int(item.get("version", 0)),
        events=frozenset(events),
        tournaments=int(item.get("tournaments", 0)),
        decks=int(item.get("decks", 0)),
        archetypes=frozenset(item.get("archetype_names", [])) - {"-"},
        archetypes_version=int(item.get("archetypes_version", 0)),
        digests={key: str(value) for key, value in item.get("digests", {}).items()},
        parts=int(item.get("parts", 1)),
        archetype_parts={name: int(n) for name, n in item.get("archetype_parts", {}).items()},
        matches=int(item.get("matches", 0)),
    )


def item_size(item: Item) -> int:
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
