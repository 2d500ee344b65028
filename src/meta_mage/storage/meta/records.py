"""What the MetaTable's reads return and its writes refuse: typed values, no raw items."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from meta_mage.errors import MetaMageError


class ItemTooLarge(MetaMageError):
    """An item would pass DynamoDB's item size limit: the input is at fault, not DynamoDB."""

    code = "item_too_large"


class DayFull(MetaMageError):
    """A format's day already counts :data:`MAX_EVENTS_PER_DAY` events: the input is at fault."""

    code = "day_full"


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
class EventVersion:
    """A stored event version's identity: what an event aggregate carries (``repair`` commits an interrupted
    write from it) and a header commits."""

    format: str
    date: str
    event_key: str
    digest: str
    decks: int  # -1: not stored (an aggregate)
    name: str = ""
    uri: str = ""
    source: str = "other"
    source_file: str = ""


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
    header: EventVersion | None  # what its header commits
    deck_versions: dict[str, int]  # digest ("" for decks written before versions) -> deck items


CommitOutcome = Literal["committed", "replaced", "unchanged", "superseded"]
