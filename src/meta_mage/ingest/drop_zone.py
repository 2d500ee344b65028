"""The ingest drop zone: files put in the IngestBucket are ingested by the same code as ``meta-mage ingest``.

The key's first folder says what a file is:

- ``tournaments/...``: MTGODecklistCache JSON (``.json``, ``.json.gz``) or a tar archive of them
  (``.tar.gz``, ``.tgz``, ``.tar``), as ``meta-mage ingest tournaments``;
- ``cards/...``: a card corpus (``.json``, ``.json.gz``), as ``meta-mage ingest cards``;
- ``drafts/...``: a cube draft in the single-file JSON form (``.json``, ``.json.gz``), as
  ``meta-mage ingest draft FILE``. The CSV form (a header naming ``pool_csv``/``picks_csv``)
  needs sibling files and is rejected with a message saying so; ``meta-mage upload`` reads such a
  header with its CSV files and sends the draft as the single JSON document.

:func:`ingest_object` reads one object and returns an :class:`ObjectResult`; it never raises for
a bad file. Each failure carries an ``error_code``; ``storage_error`` and ``s3_error`` are
*retryable* (the infrastructure failed, not the file), every other code is the file's fault
and retrying cannot help. Guarantees come from the shared ingest code: a file is parsed
completely before anything is written (a bad file writes nothing), an event's day aggregates
are rebuilt before its header (commit marker) is written, and re-ingesting the same content
(under any key) reports ``unchanged``.

:func:`upload` is the other end: it puts local files (folders expanded like the CLI does)
under the right prefix of the bucket.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from meta_mage.archetypes.classifier import ArchetypeClassifier, get_classifier
from meta_mage.config import Settings
from meta_mage.errors import InvalidArgument, StorageUnavailable
from meta_mage.ingest.card_ingest import ingest_card_sources
from meta_mage.ingest.drafts import ingest_draft, load_draft, load_draft_source
from meta_mage.ingest.errors import InputFileError
from meta_mage.ingest.files import (
    ARCHIVE_SUFFIXES,
    JSON_SUFFIXES,
    MAX_DRAFT_BYTES,
    MAX_JSON_BYTES,
    MAX_TOURNAMENT_BYTES,
    SourceFile,
    expand_paths,
    is_archive_name,
    is_json_name,
    iter_archive,
    read_source,
)
from meta_mage.ingest.report import IngestReport, progress
from meta_mage.ingest.tournament_ingest import ingest_tournament_sources, versions_set_aside
from meta_mage.models.json import JsonObject
from meta_mage.storage.cards import CardsRepository
from meta_mage.storage.drafts import DraftsRepository
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.objects import DropZoneBucket, ObjectMissing, ObjectTooLarge

IngestKind = Literal["tournaments", "cards", "drafts"]
KINDS: tuple[IngestKind, ...] = get_args(IngestKind)
PREFIXES: tuple[str, ...] = tuple(f"{kind}/" for kind in KINDS)

ErrorCode = Literal[
    "unknown_prefix",  # the key is not under tournaments/, cards/ or drafts/
    "unsupported_file",  # the key's extension is not one the prefix accepts
    "invalid_file",  # the content failed validation (bad JSON, missing Rounds, unknown cube card, ...)
    "not_found",  # the object was deleted before it could be read
    "too_large",  # over MAX_OBJECT_BYTES (an archive) or its kind's cap (a file, compressed or not)
    "internal_error",  # a bug: an unexpected exception while ingesting this object
    "storage_error",  # DynamoDB failed (retryable)
    "s3_error",  # reading the object failed for another reason than its absence (retryable)
]
RETRYABLE: frozenset[ErrorCode] = frozenset({"storage_error", "s3_error"})

# The whole object is held in memory and parsed; beyond this, fail with a message, not an OOM. An archive is
# read as a stream (each member capped at MAX_TOURNAMENT_BYTES); a single file may be no larger, compressed,
# than its kind's cap once decompressed.
MAX_OBJECT_BYTES = 512 * 1024 * 1024
MAX_FILE_BYTES: dict[IngestKind, int] = {
    "tournaments": MAX_TOURNAMENT_BYTES,
    "cards": MAX_JSON_BYTES,
    "drafts": MAX_DRAFT_BYTES,
}

_CONTENT_TYPES = {".json": "application/json", ".gz": "application/gzip", ".tgz": "application/gzip"}


# --- results -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileFailure:
    """One file that could not be ingested: ``source`` is the key, or ``key:member`` in an archive."""

    source: str
    reason: str
    error_code: ErrorCode

    @property
    def retryable(self) -> bool:
        """True when the infrastructure failed, so a retry may succeed."""
        return self.error_code in RETRYABLE


@dataclass(frozen=True)
class ObjectResult:
    """What ingesting one S3 object did."""

    bucket: str
    key: str
    kind: IngestKind | None
    outcomes: dict[str, int] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    failures: tuple[FileFailure, ...] = ()
    skipped: str | None = None

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def retryable(self) -> bool:
        """Some file failed on S3 or DynamoDB: the object is worth a retry."""
        return any(f.retryable for f in self.failures)

    @property
    def status(self) -> Literal["ingested", "unchanged", "skipped", "partial", "failed"]:
        """``partial`` is an archive with good and bad members (the good ones are stored)."""
        if self.skipped is not None:
            return "skipped"
        stored = sum(n for k, n in self.outcomes.items() if k not in ("failed", "unchanged", "duplicates skipped"))
        if self.failures:
            return "partial" if stored else "failed"
        return "ingested" if stored else "unchanged"

    def to_dict(self) -> JsonObject:
        """A JSON-able summary for logs and the handler's response."""
        where = {"bucket": self.bucket, "key": self.key, "kind": self.kind, "status": self.status}
        return {
            **where,
            "outcomes": self.outcomes,
            "totals": self.totals,
            "notes": list(self.notes),
            "failures": [{**asdict(f), "retryable": f.retryable} for f in self.failures],
            **({"skipped": self.skipped} if self.skipped else {}),
        }


def failed(bucket: str, key: str, kind: IngestKind | None, reason: str, code: ErrorCode) -> ObjectResult:
    """The result of an object that failed as a whole."""
    return ObjectResult(bucket, key, kind, {"failed": 1}, failures=(FileFailure(key, reason, code),))


# --- where the data goes ----------------------------------------------------------------------


@dataclass(frozen=True)
class Targets:
    """The repositories and classifier an ingest writes through (the same ones the CLI uses).

    Make one per invocation: ``CardsRepository`` caches the card-name index, which another
    invocation may have changed since.
    """

    meta: MetaRepository
    cards: CardsRepository
    drafts: DraftsRepository
    classifier: ArchetypeClassifier

    @classmethod
    def over(cls, settings: Settings, db: Any) -> Targets:
        """The tables ``settings`` names in the DynamoDB resource ``db`` (``Wiring.ingest_targets``)."""
        return cls(
            meta=MetaRepository(db.Table(settings.meta_table)),
            cards=CardsRepository(db.Table(settings.cards_table)),
            drafts=DraftsRepository(db.Table(settings.drafts_table)),
            classifier=get_classifier(settings.archetype_rules_dir),
        )


# --- routing ----------------------------------------------------------------------------------


def kind_of_key(key: str) -> IngestKind | None:
    """The kind of data a key holds, from its first folder (None when it is none of ours)."""
    first = key.split("/", 1)[0]
    return next((kind for kind in KINDS if first == kind), None)


def accepted_suffixes(kind: IngestKind) -> tuple[str, ...]:
    """File name endings the drop zone reads for ``kind``."""
    return JSON_SUFFIXES + ARCHIVE_SUFFIXES if kind == "tournaments" else JSON_SUFFIXES


def _check_key(bucket: str, key: str) -> IngestKind | ObjectResult:
    kind = kind_of_key(key)
    if kind is None:
        return failed(
            bucket,
            key,
            None,
            f"{key!r} is not under a known prefix (allowed: {', '.join(PREFIXES)}): put tournament files "
            "under tournaments/, card corpora under cards/ and cube drafts under drafts/",
            "unknown_prefix",
        )
    if not key.endswith(accepted_suffixes(kind)):
        return failed(
            bucket,
            key,
            kind,
            f"{key!r}: files under {kind}/ must end with {', '.join(accepted_suffixes(kind))}",
            "unsupported_file",
        )
    return kind


def _read_object(bucket: str, key: str, kind: IngestKind, objects: DropZoneBucket) -> bytes | ObjectResult:
    try:
        return objects.read(bucket, key, MAX_OBJECT_BYTES if is_archive_name(key) else MAX_FILE_BYTES[kind])
    except ObjectMissing as exc:
        return failed(bucket, key, kind, exc.message, "not_found")
    except ObjectTooLarge as exc:
        return failed(bucket, key, kind, exc.message, "too_large")
    except StorageUnavailable as exc:
        return failed(bucket, key, kind, exc.message, "s3_error")


def _sources(key: str, data: bytes) -> Iterable[SourceFile | InputFileError]:
    """The files of an object: the members of a tar archive (tournament files), else the object itself."""
    return iter_archive(key, data, MAX_TOURNAMENT_BYTES) if is_archive_name(key) else [SourceFile(key, data)]


def _result(bucket: str, key: str, kind: IngestKind, report: IngestReport) -> ObjectResult:
    failures = tuple(
        FileFailure(source, reason, "storage_error" if source in report.storage_failures else "invalid_file")
        for source, reason in report.failures
    )
    return ObjectResult(bucket, key, kind, dict(report.outcomes), dict(report.totals), tuple(report.notes), failures)


def ingest_object(bucket: str, key: str, objects: DropZoneBucket, targets: Targets) -> ObjectResult:
    """Read ``s3://bucket/key`` (an already URL-decoded key) and ingest it by its prefix.

    Never raises for a bad file or a storage error: both come back as failures in the result
    (see :class:`FileFailure` for which are retryable).
    """
    if key.endswith("/"):
        return ObjectResult(bucket, key, kind_of_key(key), skipped="a folder marker, not a file")
    kind = _check_key(bucket, key)
    if isinstance(kind, ObjectResult):
        return kind
    data = _read_object(bucket, key, kind, objects)
    if isinstance(data, ObjectResult):
        return data
    if kind == "tournaments":
        report = ingest_tournament_sources(
            _sources(key, data), targets.meta, targets.classifier, set_aside=versions_set_aside(_sources(key, data))
        )
    elif kind == "cards":
        report = ingest_card_sources(_sources(key, data), targets.cards)
    else:
        try:
            draft = load_draft_source(SourceFile(key, data))
        except InputFileError as exc:
            return failed(bucket, key, kind, exc.reason, "invalid_file")
        report = ingest_draft(draft, key, targets.drafts, targets.cards)
    return _result(bucket, key, kind, report)


# --- upload -----------------------------------------------------------------------------------


class DropZoneError(InvalidArgument):
    """An upload that cannot start (nothing was uploaded): a missing path, an unguessable kind, ..."""


class UploadFailed(Exception):
    """S3 refused an upload part-way; ``uploaded`` lists what went up before it (those will be ingested)."""

    def __init__(self, message: str, uploaded: list[UploadedObject]) -> None:
        super().__init__(message)
        self.message = message
        self.uploaded = uploaded


@dataclass(frozen=True)
class UploadedObject:
    """One local file put in the drop zone."""

    path: Path
    bucket: str
    key: str
    kind: IngestKind
    size: int


def guess_kind(path: Path) -> IngestKind:
    """What a local file holds, from its content (archives are tournaments); raise ``DropZoneError`` if unclear."""
    if is_archive_name(path.name):
        return "tournaments"
    hint = "; say which with --kind tournaments|cards|drafts"
    try:
        source = read_source(path)
    except InputFileError as exc:
        raise DropZoneError(f"cannot read {path} ({exc.reason})", field="paths") from None
    try:
        document = source.json()
    except InputFileError as exc:
        raise DropZoneError(f"cannot tell what {path} holds: {exc.reason}{hint}", field="paths") from None
    if isinstance(document, dict) and "Tournament" in document:
        return "tournaments"
    if isinstance(document, dict) and ("draft_id" in document or "cube" in document):
        return "drafts"
    if isinstance(document, list) or (isinstance(document, dict) and isinstance(document.get("data"), dict)):
        return "cards"
    raise DropZoneError(
        f"cannot tell what {path} holds: not a tournament file (no 'Tournament'), a cube draft (no 'draft_id') "
        f"or a card corpus (not a list, no 'data'){hint}",
        field="paths",
    )


def combined_draft(path: Path) -> bytes | None:
    """A draft header naming ``pool_csv``/``picks_csv``, read with its CSV files and checked, as the
    single-file JSON draft the drop zone takes; None for a file that is not such a header."""
    try:
        document = read_source(path).json()
    except InputFileError:
        return None  # the drop zone names the problem; --kind drafts asked to send it anyway
    if not (isinstance(document, dict) and ("pool_csv" in document or "picks_csv" in document)):
        return None
    try:
        draft = load_draft(path)
    except InputFileError as exc:
        raise DropZoneError(f"{exc.source}: {exc.reason}", field="paths") from None
    return draft.model_dump_json().encode()


def _files_under(root: Path) -> list[Path]:
    """The files ``meta-mage ingest`` reads under ``root`` (``root`` itself for a file); refused when there are none."""
    if not root.exists():
        raise DropZoneError(f"no such file or folder: {root}", field="paths")
    files = expand_paths([root])
    if root.is_dir() and not files:
        raise DropZoneError(f"{root} holds no .json, .json.gz or tar archive file", field="paths")
    return files


def _checked_kind(path: Path, kind: IngestKind | None) -> IngestKind:
    """``kind``, else the kind ``path``'s content shows, once the drop zone can read ``path`` as that kind."""
    if not (is_json_name(path.name) or is_archive_name(path.name)):
        raise DropZoneError(
            f"{path}: the drop zone reads {', '.join(JSON_SUFFIXES + ARCHIVE_SUFFIXES)} files", field="paths"
        )
    file_kind = kind or guess_kind(path)
    if not path.name.endswith(accepted_suffixes(file_kind)):
        raise DropZoneError(
            f"{path}: {file_kind} files must end with {', '.join(accepted_suffixes(file_kind))}", field="paths"
        )
    if file_kind == "drafts":
        combined_draft(path)  # a CSV-form draft must read cleanly before anything goes up
    return file_kind


def _add_planned(planned: dict[str, tuple[Path, IngestKind]], key: str, path: Path, kind: IngestKind) -> None:
    """Plan ``path`` for ``key``; the same file named twice goes up once, two files for one key are refused."""
    previous = planned.get(key)
    if previous is not None and previous[0].resolve() != path.resolve():
        raise DropZoneError(f"{previous[0]} and {path} would both be uploaded as {key}", field="paths")
    planned[key] = (path, kind)


def plan_upload(paths: Sequence[Path], kind: IngestKind | None = None) -> list[tuple[Path, str, IngestKind]]:
    """``(local file, key, kind)`` for every file under ``paths``, checked before anything is uploaded.

    A file named directly goes to ``<kind>/<file name>``; a file found under a folder keeps its
    path below that folder (``<kind>/<relative path>``). Folders are expanded like ``meta-mage
    ingest`` does (``.json``, ``.json.gz`` and tar archives, recursively).
    """
    if kind is not None and kind not in KINDS:
        raise DropZoneError(f"kind must be one of {', '.join(KINDS)}", field="kind", allowed=list(KINDS))
    planned: dict[str, tuple[Path, IngestKind]] = {}
    for root in paths:
        for path in _files_under(root):
            name = path.relative_to(root).as_posix() if root.is_dir() else path.name
            file_kind = _checked_kind(path, kind)
            _add_planned(planned, f"{file_kind}/{name}", path, file_kind)
    return [(path, key, file_kind) for key, (path, file_kind) in planned.items()]


def upload(
    paths: Sequence[Path], bucket: str, objects: DropZoneBucket, kind: IngestKind | None = None
) -> list[UploadedObject]:
    """Put local files (folders expanded) into the drop zone under their kind's prefix.

    ``kind`` applies to every file; without it each file's kind is guessed from its content.
    Everything is checked first (``DropZoneError``, nothing uploaded); an S3 failure part-way
    raises ``UploadFailed`` listing what was uploaded before it. Shows a progress bar on a terminal.
    """
    plan = plan_upload(paths, kind)
    uploaded: list[UploadedObject] = []
    for path, key, file_kind in progress(plan, len(plan), "upload"):
        content_type = _CONTENT_TYPES.get(path.suffix, "application/x-tar")
        combined = combined_draft(path) if file_kind == "drafts" else None
        try:
            if combined is not None:  # the CSV form goes up as one JSON document, which the drop zone reads
                objects.put(bucket, key, combined, "application/json")
            else:
                objects.upload(path, bucket, key, content_type)
        except StorageUnavailable as exc:
            raise UploadFailed(
                f"uploading {path} to s3://{bucket}/{key} failed after {len(uploaded)} file(s): {exc.__cause__}",
                uploaded,
            ) from exc
        size = len(combined) if combined is not None else path.stat().st_size
        uploaded.append(UploadedObject(path, bucket, key, file_kind, size))
    return uploaded
