"""What a sync accepts from its upstream: file paths, sizes, compression ratios, time, and JSON it can decode.

Every check here fails one file with a reason (``BadFile``) or a timeout (``TimedOut``), never the whole run.
"""

from __future__ import annotations

import json
import re
import time
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from meta_mage.ingest.errors import InputFileError

if TYPE_CHECKING:
    from meta_mage.config import Settings

MB = 1024 * 1024
RATIO_FLOOR = MB  # output below this never trips the ratio cap (small files compress well too)
INFLATE_STEP = MB  # decompress this much at a time, checking the caps in between
MAX_DEPTH = 64  # a tournament file nests about 5 deep; deeper is hostile
_GZIP_MAGIC = b"\x1f\x8b"
_ANY_ZLIB = zlib.MAX_WBITS | 32  # a gzip or zlib header, detected
_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class BadFile(Exception):
    """A file the sync refuses for good (too large, a bomb, undecodable): a retry would fail again."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class TimedOut(Exception):
    """A download passed its deadline: the network, not the file, may be at fault."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class FetchLimits:
    """The bounds of one download: bytes after decompression, compression ratio, seconds per socket read and
    seconds for the whole file."""

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

    def too_large(self) -> BadFile:
        return BadFile(f"larger than {_size(self.max_bytes)}")


def _size(count: int) -> str:
    return f"{count // MB} MB" if count % MB == 0 else f"{count:,} bytes"


class Collector:
    """Bytes of one download, refused past ``limits.max_bytes`` (decompressed when ``compressed``)."""

    def __init__(self, limits: FetchLimits, *, compressed: bool = False) -> None:
        self.limits = limits
        self._out = bytearray()
        self._fed = 0
        self._inflater = zlib.decompressobj(_ANY_ZLIB) if compressed else None

    def feed(self, chunk: bytes) -> None:
        """Add ``chunk``; ``BadFile`` as soon as the output passes a cap."""
        self._fed += len(chunk)
        if self._inflater is None:
            self._out += chunk
            self._check()
            return
        data = chunk
        while data:
            room = self.limits.max_bytes - len(self._out) + 1
            try:
                self._out += self._inflater.decompress(data, min(room, INFLATE_STEP))
            except zlib.error as exc:
                raise BadFile(f"corrupt compressed data ({exc})") from exc
            consumed = self._fed - len(self._inflater.unconsumed_tail)
            self._check(consumed)
            data = self._inflater.unconsumed_tail
            if self._inflater.eof:  # the end of one gzip member: another may follow
                data = self._inflater.unused_data
                self._inflater = zlib.decompressobj(_ANY_ZLIB) if data.strip(b"\0") else None
                if self._inflater is None:
                    return

    def _check(self, consumed: int | None = None) -> None:
        if len(self._out) > self.limits.max_bytes:
            raise self.limits.too_large()
        if consumed and len(self._out) > RATIO_FLOOR and len(self._out) > consumed * self.limits.max_ratio:
            raise BadFile(f"compressed more than {self.limits.max_ratio}:1 (a decompression bomb)")

    def result(self) -> bytes:
        """What was fed (decompressed); ``BadFile`` when a compressed stream stopped half-way."""
        if self._inflater is not None and not self._inflater.eof and self._fed:
            raise BadFile("truncated compressed data")
        return bytes(self._out)


def collect(chunks: Iterable[bytes], limits: FetchLimits, *, compressed: bool = False) -> bytes:
    """Join ``chunks`` under ``limits`` (see :class:`Collector`)."""
    collector = Collector(limits, compressed=compressed)
    for chunk in chunks:
        collector.feed(chunk)
    return collector.result()


def inflate_file(data: bytes, limits: FetchLimits) -> bytes:
    """A ``.json.gz`` file's contents (any file starting with gzip's magic bytes), bounded; others as they are."""
    if data[:2] != _GZIP_MAGIC:
        return data
    view = memoryview(data)
    chunks = (view[i : i + INFLATE_STEP].tobytes() for i in range(0, len(data), INFLATE_STEP))
    return collect(chunks, limits, compressed=True)


def decode_json(name: str, data: bytes, limits: FetchLimits) -> Any:
    """The JSON document of a file (gzipped or not), or ``InputFileError`` with the reason: too large, a bomb,
    not UTF-8, invalid JSON, nested deeper than ``MAX_DEPTH``, or strings that are not valid Unicode."""
    try:
        raw = inflate_file(data, limits)
        if raw[:2] == _GZIP_MAGIC:
            raise BadFile("gzip inside gzip")
        if not raw.strip():
            raise BadFile("file is empty")
        document = json.loads(raw.decode("utf-8-sig"))
    except BadFile as exc:
        raise InputFileError(name, exc.reason) from None
    except UnicodeDecodeError as exc:
        raise InputFileError(name, f"not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise InputFileError(name, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise InputFileError(name, f"JSON nested more than {MAX_DEPTH} deep") from None
    except MemoryError:
        raise InputFileError(name, "out of memory while decoding its JSON") from None
    _check_tree(name, document)
    return document


def _check_tree(name: str, document: Any) -> None:
    """``InputFileError`` when ``document`` nests deeper than ``MAX_DEPTH`` or holds a lone surrogate (JSON's
    ``\\ud800`` escapes decode to strings DynamoDB cannot encode). Iterative: no recursion to exhaust."""
    stack: list[tuple[Any, int]] = [(document, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            _check_text(name, node)
        elif isinstance(node, dict | list):
            if depth > MAX_DEPTH:
                raise InputFileError(name, f"JSON nested more than {MAX_DEPTH} deep")
            if isinstance(node, dict):
                for key in node:
                    _check_text(name, key)
                stack.extend((value, depth + 1) for value in node.values())
            else:
                stack.extend((value, depth + 1) for value in node)


def _check_text(name: str, text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputFileError(name, f"a string holds an unpaired surrogate ({text[exc.start]!r})") from None


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
