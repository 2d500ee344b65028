"""Provisional archetypes: a name for a cluster of lists no declared rule names, until a declared rule does.

A provisional archetype is a rule in the shape of ``Archetypes/*.json`` (found by ``ingest/provisional.py`` from
the lists the declared rules leave "Unknown" or to a catch-all) with the evidence it was named on. Its name is
plain text from its colours and its most distinctive card, and always ends in :data:`PROVISIONAL_MARKER`: the
stored archetype of its lists is that name, so every place that shows an archetype (rankings, matchups, what
to play, a pasted list's classification, the sync's report) shows the marker without knowing of it.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from meta_mage.archetypes.classifier import ArchetypeRule, parse_rule
from meta_mage.models.json import JsonObject
from meta_mage.storage.meta import MetaRepository

PROVISIONAL_MARKER = " (provisional)"
MAX_NAME_CHARS = 60  # a deck's name is a colour and a card's short name: the longest real one is about 35
UNNAMED_DECK = "Unnamed deck"
# Characters that format text in markdown, HTML or a terminal, or make a link of it, kept out of a name built
# from card names ("Circle of Protection: Red" loses its colon)
_MARKUP = re.compile(r"[*_`~#|<>\[\]{}()\\!=^$@&%+:/]")
_WINNER = re.compile(r"\s*1(?:st)?(?:\s|$)", re.IGNORECASE)


def plain_deck_name(text: str) -> str:
    """``text`` as plain text for a deck's name: NFKC-normalised, without control or format characters (bidi
    marks, zero-width joiners) or markup characters, its spaces collapsed, at most :data:`MAX_NAME_CHARS`."""
    normalised = unicodedata.normalize("NFKC", text)
    kept = "".join(" " if unicodedata.category(ch)[0] in "CZ" else ch for ch in normalised)
    words = _MARKUP.sub(" ", kept).split()
    return " ".join(words)[:MAX_NAME_CHARS].strip() or UNNAMED_DECK


def provisional_name(name: str) -> str:
    """``name`` as plain text with the provisional marker."""
    return plain_deck_name(name.removesuffix(PROVISIONAL_MARKER)) + PROVISIONAL_MARKER


def is_provisional(archetype: str) -> bool:
    """Whether a stored archetype name is a provisional archetype's."""
    return archetype.endswith(PROVISIONAL_MARKER)


def won_event(placing: str) -> bool:
    """Whether a deck's placing ("1st Place", "1") is its event's win."""
    return bool(_WINNER.match(placing))


@dataclass(frozen=True)
class ProvisionalArchetype:
    """One provisional archetype of a format: its rule body and the lists it was named on."""

    format: str
    name: str  # with PROVISIONAL_MARKER
    rule: JsonObject  # the ``Archetypes/*.json`` body, its Name being ``name``
    lists: int
    events: int
    players: int
    wins: int
    since: str  # the date it was first named (YYYY-MM-DD)

    def archetype_rule(self) -> ArchetypeRule:
        """The rule the classifier applies."""
        return parse_rule(self.rule, f"provisional archetype {self.name!r} of {self.format}")

    def line(self) -> str:
        """The sync report's line: "New deck: Izzet Cauldron (provisional), 23 lists from 9 events, 2 event wins"."""
        return (
            f"New deck: {self.name}, {_count(self.lists, 'list')} from {_count(self.events, 'event')}, "
            f"{_count(self.wins, 'event win')}"
        )

    def to_row(self) -> JsonObject:
        """The row stored (as JSON) in the format's provisional item: every field but the format, the item's key."""
        row = dataclasses.asdict(self)
        del row["format"]
        return row

    @classmethod
    def of_row(cls, fmt: str, row: JsonObject) -> ProvisionalArchetype:
        name = provisional_name(str(row["name"]))
        return cls(
            format=fmt,
            name=name,
            rule={**row["rule"], "Name": name, "IncludeColorInName": False},
            lists=int(row.get("lists", 0)),
            events=int(row.get("events", 0)),
            players=int(row.get("players", 0)),
            wins=int(row.get("wins", 0)),
            since=str(row.get("since", "")),
        )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def rules_by_format(archetypes: Iterable[ProvisionalArchetype]) -> dict[str, list[ArchetypeRule]]:
    """The classifier's provisional rules per format."""
    rules: dict[str, list[ArchetypeRule]] = {}
    for archetype in archetypes:
        rules.setdefault(archetype.format, []).append(archetype.archetype_rule())
    return rules


def stored_provisional(repository: MetaRepository, fmt: str) -> tuple[int, list[ProvisionalArchetype]]:
    """The version of ``fmt``'s stored provisional archetypes and the archetypes (one read)."""
    version, rows = repository.provisional_archetypes(fmt)
    return version, [ProvisionalArchetype.of_row(fmt, row) for row in rows]
