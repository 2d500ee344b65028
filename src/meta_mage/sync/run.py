"""One sync of an upstream repository's new tournament files into the MetaTable.

The cursor (``MetaRepository.sync_cursor``) is the last commit whose files are all stored or reported as bad.
A run lists the files changed since it, reads each at the pinned head commit, ingests them through the
idempotent tournament ingest, and moves the cursor to the head only when no file failed for a reason a retry
could fix (the network, DynamoDB, the time limit): the next run then lists them again, and files already stored
report ``unchanged``. A bad file (a refused path, too large, a bomb, undecodable, invalid, an item DynamoDB
refuses) is reported with its reason and passed: :func:`retry_files` reads it again by name. Files left out by
the format filter are passed for good (the cursor moves past them).
"""

from __future__ import annotations

import datetime as dt
import shlex
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from meta_mage.analytics.meta import MetaService
from meta_mage.archetypes.classifier import ArchetypeClassifier
from meta_mage.archetypes.playbooks import playbooks_summary
from meta_mage.errors import InvalidArgument
from meta_mage.ingest.errors import InputFileError
from meta_mage.ingest.files import SourceFile, is_json_name
from meta_mage.ingest.report import IngestReport
from meta_mage.ingest.tournament_ingest import ingest_tournament_sources
from meta_mage.ingest.tournaments import tournament_format
from meta_mage.models import sources
from meta_mage.models.json import JsonObject
from meta_mage.models.meta import normalise_format
from meta_mage.models.tournaments import FORMATS
from meta_mage.storage.meta import MetaRepository
from meta_mage.sync.bounds import Deadline, decode_json, refused_path, shown
from meta_mage.sync.upstream import TOURNAMENTS, FetchFailed, Upstream

FETCH_WORKERS = 4
RETRY_HINT_FILES = 20  # bad files named in the note's --retry command


def source_of(path: str) -> str | None:
    """The ``<Source>`` of a ``Tournaments/<Source>/.../<name>.json`` path, or None for any other file."""
    parts = path.split("/")
    if len(parts) < 3 or parts[0] != TOURNAMENTS or not is_json_name(parts[-1]):
        return None
    return parts[1]


@dataclass(frozen=True)
class SyncFilter:
    """Which files a sync keeps: source folders (lower case) and formats; empty keeps all."""

    sources: frozenset[str] = frozenset()
    formats: frozenset[str] = frozenset()

    @classmethod
    def of(cls, sources: Iterable[str] = (), formats: Iterable[str] = ()) -> SyncFilter:
        """A filter from names as typed; an unknown format raises ``InvalidArgument``."""
        return cls(frozenset(s.lower() for s in sources), frozenset(_format(f) for f in formats))

    def wants_source(self, folder: str) -> bool:
        """Whether files under ``Tournaments/<folder>/`` are kept: a filter name keeps the folder it names (or
        its stem: ``mtgo`` keeps ``mtgo.com``) and every folder of the source of that kind (``models.sources``:
        ``mtgo`` keeps ``MTGO``, ``melee`` keeps ``MTGmelee``)."""
        name = folder.lower()
        reader = sources.source_of_folder(folder)
        names = {name, name.split(".")[0], *([reader.kind.lower()] if reader else [])}
        return not self.sources or not names.isdisjoint(self.sources)

    def wants(self, file: DecodedFile) -> bool:
        """Whether ``file``'s format is wanted. A file whose format cannot be read is kept (ingest reports it)."""
        if not self.formats:
            return True
        try:
            return tournament_format(file.document, file.name) in self.formats
        except InputFileError:
            return True


def _format(name: str) -> str:
    try:
        return normalise_format(name)
    except ValueError:
        raise InvalidArgument(f"unknown format {name!r}", field="format", allowed=list(FORMATS)) from None


@dataclass(frozen=True)
class DecodedFile(SourceFile):
    """A file whose JSON the sync decoded under its bounds (``bounds.decode_json``): ``json()`` returns it."""

    document: object = field(default=None, compare=False, repr=False)

    def json(self, max_bytes: int = 0) -> object:
        return self.document


@dataclass(frozen=True)
class SyncFailure:
    path: str
    reason: str
    retryable: bool


@dataclass
class SyncReport:
    """What one sync did; ``old_cursor == new_cursor`` when it stored nothing new or must be retried."""

    repository: str
    branch: str
    old_cursor: str | None
    new_cursor: str | None
    commits: int = 0
    listed: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    ingest: IngestReport = field(default_factory=lambda: IngestReport("tournaments"))
    fetch_failures: list[SyncFailure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    requests: int = 0
    seconds: float = 0.0
    retried: bool = False  # a retry of named files (``retry_files``): the cursor is not touched
    playbooks: str = ""  # the daily check of the archetype playbooks against the lists now stored

    @property
    def failures(self) -> list[SyncFailure]:
        """Every file not stored: retryable when the network, DynamoDB (``storage=True`` in the ingest's report)
        or the time limit failed, not when the file is bad (ingest failures without ``storage``)."""
        stored = self.ingest.storage_failures
        return self.fetch_failures + [SyncFailure(s, r, s in stored) for s, r in self.ingest.failures]

    @property
    def retryable(self) -> bool:
        return any(f.retryable for f in self.failures)

    @property
    def bad_files(self) -> list[SyncFailure]:
        """The files reported as bad and passed for good (``meta-mage sync --retry`` reads them again)."""
        return [f for f in self.failures if not f.retryable]

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def ingested(self) -> int:
        return self.ingest.outcomes["added"] + self.ingest.outcomes["replaced"]

    @property
    def unchanged(self) -> int:
        return self.ingest.outcomes["unchanged"] + self.ingest.outcomes["duplicates skipped"]

    def summary(self) -> str:
        """One line of counts, then one line per note and per failure."""
        skipped = ", ".join(f"{n} skipped ({why})" for why, n in sorted(self.skipped.items()) if n)
        counts = [
            f"{self.commits} commit{'' if self.commits == 1 else 's'}",
            f"{self.listed} files listed",
            f"{self.ingested} ingested",
            f"{self.unchanged} unchanged",
            f"{len(self.failures)} failed",
            *([skipped] if skipped else []),
        ]
        moved = "advanced" if self.new_cursor != self.old_cursor else "kept"
        cursor = f"cursor {_short(self.old_cursor)} -> {_short(self.new_cursor)} ({moved})"
        if self.retried:
            cursor = f"cursor {_short(self.old_cursor)} (untouched)"
        verb = "retry" if self.retried else "sync"
        line = f"{verb} {self.repository} {self.branch}: {', '.join(counts)}; {self.requests} requests in "
        lines = [line + f"{self.seconds:.1f} s; {cursor}"]
        lines += [f"  {line}" for line in self.ingest.provisional]
        lines += [f"  {self.playbooks}"] if self.playbooks else []
        lines += [f"  note: {note}" for note in self.notes + self.ingest.notes]
        again = " (transient: try again)" if self.retried else " (retried next run)"
        lines += [f"  FAILED {f.path}: {f.reason}{again if f.retryable else ''}" for f in self.failures]
        return "\n".join(lines)

    def to_dict(self) -> JsonObject:
        """The report as JSON-able data (the Lambda's answer and log line)."""
        files = {
            "listed": self.listed,
            "ingested": self.ingested,
            "unchanged": self.unchanged,
            "skipped": {why: n for why, n in self.skipped.items() if n},
        }
        return {
            **{name: getattr(self, name) for name in ("repository", "branch", "old_cursor", "new_cursor", "commits")},
            **{f"files_{what}": count for what, count in files.items()},
            "failures": [{"path": f.path, "reason": f.reason, "retryable": f.retryable} for f in self.failures],
            "provisional_archetypes": list(self.ingest.provisional),  # "New deck: …", "Retired: …"
            "playbooks": self.playbooks,
            "bad_files": [f.path for f in self.bad_files],
            "notes": self.notes + self.ingest.notes,
            "requests": self.requests,
            "seconds": round(self.seconds, 3),
        }


def _playbooks_line(repository: MetaRepository, classifier: ArchetypeClassifier) -> str:
    """The daily check of the playbooks (stale engine cards, archetypes of 1 %+ share without one) over what is
    stored now; a storage error is named in the line, never a failed sync."""
    try:
        return playbooks_summary(MetaService(repository), classifier.rules_dir)
    except Exception as exc:  # an advisory check: it never fails a sync whose files are stored
        return f"playbooks: not checked ({type(exc).__name__}: {exc})"


def _short(sha: str | None) -> str:
    return sha[:12] if sha else "none"


def sync(
    upstream: Upstream,
    repository: MetaRepository,
    classifier: ArchetypeClassifier,
    *,
    since: dt.date | None = None,
    wanted: SyncFilter | None = None,
    workers: int = FETCH_WORKERS,
    time_left: Callable[[], float] | None = None,
    reset: bool = False,
) -> SyncReport:
    """Ingest what changed upstream since the stored cursor (or since ``since`` on a first sync).

    ``time_left`` (seconds) bounds each download and stops reading new files once it reaches zero: those left
    are retried next run. ``reset`` ignores the stored cursor and syncs as a first sync (from ``since``; a
    clone: all its files), then replaces the cursor with the head. Raises ``SyncError`` when the changes cannot
    be listed (the cursor stays), ``CursorLost`` when the cursor's commit is gone from the history.
    """
    started, requests = time.perf_counter(), upstream.requests
    cursor = repository.sync_cursor(upstream.name, upstream.branch)
    report = SyncReport(upstream.name, upstream.branch, old_cursor=cursor, new_cursor=cursor)
    run = _Run(upstream, repository, classifier, wanted or SyncFilter(), workers, time_left, report)
    try:
        head = upstream.head()
        if reset:
            report.notes.append(f"--reset: the cursor {_short(cursor)} was ignored, files listed as a first sync")
        if head != cursor or reset:
            run.to(head, None if reset else cursor, since)
            report.playbooks = _playbooks_line(repository, classifier)
    finally:
        report.requests = upstream.requests - requests
        report.seconds = time.perf_counter() - started
    return report


def retry_files(
    upstream: Upstream,
    repository: MetaRepository,
    classifier: ArchetypeClassifier,
    paths: Sequence[str],
    *,
    workers: int = FETCH_WORKERS,
    time_left: Callable[[], float] | None = None,
) -> SyncReport:
    """Read ``paths`` (files an earlier sync reported as bad) at the branch's head and ingest them, leaving the
    cursor where it is. Each path is checked as a listed one is; the filters do not apply (they were named)."""
    started, requests = time.perf_counter(), upstream.requests
    cursor = repository.sync_cursor(upstream.name, upstream.branch)
    report = SyncReport(upstream.name, upstream.branch, old_cursor=cursor, new_cursor=cursor, retried=True)
    run = _Run(upstream, repository, classifier, SyncFilter(), workers, time_left, report)
    try:
        head = upstream.head()
        report.listed = len(paths)
        run.ingest(head, run.checked(list(dict.fromkeys(paths))))
    finally:
        report.requests = upstream.requests - requests
        report.seconds = time.perf_counter() - started
    return report


@dataclass
class _Run:
    upstream: Upstream
    repository: MetaRepository
    classifier: ArchetypeClassifier
    wanted: SyncFilter
    workers: int
    time_left: Callable[[], float] | None
    report: SyncReport

    def to(self, head: str, base: str | None, since: dt.date | None) -> None:
        """Ingest the files changed from ``base`` up to ``head``, then move the cursor there unless a retry is due."""
        report, upstream = self.report, self.upstream
        listing = upstream.changes(base, head, since)
        report.commits = listing.commits
        tournaments = [(path, source) for path in listing.paths if (source := source_of(path))]
        report.listed = len(tournaments)
        kept = [path for path, source in tournaments if self.wanted.wants_source(source)]
        report.skipped["other source"] = len(tournaments) - len(kept)
        self.ingest(head, self.checked(kept))
        if report.retryable:
            report.notes.append("cursor kept: files that failed on the network, DynamoDB or time are retried next run")
            return
        if not self.repository.advance_sync_cursor(upstream.name, upstream.branch, head, report.old_cursor):
            report.notes.append("another sync moved the cursor meanwhile; it was left as that sync set it")
            return
        report.new_cursor = head
        if bad := report.bad_files:
            named = " ".join(shlex.quote(f.path) for f in bad[:RETRY_HINT_FILES])
            more = f" (and {len(bad) - RETRY_HINT_FILES} more)" if len(bad) > RETRY_HINT_FILES else ""
            report.notes.append(
                f"the cursor moved past {len(bad)} bad file{'' if len(bad) == 1 else 's'}; once fixed, read "
                f"{'it' if len(bad) == 1 else 'them'} again with: meta-mage sync {upstream.where} --retry {named}{more}"
            )

    def checked(self, paths: Sequence[str]) -> list[str]:
        """``paths`` less those refused (``bounds.refused_path``), which are reported as bad files."""
        fetched = []
        for path in paths:
            if reason := refused_path(path):
                self.report.fetch_failures.append(SyncFailure(shown(path), f"refused: {reason}", retryable=False))
            else:
                fetched.append(path)
        return fetched

    def ingest(self, head: str, paths: Sequence[str]) -> None:
        """Ingest ``paths`` at ``head``, naming the decks no rule names (provisional archetypes); the events a new
        or retired one re-labels are read again at ``head`` by their stored path."""

        def reread(stored: Sequence[str]) -> Iterator[DecodedFile | InputFileError]:
            return self.sources(head, self.checked([path for path in stored if source_of(path)]))

        self.report.ingest = ingest_tournament_sources(
            self.sources(head, paths), self.repository, self.classifier, provisional=True, reread=reread
        )

    def sources(self, head: str, paths: Sequence[str]) -> Iterator[DecodedFile | InputFileError]:
        """The files read at ``head`` and decoded under the upstream's limits, less those of unwanted formats;
        failed reads go to the report, undecodable files to the ingest (which reports them)."""
        fetched = _fetch_all(self.read_by(head), paths, self.workers, self.out_of_time)
        for path, result in fetched:
            if isinstance(result, FetchFailed):
                self.report.fetch_failures.append(SyncFailure(path, result.reason, result.retryable))
                continue
            try:
                file = DecodedFile(path, result, document=decode_json(path, result, self.upstream.limits))
            except InputFileError as exc:
                yield exc
                continue
            if self.wanted.wants(file):
                yield file
            else:
                self.report.skipped["other format"] += 1

    def read_by(self, head: str) -> Callable[[str], bytes]:
        """A reader of files at ``head``, each bounded by the file time limit and the run's time left."""

        def read(path: str) -> bytes:
            seconds = self.upstream.limits.file_seconds
            if self.time_left is not None:
                seconds = min(seconds, self.time_left())
            return self.upstream.read(path, head, Deadline.after(seconds))

        return read

    def out_of_time(self) -> bool:
        return self.time_left is not None and self.time_left() <= 0


def _fetch_all(
    read: Callable[[str], bytes], paths: Sequence[str], workers: int, out_of_time: Callable[[], bool]
) -> Iterator[tuple[str, bytes | FetchFailed]]:
    """Each path's contents in order, read ``workers`` at a time a few files ahead of the consumer."""
    submitted = 0
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="sync-fetch") as pool:
        pending: deque[tuple[str, Future[bytes]]] = deque()
        for path in paths:
            if out_of_time():
                break
            pending.append((path, pool.submit(read, path)))
            submitted += 1
            if len(pending) > workers:
                yield _outcome(*pending.popleft())
        while pending:
            yield _outcome(*pending.popleft())
    for path in paths[submitted:]:
        yield path, FetchFailed(path, "not read before the time limit", retryable=True)


def _outcome(path: str, future: Future[bytes]) -> tuple[str, bytes | FetchFailed]:
    try:
        return path, future.result()
    except FetchFailed as exc:
        return path, exc
    except MemoryError:
        return path, FetchFailed(path, "out of memory while reading it", retryable=False)
