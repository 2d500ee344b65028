"""The services a tool call needs (``meta_mage.wiring`` builds them from settings)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from meta_mage.analytics.meta import MetaService
    from meta_mage.decks.coach import DeckCoach
    from meta_mage.drafts.pool import DraftPoolService
    from meta_mage.storage.cards import CardsRepository


@dataclass
class ToolContext:
    meta: MetaService
    make_coach: Callable[[], DeckCoach]  # deck coaching is made (and imported) by the first deck tool call
    cards: CardsRepository
    drafts: DraftPoolService
    timeout_seconds: float = 60  # each call's deadline (see ``tools.runner.run_tool``)
    cpu_slots: int = 0  # CPU-heavy calls running at once; 0: one per core

    @cached_property
    def coach(self) -> DeckCoach:
        return self.make_coach()
