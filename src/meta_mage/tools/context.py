"""The services a tool call needs (``meta_mage.wiring`` builds them from settings)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the services are made by meta_mage.wiring; importing them here would load deck coaching
    from meta_mage.analytics.meta import MetaService  # into every function that only reads the meta
    from meta_mage.decks.coach import DeckCoach
    from meta_mage.drafts.pool import DraftPoolService
    from meta_mage.storage.cards import CardsRepository


@dataclass
class ToolContext:
    meta: MetaService
    coach: DeckCoach
    cards: CardsRepository
    drafts: DraftPoolService
    timeout_seconds: float = 60  # each call's deadline (see ``tools.runner.run_tool``)
    cpu_slots: int = 0  # CPU-heavy calls running at once; 0: one per core
