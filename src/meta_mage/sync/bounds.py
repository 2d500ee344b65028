"""What a sync accepts from its upstream: file paths, sizes, compression ratios, time, and JSON it can decode.

Sizes, ratios and JSON are checked by the ingest's bounded reader (:mod:`meta_mage.ingest.bounded`), the same
as every file ingested. Every check fails one file with a reason (``BadFile``) or a timeout (``TimedOut``),
never the whole run.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from meta_mage.ingest import bounded
from meta_mage.ingest.bounded import (
    INFLATE_STEP,
    MB,
    RATIO_FLOOR,
    BadFile,
    Collector,
    Limits,
    collect,
)

if TYPE_CHECKING:
    from meta_mage.config import Settings

__all__ = [
    "INFLATE_STEP",
    "MAX_DEPTH",
    "MB",
    "RATIO_FLOOR",
    "BadFile",
    "Collector",
    "Deadline",
    "FetchLimits",
    "TimedOut",
    "collect",
    "decode_json",
    "inflate_file",
    "refused_path",
    "shown",
]

MAX_DEPTH = 64  # a tournament file nests about 5 deep; deeper is hostile
_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class TimedOut(Exception):
    """A download passed its deadline: the network, not the file, may be at fault."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class FetchLimits(Limits):
    """The bounds of one download: bytes after decompression, compression ratio (:class:`Limits`, the ingest's
    bounded reader), seconds per socket read and seconds for the whole file."""

    max_bytes: int = 20 * MB
    max_ratio: int = 100
    read_timeout: float = 30.0
    file_seconds: float = 120.0

    @classmethod
    def from_settings(cls, settings: Settings) -> FetchLimits:
        return cls(
            max_bytes=settings.sync_max_file_bytes,
            max_ratio=settings.sync_max_compression_ratio,
            read_timeout=settings.sync_read_timeout_seconds,
            file_seconds=settings.sync_file_seconds,
        )


def inflate_file(data: bytes, limits: Limits) -> bytes | bytearray:
    """A ``.json.gz`` file's contents (any file starting with gzip's magic bytes), bounded; others as they are."""
    return bounded.inflate(data, limits)


def decode_json(name: str, data: bytes, limits: Limits) -> Any:
    """The JSON document of a file (gzipped or not), or ``InputFileError`` with the reason: the ingest's
    (:func:`meta_mage.ingest.bounded.decode_json`), and nested deeper than ``MAX_DEPTH`` or holding strings
    that are not valid Unicode."""
    return bounded.decode_json(name, data, limits, max_depth=MAX_DEPTH)


def refused_path(path: str) -> str | None:
    """Why ``path`` (as an upstream listed it) must not be fetched, or None: a path is relative, plain ``/``
    separated segments, with no ``.`` or ``..``, backslash, percent-escape or control character."""
    if _CONTROL.search(path):
        return "its path holds a control character"
    if path.startswith("/"):
        return "its path is absolute"
    if "\\" in path:
        return "its path holds a backslash"
    if _PERCENT_ESCAPE.search(path):
        return "its path holds a percent-escape"
    if any(part in ("", ".", "..") for part in path.split("/")):
        return "its path has an empty, '.' or '..' segment"
    return None


def shown(path: str) -> str:
    """``path`` safe to print on one line (control characters escaped)."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", path)


@dataclass(frozen=True)
class Deadline:
    """When a download must be over (``time.monotonic()``), and the seconds it was given."""

    at: float
    seconds: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        seconds = max(0.0, seconds)
        return cls(time.monotonic() + seconds, seconds)

    def left(self) -> float:
        return self.at - time.monotonic()

    def missed(self) -> TimedOut:
        return TimedOut(f"not read within {self.seconds:.3g} s (one file's time limit, or the time the run had left)")
