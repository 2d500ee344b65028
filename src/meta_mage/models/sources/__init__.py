"""The tournament sources the ingest reads, one module each; every question about a source asks this registry.

Adding a source is one module declaring its :class:`SourceReader` and one entry in ``SOURCES``. A file no
source recognises is read all the same, as ``UNLISTED`` ("other"), its event named by a digest of its Uri.
"""

from __future__ import annotations

import re

from meta_mage.models.sources.melee import MELEE
from meta_mage.models.sources.mtgo import MTGO
from meta_mage.models.sources.reader import Quirk, SourceReader

SOURCES: tuple[SourceReader, ...] = (MTGO, MELEE)

UNLISTED = SourceReader(
    kind="other",
    host="",
    folders=(),
    key_prefix="uri",
    event_id=re.compile(r"(?!)"),  # names no event: the ingest keys it by a digest of its Uri
    matches_of="matches of",
    event="other event",
    events="other events",
)


def source_of_uri(uri: str) -> SourceReader:
    """The source whose files hold ``uri`` (a file's ``Tournament.Uri``), else ``UNLISTED``."""
    return next((reader for reader in SOURCES if reader.recognises(uri)), UNLISTED)


def event_key_of_uri(uri: str) -> str | None:
    """The event key the first source naming an event in ``uri`` gives it, or None."""
    return next((key for reader in SOURCES if (key := reader.event_key(uri))), None)


def source_of_folder(folder: str) -> SourceReader | None:
    """The source whose upstream folder (``Tournaments/<folder>/``) this is, or None."""
    return next((reader for reader in SOURCES if reader.holds_folder(folder)), None)


def source_of_kind(kind: str) -> SourceReader:
    """The source stored as ``kind`` (a tournament's ``source``), else ``UNLISTED``."""
    return next((reader for reader in SOURCES if reader.kind == kind), UNLISTED)


def listed_kinds() -> tuple[str, ...]:
    """Every kind a tournament may be stored under, the registry's order, ``other`` last."""
    return (*(reader.kind for reader in SOURCES), UNLISTED.kind)


__all__ = [
    "MELEE",
    "MTGO",
    "SOURCES",
    "UNLISTED",
    "Quirk",
    "SourceReader",
    "event_key_of_uri",
    "listed_kinds",
    "source_of_folder",
    "source_of_kind",
    "source_of_uri",
]
