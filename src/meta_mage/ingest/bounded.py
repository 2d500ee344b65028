"""Bounded reading: every input the project decompresses or decodes as JSON goes through here.

Decompression (gzip or zlib) is checked a step at a time against a byte cap and a ratio cap (:class:`Limits`),
whether the input is pushed in pieces (:class:`Collector`, a download), held whole (:func:`inflate`, a file or
an S3 object) or pulled as a stream (:class:`InflatingReader`, a tar archive). JSON decoding
(:func:`decode_json`) refuses what would crash the decoder or bloat memory: numbers of more than
``MAX_NUMBER_DIGITS`` digits or beyond a float's range, NaN and Infinity, nesting too deep. Every check
fails one file with a reason (``BadFile``, or ``InputFileError`` naming the file), never the run.
"""

from __future__ import annotations

import io
import json
import math
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from meta_mage.ingest.errors import InputFileError

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

MB = 1024 * 1024
RATIO_FLOOR = MB  # output below this never trips the ratio cap (small files compress well too)
INFLATE_STEP = MB  # decompress this much at a time, checking the caps in between
READ_STEP = 64 * 1024  # compressed bytes a stream reads from its source at a time
MAX_RATIO = 100  # real tournament files and archives compress about 13:1, card corpora about 7:1
# A 64-bit integer has 20 digits and a float's shortest form at most 23 (zeros included); the real files' longest
# number has 10 characters. Past this a number is refused before Python builds it (int() refuses 4,300 digits).
MAX_NUMBER_DIGITS = 24
GZIP_MAGIC = b"\x1f\x8b"
_ANY_ZLIB = zlib.MAX_WBITS | 32  # a gzip or zlib header, detected


class BadFile(Exception):
    """A file refused for good (too large, a bomb, undecodable): reading it again would fail again."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class OverLimit(BadFile):
    """A file past a cap of its :class:`Limits` (its size, or its compression ratio)."""


def size_text(count: int) -> str:
    """``count`` bytes for a message: ``20 MB``, or ``1,234 bytes`` when not a whole number of MB."""
    return f"{count // MB} MB" if count % MB == 0 else f"{count:,} bytes"


@dataclass(frozen=True)
class Limits:
    """The bounds of one input: its bytes (once decompressed) and its decompressed/compressed ratio past
    ``RATIO_FLOOR`` (a bomb above)."""

    max_bytes: int
    max_ratio: int = MAX_RATIO

    def too_large(self, *, decompressed: bool = False) -> OverLimit:
        return OverLimit(f"larger than {size_text(self.max_bytes)}" + (" once decompressed" if decompressed else ""))

    def bomb(self) -> OverLimit:
        return OverLimit(f"compressed more than {self.max_ratio}:1 (a decompression bomb)")


class Inflater:
    """Decompresses gzip or zlib data fed to it in pieces (gzip members in a row, as ``gzip`` reads them,
    zero padding after them ignored), refusing it (``OverLimit``) as soon as its output passes a cap."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.fed = 0
        self.produced = 0
        self._stream: Any = None  # the zlib decompressor of the current gzip member, None between members
        self._kind = "compressed"
        self._members = 0

    def inflate(self, chunk: bytes) -> Iterator[bytes]:
        """``chunk``'s output, ``INFLATE_STEP`` bytes at most at a time (drain it before feeding more)."""
        self.fed += len(chunk)
        data = chunk
        while data:
            if self._stream is None:
                data = data.lstrip(b"\0") if self._members else data
                if not data:
                    return
                self._kind = "gzip" if data[:2] == GZIP_MAGIC else "zlib"
                self._stream = zlib.decompressobj(_ANY_ZLIB)
                self._members += 1
            try:
                out = self._stream.decompress(data, INFLATE_STEP)
            except zlib.error as exc:
                raise BadFile(f"truncated or corrupt {self._kind} data ({exc})") from None
            self.produced += len(out)
            self._check(self.fed - len(self._stream.unconsumed_tail) - len(self._stream.unused_data))
            data = self._stream.unconsumed_tail
            if self._stream.eof:
                data = self._stream.unused_data
                self._stream = None
            if out:
                yield out

    def finish(self) -> None:
        """``BadFile`` when the data stopped inside a compressed stream."""
        if self._stream is not None:
            raise BadFile(f"truncated or corrupt {self._kind} data (the stream ends early)")

    def _check(self, consumed: int) -> None:
        if self.produced > self.limits.max_bytes:
            raise self.limits.too_large(decompressed=True)
        if self.produced > RATIO_FLOOR and self.produced > consumed * self.limits.max_ratio:
            raise self.limits.bomb()


class Collector:
    """Bytes of one download, refused past ``limits`` (decompressed when ``compressed``)."""

    def __init__(self, limits: Limits, *, compressed: bool = False) -> None:
        self.limits = limits
        self._out = bytearray()
        self._inflater = Inflater(limits) if compressed else None

    def feed(self, chunk: bytes) -> None:
        """Add ``chunk``; ``BadFile`` as soon as the output passes a cap."""
        if self._inflater is None:
            self._out += chunk
            if len(self._out) > self.limits.max_bytes:
                raise self.limits.too_large()
            return
        for piece in self._inflater.inflate(chunk):
            self._out += piece

    def output(self) -> bytearray:
        """What was fed (decompressed), without a copy; ``BadFile`` when a compressed stream stopped half-way."""
        if self._inflater is not None:
            self._inflater.finish()
        return self._out

    def result(self) -> bytes:
        """:meth:`output` as bytes."""
        return bytes(self.output())


def collect(chunks: Iterable[bytes], limits: Limits, *, compressed: bool = False) -> bytes:
    """Join ``chunks`` under ``limits`` (see :class:`Collector`)."""
    collector = Collector(limits, compressed=compressed)
    for chunk in chunks:
        collector.feed(chunk)
    return collector.result()


def inflate(data: bytes, limits: Limits) -> bytes | bytearray:
    """A file's contents: decompressed when it starts with gzip's magic bytes (whatever its name), else as they
    are; ``BadFile`` past ``limits``."""
    if data[:2] != GZIP_MAGIC:
        if len(data) > limits.max_bytes:
            raise limits.too_large()
        return data
    collector = Collector(limits, compressed=True)
    view = memoryview(data)
    for start in range(0, len(data), INFLATE_STEP):
        collector.feed(view[start : start + INFLATE_STEP].tobytes())
    return collector.output()


class InflatingReader(io.RawIOBase):
    """``source``'s gzip data decompressed as it is read, under ``limits`` (``BadFile`` past a cap, or when the
    data is truncated or corrupt): a stream for ``tarfile.open(fileobj=..., mode="r|")``."""

    def __init__(self, source: IO[bytes], limits: Limits) -> None:
        super().__init__()
        self._source = source
        self._inflater = Inflater(limits)
        self._pieces: Iterator[bytes] = iter(())
        self._piece = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        while not self._piece:
            piece = next(self._pieces, None)
            if piece is not None:
                self._piece = memoryview(piece)
                continue
            chunk = self._source.read(READ_STEP)
            if not chunk:
                self._inflater.finish()
                return 0
            self._pieces = self._inflater.inflate(chunk)
        count = min(len(self._piece), memoryview(buffer).nbytes)
        memoryview(buffer).cast("B")[:count] = self._piece[:count]
        self._piece = self._piece[count:]
        return count


# --- JSON ----------------------------------------------------------------------------------------


def decode_json(name: str, data: bytes, limits: Limits, *, max_depth: int | None = None) -> Any:
    """The JSON document of file ``name`` (gzipped or not; a UTF-8 byte order mark is ignored, as RFC 8259
    allows), or ``InputFileError`` with the reason: past ``limits``, truncated or corrupt gzip, gzip inside
    gzip, empty, not UTF-8, invalid JSON, a number of more than ``MAX_NUMBER_DIGITS`` digits or out of a
    float's range, NaN or Infinity, nested too deep for the decoder (with ``max_depth``: deeper than that, and
    strings that are not valid Unicode refused too), or too large for the memory available."""
    try:
        document = json.loads(
            _text(inflate(data, limits)), parse_int=_int, parse_float=_float, parse_constant=_constant
        )
        if max_depth is not None:
            _check_tree(document, max_depth)
    except BadFile as exc:
        raise InputFileError(name, exc.reason) from None
    except UnicodeDecodeError as exc:
        raise InputFileError(name, f"not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise InputFileError(name, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        deep = f"more than {max_depth} deep" if max_depth is not None else "too deeply to decode"
        raise InputFileError(name, f"JSON nested {deep}") from None
    except MemoryError:
        raise InputFileError(name, f"too large to decode in the memory available ({len(data):,} bytes)") from None
    return document


def _text(raw: bytes | bytearray) -> str:
    if raw[:2] == GZIP_MAGIC:
        raise BadFile("gzip inside gzip")
    text = raw.decode("utf-8-sig")
    if not text or text.isspace():
        raise BadFile("file is empty")
    return text


def _check_digits(literal: str) -> None:
    """``BadFile`` for a number literal of more than ``MAX_NUMBER_DIGITS`` digits (counted only past as many
    characters: the common case costs one ``len``)."""
    if len(literal) > MAX_NUMBER_DIGITS:
        digits = sum(c.isdigit() for c in literal)
        if digits > MAX_NUMBER_DIGITS:
            raise BadFile(f"a number with more than {MAX_NUMBER_DIGITS} digits ({digits:,}: {literal[:12]}…)")


def _int(literal: str) -> int:
    _check_digits(literal)
    return int(literal)


def _float(literal: str) -> float:
    _check_digits(literal)
    value = float(literal)
    if math.isinf(value):
        raise BadFile(f"a number out of a float's range ({literal})")
    return value


def _constant(name: str) -> Any:
    raise BadFile(f"{name} is not a JSON number")


def _check_tree(document: Any, max_depth: int) -> None:
    """``BadFile`` when ``document`` nests deeper than ``max_depth`` or holds a lone surrogate (JSON's
    ``\\ud800`` escapes decode to strings DynamoDB cannot encode). Iterative: no recursion to exhaust."""
    stack: list[tuple[Any, int]] = [(document, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            _check_text(node)
        elif isinstance(node, dict | list):
            if depth > max_depth:
                raise BadFile(f"JSON nested more than {max_depth} deep")
            if isinstance(node, dict):
                for key in node:
                    _check_text(key)
                stack.extend((value, depth + 1) for value in node.values())
            else:
                stack.extend((value, depth + 1) for value in node)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise BadFile(f"a string holds an unpaired surrogate ({text[exc.start]!r})") from None
