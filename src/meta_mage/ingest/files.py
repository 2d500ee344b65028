"""Reading input files: plain or gzipped JSON, and folders or tar archives of them, every one bounded
(:mod:`meta_mage.ingest.bounded`): a byte cap per file or archive member, a compression-ratio cap on
whatever is decompressed, and JSON numbers of a sane length."""

from __future__ import annotations

import io
import os
import stat
import tarfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from meta_mage.ingest.bounded import (
    GZIP_MAGIC,
    MAX_RATIO,
    MB,
    BadFile,
    InflatingReader,
    Limits,
    OverLimit,
    decode_json,
    size_text,
)
from meta_mage.ingest.errors import InputFileError

# Once decompressed. Card corpora are the largest inputs (MTGJSON's AtomicCards and Scryfall's oracle cards are
# 100+ MB, the shared oracle corpus 15 MB); the largest real tournament file is about 2 MB (the sync's cap on the
# same files is 20 MB); a draft of 2,000 cube cards and 64 drafters' picks is a few MB.
MAX_JSON_BYTES = 256 * MB
MAX_TOURNAMENT_BYTES = 20 * MB
MAX_DRAFT_BYTES = 16 * MB
# A whole tar archive, once decompressed (members are capped on their own): the 376 shared tournament files
# are 40 MB; past this, split the archive.
MAX_ARCHIVE_BYTES = 4 * 1024 * MB
ARCHIVE_LIMITS = Limits(MAX_ARCHIVE_BYTES, MAX_RATIO)
MEMBER_READ_STEP = MB


@dataclass(frozen=True)
class SourceFile:
    """One input file: a display name for messages and its raw bytes."""

    name: str
    data: bytes

    def json(self, max_bytes: int = MAX_JSON_BYTES) -> Any:
        """Decode the file as JSON (gzip-compressed or not) under ``max_bytes`` once decompressed and
        ``MAX_RATIO``, or raise ``InputFileError`` (see :func:`meta_mage.ingest.bounded.decode_json`)."""
        return decode_json(self.name, self.data, Limits(max_bytes, MAX_RATIO))


def read_source(path: Path, max_bytes: int = MAX_JSON_BYTES) -> SourceFile:
    """A local regular file (a symlink is followed), read under ``max_bytes``, else ``InputFileError`` in one
    line: a device (``/dev/zero``), a FIFO, a socket or a folder is refused without reading a byte (a FIFO is
    opened without waiting for a writer), and a file that grows past the cap while read is refused at the cap."""
    try:
        with _opened_regular(path) as handle:
            if os.fstat(handle.fileno()).st_size > max_bytes:
                raise InputFileError(str(path), f"larger than {size_text(max_bytes)}")
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise InputFileError(str(path), f"cannot read ({exc.strerror or exc})") from exc
    if len(data) > max_bytes:
        raise InputFileError(str(path), f"larger than {size_text(max_bytes)}")
    return SourceFile(str(path), data)


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))


@contextmanager
def _opened_regular(path: Path) -> Iterator[IO[bytes]]:
    """``path`` opened for reading once ``fstat`` says it is a regular file (checked on the open file, so a
    path swapped after a check cannot slip through), else ``InputFileError`` naming what it is."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        kind = next((name for test, name in _KINDS if test(mode)), "a special file")
        raise InputFileError(str(path), f"not a regular file ({kind}); only regular files are read")
    os.set_blocking(descriptor, True)
    with os.fdopen(descriptor, "rb") as handle:
        yield handle


JSON_SUFFIXES = (".json", ".json.gz")
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar")


def is_json_name(name: str) -> bool:
    """A (possibly gzipped) JSON file, by its name."""
    return name.endswith(JSON_SUFFIXES)


def is_archive_name(name: str) -> bool:
    """A tar archive of JSON files (gzipped or not), by its name."""
    return name.endswith(ARCHIVE_SUFFIXES)


def iter_archive(
    name: str, data: bytes | Path, max_member_bytes: int = MAX_JSON_BYTES
) -> Iterator[SourceFile | InputFileError]:
    """The JSON members of a tar archive (gzipped or not), in memory (an S3 object) or on disk, named
    ``name:member``. The archive is read as a stream, decompressed under ``ARCHIVE_LIMITS``, each member in
    steps: a member over ``max_member_bytes`` is an error and the next ones are still read; an archive past
    the ratio cap (a bomb), truncated or corrupt is an error from that point on (the members before it were
    yielded). An archive without any JSON member is an error."""
    found, member_name = 0, ""
    try:
        with _tar_stream(data) as archive:
            for member in archive:
                member_name = member.name
                if _is_json_member(member):
                    found += 1
                    yield _read_member(f"{name}:{member.name}", archive, member, max_member_bytes)
    except OverLimit as exc:
        after = f" in {member_name}; the members after it were not read" if member_name else ""
        yield InputFileError(name, exc.reason + after)
        return
    except InputFileError as exc:
        yield exc
        return
    except (BadFile, tarfile.TarError, OSError, EOFError) as exc:
        yield InputFileError(name, f"unreadable archive ({exc})")
        return
    if not found:
        yield InputFileError(name, "archive holds no .json or .json.gz file")


@contextmanager
def _tar_stream(data: bytes | Path) -> Iterator[tarfile.TarFile]:
    """A tar archive opened as a stream (``r|``): gzip is decompressed by ``InflatingReader``, nothing else."""
    with ExitStack() as stack:
        raw: IO[bytes] = io.BytesIO(data) if isinstance(data, bytes) else stack.enter_context(_opened_regular(data))
        compressed = raw.read(2) == GZIP_MAGIC
        raw.seek(0)
        stream = io.BufferedReader(InflatingReader(raw, ARCHIVE_LIMITS), MB) if compressed else raw
        yield stack.enter_context(tarfile.open(fileobj=stream, mode="r|"))


def _is_json_member(member: tarfile.TarInfo) -> bool:
    return member.isfile() and is_json_name(member.name)


def _read_member(
    source: str, archive: tarfile.TarFile, member: tarfile.TarInfo, max_bytes: int
) -> SourceFile | InputFileError:
    """The current member of a streamed archive, read in steps, or an error when larger than ``max_bytes``
    (its header says so: it is skipped unread)."""
    if member.size > max_bytes:
        return InputFileError(source, f"larger than {size_text(max_bytes)}")
    handle = archive.extractfile(member)
    if handle is None:
        return InputFileError(source, "not a regular file")
    chunks, total = [], 0
    while total < member.size and (chunk := handle.read(min(MEMBER_READ_STEP, member.size - total))):
        chunks.append(chunk)
        total += len(chunk)
    return SourceFile(source, b"".join(chunks))


def expand_paths(paths: list[Path]) -> list[Path]:
    """Files named directly plus JSON files and archives found recursively under folders."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(
                p
                for p in sorted(path.rglob("*"))
                if not p.is_dir() and (is_json_name(p.name) or is_archive_name(p.name))
            )
        else:
            found.append(path)
    return found


def iter_source_files(paths: list[Path], max_bytes: int = MAX_JSON_BYTES) -> Iterator[SourceFile | InputFileError]:
    """Yield every input file (archives are opened member by member); unreadable ones as errors, files and
    members larger than ``max_bytes`` too (unread), and a folder holding no input file as an error too (a
    mistyped folder is not "nothing to do")."""
    for folder in paths:
        if folder.is_dir() and not expand_paths([folder]):
            yield InputFileError(str(folder), "folder holds no .json, .json.gz or tar archive file")
    for path in expand_paths(paths):
        if not path.exists():
            yield InputFileError(str(path), "no such file or folder")
            continue
        if is_archive_name(path.name):
            yield from iter_archive(str(path), path, max_bytes)
            continue
        try:
            yield read_source(path, max_bytes)
        except InputFileError as exc:
            yield exc


def count_source_files(paths: list[Path]) -> int:
    """Number of files :func:`iter_source_files` will yield (for progress bars)."""
    total = sum(1 for folder in paths if folder.is_dir() and not expand_paths([folder]))
    for path in expand_paths(paths):
        total += _count_members(path) if path.exists() and is_archive_name(path.name) else 1
    return total


def _count_members(path: Path) -> int:
    """How many files :func:`iter_archive` yields for ``path`` (the archive streamed once, headers only)."""
    count = 0
    try:
        with _tar_stream(path) as archive:
            for member in archive:
                count += _is_json_member(member)
    except (BadFile, InputFileError, tarfile.TarError, OSError, EOFError):
        return count + 1
    return max(1, count)
