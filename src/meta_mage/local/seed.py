"""Load the bundled demo data (cards, tournaments, the ``tarkir`` cube draft) into DynamoDB."""

from __future__ import annotations

from typing import Any

from meta_mage.config import DEMO_DATA_DIR, Settings
from meta_mage.ingest.archetypes import get_classifier
from meta_mage.ingest.card_ingest import ingest_cards
from meta_mage.ingest.drafts import ingest_draft, load_draft
from meta_mage.ingest.report import IngestReport
from meta_mage.ingest.tournament_ingest import ingest_tournaments
from meta_mage.storage.cards import CardsRepository
from meta_mage.storage.drafts import DraftsRepository
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.tables import create_tables

DEMO_CARDS = DEMO_DATA_DIR / "cards.json.gz"
DEMO_TOURNAMENTS = DEMO_DATA_DIR / "tournaments.tar.gz"
DEMO_DRAFTS = DEMO_DATA_DIR / "drafts"


def seed_demo(settings: Settings, dynamodb: Any) -> list[IngestReport]:
    """Create the tables and ingest the demo data (idempotent)."""
    create_tables(dynamodb, settings)
    cards = CardsRepository(dynamodb.Table(settings.cards_table))
    reports = [ingest_cards([DEMO_CARDS], cards)]
    reports.append(
        ingest_tournaments(
            [DEMO_TOURNAMENTS],
            MetaRepository(dynamodb.Table(settings.meta_table)),
            get_classifier(settings.archetype_rules_dir),
        )
    )
    drafts = DraftsRepository(dynamodb.Table(settings.drafts_table))
    for path in sorted(DEMO_DRAFTS.glob("*.json")):
        reports.append(ingest_draft(load_draft(path), str(path), drafts, cards))
    return reports
