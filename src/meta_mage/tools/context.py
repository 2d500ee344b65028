"""The services a tool call needs, built once per process from settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from meta_mage.analytics.meta import MetaService
from meta_mage.config import Settings
from meta_mage.decks.coach import DeckCoach
from meta_mage.drafts.pool import DraftPoolService
from meta_mage.ingest.archetypes import get_classifier
from meta_mage.storage.cards import CardsRepository
from meta_mage.storage.drafts import DraftsRepository
from meta_mage.storage.dynamo import dynamodb_resource
from meta_mage.storage.meta import MetaRepository


@dataclass
class ToolContext:
    meta: MetaService
    coach: DeckCoach
    cards: CardsRepository
    drafts: DraftPoolService
    timeout_seconds: float = 60  # each call's deadline (see ``tools.runner.run_tool``)
    cpu_slots: int = 0  # CPU-heavy calls running at once; 0: one per core

    @classmethod
    def from_settings(cls, settings: Settings, dynamodb: Any | None = None) -> ToolContext:
        """Wire repositories and services to the tables named in ``settings``."""
        db = dynamodb or dynamodb_resource(settings)
        meta = MetaService(MetaRepository(db.Table(settings.meta_table)), settings.min_sample)
        cards = CardsRepository(db.Table(settings.cards_table))
        coach = DeckCoach(meta, cards, get_classifier(settings.archetype_rules_dir))
        return cls(
            meta=meta,
            coach=coach,
            cards=cards,
            drafts=DraftPoolService(DraftsRepository(db.Table(settings.drafts_table))),
            timeout_seconds=settings.tool_timeout_seconds,
            cpu_slots=settings.tool_cpu_slots,
        )
