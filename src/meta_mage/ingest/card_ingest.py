"""Ingest card corpora into the CardsTable."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from meta_mage.errors import StorageUnavailable
from meta_mage.ingest.cards import parse_card_corpus
from meta_mage.ingest.errors import InputFileError
from meta_mage.ingest.files import SourceFile, count_source_files, iter_source_files
from meta_mage.ingest.report import IngestReport, progress
from meta_mage.storage.cards import CardsRepository


def ingest_cards(paths: list[Path], repository: CardsRepository) -> IngestReport:
    """Parse each corpus file under ``paths`` completely, then store its cards."""
    return ingest_card_sources(progress(iter_source_files(paths), count_source_files(paths), "cards"), repository)


def ingest_card_sources(sources: Iterable[SourceFile | InputFileError], repository: CardsRepository) -> IngestReport:
    """Parse each corpus file already read (local file or S3 object) completely, then store its cards.

    Re-ingesting a corpus overwrites the same items with the same values, so counts do not change.
    """
    report = IngestReport("cards")
    for source in sources:
        if isinstance(source, InputFileError):
            report.fail(source.source, source.reason)
            continue
        try:
            cards = parse_card_corpus(source.json(), source.name)
            repository.put_cards(cards)
        except InputFileError as exc:
            report.fail(exc.source, exc.reason)
            continue
        except StorageUnavailable as exc:
            report.fail(source.name, f"DynamoDB error: {exc}", storage=True)
            continue
        report.outcomes["files ingested"] += 1
        report.totals["cards stored"] += len(cards)
    return report
