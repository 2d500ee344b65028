"""Ingest card corpora into the CardsTable."""

from __future__ import annotations

from pathlib import Path

from botocore.exceptions import BotoCoreError, ClientError

from meta_mage.ingest.cards import parse_card_corpus
from meta_mage.ingest.errors import InputFileError
from meta_mage.ingest.files import count_source_files, iter_source_files
from meta_mage.ingest.report import IngestReport, progress
from meta_mage.storage.cards import CardsRepository


def ingest_cards(paths: list[Path], repository: CardsRepository) -> IngestReport:
    """Parse each corpus file completely, then store its cards."""
    report = IngestReport("cards")
    for source in progress(iter_source_files(paths), count_source_files(paths), "cards"):
        if isinstance(source, InputFileError):
            report.fail(source.source, source.reason)
            continue
        try:
            cards = parse_card_corpus(source.json(), source.name)
            repository.put_cards(cards)
        except InputFileError as exc:
            report.fail(exc.source, exc.reason)
            continue
        except (ClientError, BotoCoreError) as exc:
            report.fail(source.name, f"DynamoDB error: {exc}")
            continue
        report.outcomes["files ingested"] += 1
        report.totals["cards stored"] += len(cards)
    return report
