"""The services a tool call needs (``meta_mage.wiring`` builds them from settings)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from meta_mage.analytics.meta import MetaService
from meta_mage.config import Settings
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

    @classmethod
    def from_settings(cls, settings: Settings, dynamodb: Any | None = None) -> ToolContext:
        """The context ``meta_mage.wiring.Wiring`` builds over ``settings`` (kept for tests)."""
        from meta_mage.wiring import Wiring  # the wiring imports this module

        return Wiring(settings, dynamodb).tool_context
