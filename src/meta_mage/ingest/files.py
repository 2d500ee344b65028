"""Reading input files: plain or gzipped JSON, and folders or tar archives of them."""

from __future__ import annotations

import io
import json
import tarfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meta_mage.ingest.errors import InputFileError

MAX_JSON_BYTES = 1024**3  # card corpora (MTGJSON's AtomicCards) are the largest inputs; tournaments pass their own
MAX_TOURNAMENT_BYTES = 64 * 1024**2  # the largest real tournament file is about 2 MB


@dataclass(frozen=True)
class SourceFile:
    """One input file: a display name for messages and its raw bytes."""

    name: str
    data: bytes

    def json(self, max_bytes: int = MAX_JSON_BYTES) -> Any:
        """Decode the file as JSON (gzip-compressed or not; a UTF-8 byte order mark is ignored, as
        RFC 8259 allows), or raise ``InputFileError``: also for more than ``max_bytes`` once decompressed
        (a gzip bomb stops there), nesting deeper than Python's JSON decoder goes, or too little memory."""
        raw = _gunzip(self.name, self.data, max_bytes) if self.data[:2] == b"\x1f\x8b" else self.data
        if len(raw) > max_bytes:
            raise InputFileError(self.name, f"larger than {max_bytes:,} bytes")
        if not raw.strip():
            raise InputFileError(self.name, "file is empty")
        try:
            return json.loads(raw.decode("utf-8-sig"))
        except UnicodeDecodeError as exc:
            raise InputFileError(self.name, f"not UTF-8 text ({exc.reason})") from exc
        except json.JSONDecodeError as exc:
            raise InputFileError(self.name, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
        except RecursionError:
            raise InputFileError(self.name, "JSON nested too deeply to decode") from None
        except MemoryError:
            reason = f"too large to decode in the memory available ({len(raw):,} bytes)"
            raise InputFileError(self.name, reason) from None


def _gunzip(name: str, data: bytes, max_bytes: int) -> bytes:
    """Decompress gzip ``data`` (every member, as ``gzip.decompress`` does), stopping as soon as the output passes
    ``max_bytes``."""
    out = bytearray()
    try:
        while data:
            inflater = zlib.decompressobj(wbits=zlib.MAX_WBITS | 16)
            out += inflater.decompress(data, max_bytes + 1 - len(out))
            if len(out) > max_bytes:
                raise InputFileError(name, f"larger than {max_bytes:,} bytes once decompressed")
            if not inflater.eof:
                raise InputFileError(name, "truncated or corrupt gzip data (the stream ends early)")
            data = inflater.unused_data.lstrip(b"\0")  # the next member, if any (trailing zeros are padding)
    except zlib.error as exc:
        raise InputFileError(name, f"truncated or corrupt gzip data ({exc})") from exc
    return bytes(out)


JSON_SUFFIXES = (".json", ".json.gz")
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar")


def is_json_name(name: str) -> bool:
    """A (possibly gzipped) JSON file, by its name."""
    return name.endswith(JSON_SUFFIXES)


def is_archive_name(name: str) -> bool:
    """A tar archive of JSON files (gzipped or not), by its name."""
    return name.endswith(ARCHIVE_SUFFIXES)


def iter_archive(name: str, data: bytes | Path) -> Iterator[SourceFile | InputFileError]:
    """The JSON members of a tar archive, in memory (an S3 object) or on disk (read member by
    member), named ``name:member``; an archive without any is an error."""
    try:
        with tarfile.open(data) if isinstance(data, Path) else tarfile.open(fileobj=io.BytesIO(data)) as archive:
            members = [m for m in archive.getmembers() if m.isfile() and is_json_name(m.name)]
            if not members:
                yield InputFileError(name, "archive holds no .json or .json.gz file")
            for member in members:
                handle = archive.extractfile(member)
                if handle is not None:
                    yield SourceFile(f"{name}:{member.name}", handle.read())
    except (tarfile.TarError, OSError, EOFError) as exc:
        yield InputFileError(name, f"unreadable archive ({exc})")


def expand_paths(paths: list[Path]) -> list[Path]:
    """Files named directly plus JSON files and archives found recursively under folders."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(
                p for p in sorted(path.rglob("*")) if p.is_file() and (is_json_name(p.name) or is_archive_name(p.name))
            )
        else:
            found.append(path)
    return found


def iter_source_files(paths: list[Path]) -> Iterator[SourceFile | InputFileError]:
    """Yield every input file (archives are opened member by member); unreadable ones as errors,
    and a folder holding no input file as an error too (a mistyped folder is not "nothing to do")."""
    for folder in paths:
        if folder.is_dir() and not expand_paths([folder]):
            yield InputFileError(str(folder), "folder holds no .json, .json.gz or tar archive file")
    for path in expand_paths(paths):
        if not path.exists():
            yield InputFileError(str(path), "no such file or folder")
            continue
        if is_archive_name(path.name):
            yield from iter_archive(str(path), path)
            continue
        try:
            yield SourceFile(str(path), path.read_bytes())
        except OSError as exc:
            yield InputFileError(str(path), f"cannot read ({exc.strerror})")


def count_source_files(paths: list[Path]) -> int:
    """Number of files :func:`iter_source_files` will yield (for progress bars)."""
    total = sum(1 for folder in paths if folder.is_dir() and not expand_paths([folder]))
    for path in expand_paths(paths):
        if path.exists() and is_archive_name(path.name):
            try:
                with tarfile.open(path) as archive:
                    total += max(1, sum(1 for m in archive.getmembers() if m.isfile() and is_json_name(m.name)))
            except (tarfile.TarError, OSError, EOFError):
                total += 1
        else:
            total += 1
    return total
