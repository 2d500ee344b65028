"""Ingest tournament files into the MetaTable, idempotently and file by file."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from pathlib import Path

from meta_mage.analytics.aggregate import summarise_event
from meta_mage.archetypes.classifier import ArchetypeClassifier
from meta_mage.errors import StorageUnavailable
from meta_mage.ingest.errors import InputFileError
from meta_mage.ingest.files import MAX_TOURNAMENT_BYTES, SourceFile, count_source_files, iter_source_files
from meta_mage.ingest.report import IngestReport, progress
from meta_mage.ingest.tournaments import content_digest, parse_tournament
from meta_mage.models.cards import card_key
from meta_mage.models.tournaments import ParsedTournament
from meta_mage.storage.dynamo import rejected_item
from meta_mage.storage.meta import DayState, ItemTooLarge, MetaRepository


def _is_land(lands: dict[str, str], name: str) -> bool:
    return card_key(name) in lands


def ingest_tournaments(paths: list[Path], repository: MetaRepository, classifier: ArchetypeClassifier) -> IngestReport:
    """Parse, classify and store every tournament file under ``paths`` (see :func:`ingest_tournament_sources`)."""
    return ingest_tournament_sources(
        progress(iter_source_files(paths), count_source_files(paths), "tournaments"), repository, classifier
    )


def ingest_tournament_sources(
    sources: Iterable[SourceFile | InputFileError], repository: MetaRepository, classifier: ArchetypeClassifier
) -> IngestReport:
    """Parse, classify and store tournament files already read (local files or S3 objects).

    A file is parsed completely before anything is written, and an event's aggregates count
    only once its header (the commit marker) is written, so a bad or interrupted file leaves
    no partial data. Re-ingesting the same event (under any file name) changes nothing;
    a re-dated duplicate of an event already stored is reported and skipped. DynamoDB errors
    are reported (per file, or per format registry) with ``storage=True``, never raised.
    """
    report = IngestReport("tournaments")
    rules_fingerprint = classifier.fingerprint()
    formats_seen: set[str] = set()
    # Days are rebuilt once per run; an event's header (its commit marker) follows its day.
    pending: dict[tuple[str, str], list[tuple[ParsedTournament, str]]] = {}
    read_this_run: dict[str, tuple[str, str, str]] = {}  # event key -> (file, date, digest) written this run
    days: dict[tuple[str, str], DayState | None] = {}  # the stored days this run looked at
    for source in sources:
        if isinstance(source, InputFileError):
            report.fail(source.source, source.reason)
            continue
        try:
            tournament = parse_tournament(source.json(MAX_TOURNAMENT_BYTES), source.name, classifier.classify)
        except InputFileError as exc:
            report.fail(exc.source, exc.reason)
            continue
        formats_seen.add(tournament.format)
        digest = content_digest(tournament, rules_fingerprint)
        # headers are written after the loop, so a repeat within this run is caught here, not by them
        first = read_this_run.get(tournament.event_key)
        if first is not None:
            if first[1:] == (tournament.date, digest):
                report.outcomes["unchanged"] += 1
            else:
                report.outcomes["duplicates skipped"] += 1
                report.notes.append(
                    f"{source.name} repeats event {tournament.event_key} read earlier in this run from {first[0]} "
                    f"(dated {first[1]}); kept the first"
                )
            continue
        day = (tournament.format, tournament.date)
        try:
            header = repository.get_event_header(tournament.event_key)
            if header and header.get("digest") == digest:
                if day not in days:
                    days[day] = repository.day_state(*day)
                state = days[day]
                if state is not None and state.complete and tournament.event_key in state.events:
                    report.outcomes["unchanged"] += 1
                    continue
                # stored, but its day does not count it (an ingest that lost a race before days had versions,
                # or one stopped between its day and its header): count it now
                pending.setdefault(day, []).append((tournament, digest))
                read_this_run[tournament.event_key] = (source.name, tournament.date, digest)
                report.outcomes["day repaired"] += 1
                continue
            if header and (header.get("date"), header.get("format")) != day:
                report.outcomes["duplicates skipped"] += 1
                report.notes.append(
                    f"{source.name} repeats event {tournament.event_key} already stored from "
                    f"{header.get('source_file')} (dated {header.get('date')}); kept the first"
                )
                continue
            lands = classifier.rules_for(tournament.format).land_colors
            format_part, card_parts = summarise_event(tournament, partial(_is_land, lands))
            repository.write_event(tournament, format_part, card_parts, replacing=header is not None)
        except ItemTooLarge as exc:
            report.fail(source.name, str(exc))
            continue
        except StorageUnavailable as exc:
            if rejected_item(exc):  # DynamoDB refused the item itself: this file, not DynamoDB, is at fault
                report.fail(source.name, f"DynamoDB refused an item of this event: {exc}")
            else:
                report.fail(source.name, f"DynamoDB error: {exc}", storage=True)
            continue
        pending.setdefault(day, []).append((tournament, digest))
        read_this_run[tournament.event_key] = (source.name, tournament.date, digest)
        report.outcomes["replaced" if header else "added"] += 1
        report.totals["decks"] += len(tournament.decks)
        report.totals["matches with a result"] += format_part["matches"]
    for (fmt, date), events in sorted(pending.items()):
        try:
            repository.rebuild_day(fmt, date, including={tournament.event_key for tournament, _ in events})
            for tournament, digest in events:
                repository.put_event_header(tournament, digest)
        except StorageUnavailable as exc:
            for tournament, _ in events:
                report.fail(tournament.source_file, f"DynamoDB error while updating {fmt} {date}: {exc}", storage=True)
    for fmt in sorted(formats_seen):
        try:
            repository.refresh_format(fmt)
        except StorageUnavailable as exc:
            report.fail(f"{fmt} format registry", f"DynamoDB error while refreshing it: {exc}", storage=True)
    return report
