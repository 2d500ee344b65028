"""Ingest tournament files into the MetaTable, idempotently and file by file."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from meta_mage.analytics.aggregate import summarise_event
from meta_mage.analytics.day_totals import day_totals
from meta_mage.analytics.matchup_fit import refresh_matchup_models
from meta_mage.archetypes.classifier import ArchetypeClassifier, Classification
from meta_mage.archetypes.provisional import rules_by_format, stored_provisional
from meta_mage.errors import StorageUnavailable
from meta_mage.ingest.errors import InputFileError
from meta_mage.ingest.files import MAX_TOURNAMENT_BYTES, SourceFile, count_source_files, iter_source_files
from meta_mage.ingest.provisional import ProvisionalUpdate, by_format, events_to_relabel, refresh_provisional, window_of
from meta_mage.ingest.report import IngestReport, progress
from meta_mage.ingest.tournaments import VersionRank, content_digest, parse_tournament, version_rank
from meta_mage.models.cards import card_key
from meta_mage.models.tournaments import ParsedTournament
from meta_mage.storage.dynamo import rejected_item
from meta_mage.storage.meta import MAX_EVENTS_PER_DAY, DayFull, DayState, ItemTooLarge, MetaRepository

Reread = Callable[[Sequence[str]], Iterable[SourceFile | InputFileError]]  # stored source files, read again
_KEPT_VERSION = (
    "another version of its event is kept (more decks, then rounds, then pairings, then the earlier date, then "
    "the larger digest):"
)
RELABEL_NAMED_FILES = 20  # files a note names when they must be ingested again to be re-labelled
MAX_REMEMBERED_BYTES = 256 * 1024 * 1024  # files kept in memory to re-label; beyond, they are read again


def _is_land(lands: dict[str, str], name: str) -> bool:
    return card_key(name) in lands


def ingest_tournaments(
    paths: list[Path], repository: MetaRepository, classifier: ArchetypeClassifier, *, provisional: bool = False
) -> IngestReport:
    """Parse, classify and store every tournament file under ``paths`` (see :func:`ingest_tournament_sources`);
    the events to re-label are read again from ``paths`` by name."""

    def reread(names: Sequence[str]) -> Iterator[SourceFile | InputFileError]:
        wanted = set(names)
        return (s for s in iter_source_files(paths, MAX_TOURNAMENT_BYTES) if _name_of(s) in wanted)

    return ingest_tournament_sources(
        progress(iter_source_files(paths, MAX_TOURNAMENT_BYTES), count_source_files(paths), "tournaments"),
        repository,
        classifier,
        provisional=provisional,
        reread=reread,
        set_aside=versions_set_aside(iter_source_files(paths, MAX_TOURNAMENT_BYTES)),
    )


def versions_set_aside(sources: Iterable[SourceFile | InputFileError]) -> dict[str, str]:
    """The files holding a version of an event that another file of the same input outranks
    (``VersionRank``: more decks, then rounds, then pairing rows, then the earlier date, then the larger content
    digest), each with the file kept instead. Read before anything is stored, so every run of one input stores
    the same version, whatever the file order."""
    best: dict[str, tuple[VersionRank, str]] = {}
    ranked: list[tuple[str, VersionRank, str]] = []
    for source in sources:
        if isinstance(source, InputFileError):
            continue
        try:
            found = version_rank(source.json(MAX_TOURNAMENT_BYTES), source.name)
        except InputFileError:
            continue
        if found is not None:
            key, rank = found
            ranked.append((key, rank, source.name))
            if key not in best or rank > best[key][0]:
                best[key] = (rank, source.name)
    return {name: best[key][1] for key, rank, name in ranked if rank < best[key][0]}


def _name_of(source: SourceFile | InputFileError) -> str:
    return source.source if isinstance(source, InputFileError) else source.name


def ingest_tournament_sources(
    sources: Iterable[SourceFile | InputFileError],
    repository: MetaRepository,
    classifier: ArchetypeClassifier,
    *,
    provisional: bool = False,
    reread: Reread | None = None,
    set_aside: Mapping[str, str] | None = None,
) -> IngestReport:
    """Parse, classify and store tournament files already read (local files or S3 objects).

    A file is parsed and validated completely before anything is written, and an event counts only once
    its header (the commit marker) is written, so a bad or interrupted file leaves no partial data
    (``meta-mage repair`` finishes or removes an interrupted write). Re-ingesting the same event (under any
    file name) changes nothing; a changed version of a stored event replaces it; a re-dated copy of a stored
    event is reported and skipped. Every file gets one line in the report. DynamoDB errors are reported (per
    file, or per format registry), never raised: with ``storage=True`` when a retry may succeed.

    With ``provisional``, decks are also classified by the format's stored provisional archetypes, and once the
    events are committed each format's provisional archetypes are refreshed (``ingest/provisional.py``); the
    events whose decks they now name otherwise are ingested again (re-labelled): those read in this run from
    memory, those stored earlier through ``reread`` (their source files), else named in a note.

    ``set_aside`` (:func:`versions_set_aside`): files whose version of an event another file of the input
    outranks, each with that file; they are reported and not read. A day takes at most ``MAX_EVENTS_PER_DAY``
    events, those it counts and those this run adds: each event past that fails on its own, before anything of
    it is written."""
    run = _IngestRun(repository, classifier, provisional=provisional, reread=reread, set_aside=set_aside or {})
    for source in sources:
        run.read(source)
    run.commit_days()
    run.name_new_decks()
    run.refresh_formats()
    return run.report


@dataclass
class _Pending:
    tournament: ParsedTournament
    digest: str
    replacing: bool  # a version of the event was committed before
    write: bool  # False: stored and committed already, only its day must count it


@dataclass
class _IngestRun:
    """One ingest run: files are written as they are read; days are rebuilt, and events committed, once at the end."""

    repository: MetaRepository
    classifier: ArchetypeClassifier
    report: IngestReport = field(default_factory=lambda: IngestReport("tournaments"))
    formats_seen: set[str] = field(default_factory=set)
    pending: dict[tuple[str, str], list[_Pending]] = field(default_factory=dict)
    read_this_run: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # event key -> (file, date, digest)
    days: dict[tuple[str, str], DayState | None] = field(default_factory=dict)
    provisional: bool = False
    reread: Reread | None = None
    loaded: set[str] = field(default_factory=set)  # formats whose stored provisional archetypes are applied
    unnamed_sources: dict[str, SourceFile] = field(default_factory=dict)  # events with decks no declared rule names
    remembered_bytes: int = 0
    last_dates: dict[str, str] = field(default_factory=dict)
    set_aside: Mapping[str, str] = field(default_factory=dict)  # file -> the file whose version is kept

    def classify(self, fmt: str, main: dict[str, int], side: dict[str, int]) -> Classification:
        """The deck's classification, by the format's stored provisional archetypes too (read on first use)."""
        if self.provisional and fmt not in self.loaded:
            stored = rules_by_format(stored_provisional(self.repository, fmt)[1])
            self.classifier = self.classifier.with_provisional({fmt: stored.get(fmt, [])})
            self.loaded.add(fmt)
        return self.classifier.classify(fmt, main, side)

    def read(self, source: SourceFile | InputFileError) -> None:
        """Parse one file and write its event (not yet committed), or record why not."""
        if isinstance(source, InputFileError):
            self.report.fail(source.source, source.reason)
            return
        if (kept := self.set_aside.get(source.name)) is not None:
            self.report.file(source.name, "duplicates skipped", f"{_KEPT_VERSION} {kept}")
            return
        try:
            tournament = parse_tournament(source.json(MAX_TOURNAMENT_BYTES), source.name, self.classify)
        except InputFileError as exc:
            self.report.fail(exc.source, exc.reason)
            return
        except StorageUnavailable as exc:  # reading the stored provisional archetypes
            self._storage_failure(source.name, exc)
            return
        if self.provisional:
            self._remember(source, tournament)
        self.report.notes.extend(f"{source.name}: {warning}" for warning in tournament.warnings)
        self.formats_seen.add(tournament.format)
        digest = content_digest(tournament, self.classifier.fingerprint())
        if not self._first_in_run(tournament, digest, source.name):
            return
        try:
            self._store(tournament, digest)
        except (ItemTooLarge, DayFull) as exc:
            self.report.fail(source.name, str(exc))
        except StorageUnavailable as exc:
            self._storage_failure(source.name, exc)

    def _remember(self, source: SourceFile, tournament: ParsedTournament) -> None:
        """Keep the file of an event with a deck no declared rule names: a provisional archetype may re-label it."""
        fmt = tournament.format
        self.last_dates[fmt] = max(self.last_dates.get(fmt, ""), tournament.date)
        unnamed = any(deck.classification not in ("", "archetype") for deck in tournament.decks)
        if unnamed and self.remembered_bytes + len(source.data) <= MAX_REMEMBERED_BYTES:
            self.remembered_bytes += len(source.data)
            self.unnamed_sources.setdefault(tournament.event_key, source)

    def _first_in_run(self, tournament: ParsedTournament, digest: str, name: str) -> bool:
        """Whether this run has not read the event yet (headers are written at the end, so a repeat is caught here)."""
        first = self.read_this_run.get(tournament.event_key)
        if first is None:
            return True
        if first[1:] == (tournament.date, digest):
            self.report.file(name, "unchanged", f"the same event as {first[0]}")
        else:
            self.report.file(
                name,
                "duplicates skipped",
                f"repeats event {tournament.event_key} read earlier in this run from {first[0]} "
                f"(dated {first[1]}); kept the first",
            )
        return False

    def _store(self, tournament: ParsedTournament, digest: str) -> None:
        day = (tournament.format, tournament.date)
        header = self.repository.get_event_header(tournament.event_key)
        if header and header.get("digest") == digest:
            state = self._day(day)
            counted = state is not None and state.complete and tournament.event_key in state.events
            if counted and state is not None and state.digests.get(tournament.event_key, digest) == digest:
                self.report.file(tournament.source_file, "unchanged")
                return
            # stored, but its day does not count it (an ingest stopped between its day and its header): count it now
            self._check_room(day, tournament.event_key)
            self._queue(day, _Pending(tournament, digest, replacing=False, write=False))
            return
        if header and (header.get("format"), header.get("date")) != day:
            self.report.file(
                tournament.source_file,
                "duplicates skipped",
                f"repeats event {tournament.event_key} already stored from {header.get('source_file')} "
                f"(dated {header.get('date')}); kept the first",
            )
            return
        self._check_room(day, tournament.event_key)
        lands = self.classifier.rules_for(tournament.format).land_colors
        aggregate = summarise_event(tournament, partial(_is_land, lands))
        self.repository.write_event(tournament, digest, aggregate)
        self._queue(day, _Pending(tournament, digest, replacing=header is not None, write=True))
        self.report.totals["decks"] += len(tournament.decks)
        self.report.totals["matches with a result"] += aggregate.format.matches

    def _check_room(self, day: tuple[str, str], event_key: str) -> None:
        """``DayFull`` unless the day can take the event: those it counts, and those this run adds to it,
        number fewer than ``MAX_EVENTS_PER_DAY`` (or the event is one of them)."""
        state = self._day(day)
        events = set(state.events if state is not None else ()) | {
            p.tournament.event_key for p in self.pending.get(day, [])
        }
        if event_key not in events and len(events) >= MAX_EVENTS_PER_DAY:
            raise DayFull(
                f"{day[0]} {day[1]} already counts {MAX_EVENTS_PER_DAY} events with those of this run, the most "
                "a day holds; this event is not stored"
            )

    def _day(self, day: tuple[str, str]) -> DayState | None:
        if day not in self.days:
            self.days[day] = self.repository.day_state(*day)
        return self.days[day]

    def _queue(self, day: tuple[str, str], pending: _Pending) -> None:
        self.pending.setdefault(day, []).append(pending)
        self.read_this_run[pending.tournament.event_key] = (
            pending.tournament.source_file,
            pending.tournament.date,
            pending.digest,
        )

    def _storage_failure(self, name: str, exc: StorageUnavailable, where: str = "") -> None:
        if rejected_item(exc):  # DynamoDB refused the item itself: the data, not DynamoDB, is at fault
            self.report.fail(name, f"DynamoDB refused an item of this event{where}: {exc}")
        else:
            self.report.fail(name, f"DynamoDB error{where}: {exc}", storage=True)

    def commit_days(self) -> None:
        """Rebuild each day written to, then commit its events; a day that fails never stops the others."""
        for (fmt, date), events in sorted(self.pending.items()):
            try:
                self.repository.rebuild_day(
                    fmt, date, including={event.tournament.event_key for event in events}, summed=day_totals
                )
            except StorageUnavailable as exc:
                for event in events:
                    self._storage_failure(event.tournament.source_file, exc, f" while updating {fmt} {date}")
                continue
            for event in events:
                self._commit(event)

    def _commit(self, event: _Pending) -> None:
        name = event.tournament.source_file
        if not event.write:
            self.report.file(name, "day repaired", f"{event.tournament.format} {event.tournament.date} now counts it")
            return
        try:
            outcome = self.repository.commit_event(event.tournament, event.digest)
        except StorageUnavailable as exc:
            self._storage_failure(name, exc, " while committing it")
            return
        if outcome in ("committed", "replaced"):
            self.report.file(name, "replaced" if event.replacing or outcome == "replaced" else "added")
        elif outcome == "unchanged":
            self.report.file(name, "unchanged", "stored meanwhile by another ingest")
        else:
            self.report.file(name, "superseded", "another ingest stored another version of this event at the same time")

    def name_new_decks(self) -> None:
        """Refresh each format's provisional archetypes, report the new and retired ones, and re-label the events
        whose decks they name otherwise."""
        if not self.provisional:
            return
        updates: dict[str, ProvisionalUpdate] = {}
        for fmt in sorted(self.last_dates):
            try:
                updates[fmt] = refresh_provisional(self.repository, self.classifier, fmt, self.last_dates[fmt])
            except StorageUnavailable as exc:
                self.report.fail_step(f"{fmt} provisional archetypes", f"DynamoDB error while refreshing them: {exc}")
                continue
            self.report.provisional.extend(f"{fmt}: {line}" for line in updates[fmt].lines())
        self.classifier = self.classifier.with_provisional(by_format(updates))
        stale = {key: fmt for fmt, update in updates.items() for key in events_to_relabel(update, self.classifier)}
        if stale:
            self._relabel(stale)

    def _relabel(self, stale: dict[str, str]) -> None:
        """Ingest the ``stale`` events (key → format) again: their decks' names change, so their digests do and
        they are replaced through the ordinary write, day rebuild and commit."""
        main, self.report = self.report, IngestReport("tournaments")
        self.pending, self.days = {}, {}
        for key in stale:
            self.read_this_run.pop(key, None)
        for key in sorted(stale.keys() & self.unnamed_sources.keys()):
            self.read(self.unnamed_sources[key])
        stored_earlier = {key: fmt for key, fmt in stale.items() if key not in self.unnamed_sources}
        elsewhere = self._read_again(self._stored_files(stored_earlier))
        if elsewhere:
            main.relabel_pending.extend(elsewhere)
            named = ", ".join(elsewhere[:RELABEL_NAMED_FILES])
            more = f" (and {len(elsewhere) - RELABEL_NAMED_FILES} more)" if len(elsewhere) > RELABEL_NAMED_FILES else ""
            main.notes.append(
                f"{len(elsewhere)} events stored earlier hold lists the provisional archetypes name otherwise; "
                f"ingest their files again to re-label them: {named}{more}"
            )
        self.commit_days()
        relabelled, self.report = self.report, main
        self.report.merge_relabelled(relabelled)

    def _read_again(self, files: list[str]) -> list[str]:
        """Ingest ``files`` again through ``reread``; those it could not read."""
        left = set(files)
        for source in self.reread(files) if self.reread is not None and files else ():
            left.discard(_name_of(source))
            self.read(source)
        return sorted(left)

    def _stored_files(self, events: dict[str, str]) -> list[str]:
        """The source files of stored ``events`` (key → format), as their aggregates name them."""
        files: list[str] = []
        for fmt in sorted(set(events.values())):
            since = window_of(self.repository, fmt, self.last_dates.get(fmt, ""))[0]
            files += [a.source_file for a in self.repository.stored_aggregates(fmt, since) if a.event_key in events]
        return sorted(files)

    def refresh_formats(self) -> None:
        for fmt in sorted(self.formats_seen):
            try:
                self.repository.refresh_format(fmt)
            except StorageUnavailable as exc:
                self.report.fail_step(f"{fmt} format registry", f"DynamoDB error while refreshing it: {exc}")
                continue
            try:
                refresh_matchup_models(self.repository, fmt)
            except StorageUnavailable as exc:
                self.report.fail_step(f"{fmt} matchup model", f"DynamoDB error while storing it: {exc}")
