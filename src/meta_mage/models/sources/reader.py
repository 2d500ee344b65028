"""What a tournament source declares: how its files are recognised, how its events are named, what they hold."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Quirk(StrEnum):
    """A fact about a source's files that the parse or the words about them must allow for."""

    PLAYOFFS_ONLY = "lists only its top-8 playoff matches (7 an event), not its Swiss rounds"
    SWISS_AND_PLAYOFFS = "lists its Swiss rounds and its playoffs"
    DRAW_LISTED_TWICE = "lists a drawn match once for each player"
    BYE_AGAINST_DASH = "lists a bye (2-0-0) or an assigned loss (0-2-0) as a match against '-'"
    TIMES_IN_DATES = "gives Tournament.Date with a time of day and a UTC offset"


@dataclass(frozen=True)
class SourceReader:
    """One tournament source of MTGODecklistCache-shaped files (``models.tournament_file``).

    A file is the source's when its ``Tournament.Uri`` holds ``host``, or (upstream) when it sits under one of
    ``folders`` (``Tournaments/<folder>/``); its event is named ``<key_prefix>:<id>`` by ``event_id``'s first
    group, so re-dated or renamed copies of one event are one event."""

    kind: str  # stored as the tournament's source and counted by it in aggregates: "MTGO", "melee"
    host: str  # found in the Uri of every file of the source (case as the source writes it)
    folders: tuple[str, ...]  # upstream folder names, as the caches spell them
    key_prefix: str
    event_id: re.Pattern[str]  # searched in the Uri; group 1 is the event's id
    matches_of: str  # "top-8 playoff matches of": what a window's matches from the source are
    event: str  # one event, "MTGO Challenge"
    events: str  # several, "MTGO Challenges"
    quirks: frozenset[Quirk] = frozenset()

    def recognises(self, uri: str) -> bool:
        return self.host in uri

    def event_key(self, uri: str) -> str | None:
        """``<key_prefix>:<id>`` when the Uri names one of the source's events, else None."""
        match = self.event_id.search(uri)
        return f"{self.key_prefix}:{match.group(1)}" if match else None

    def holds_folder(self, folder: str) -> bool:
        return folder.lower() in (name.lower() for name in self.folders)
