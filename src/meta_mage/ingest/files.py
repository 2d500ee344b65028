"""Reading input files: plain or gzipped JSON, and folders or tar archives of them."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from meta_mage.ingest.errors import InputFileError


@dataclass(frozen=True)
class SourceFile:
    """One input file: a display name for messages and its raw bytes."""

    name: str
    data: bytes

    def json(self) -> Any:
        """Decode the file as JSON (gzip-compressed or not; a UTF-8 byte order mark is ignored, as
        RFC 8259 allows), or raise ``InputFileError``."""
        try:
            raw = gzip.decompress(self.data) if self.data[:2] == b"\x1f\x8b" else self.data
        except (EOFError, OSError, zlib.error) as exc:  # truncated or corrupt gzip stream
            raise InputFileError(self.name, f"truncated or corrupt gzip data ({exc})") from exc
        if not raw.strip():
            raise InputFileError(self.name, "file is empty")
        try:
            return json.loads(raw.decode("utf-8-sig"))
        except UnicodeDecodeError as exc:
            raise InputFileError(self.name, f"not UTF-8 text ({exc.reason})") from exc
        except json.JSONDecodeError as exc:
            raise InputFileError(self.name, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc


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
