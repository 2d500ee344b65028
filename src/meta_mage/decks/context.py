"""What the deck tools read and how: the window of a call, the format's totals over it, an archetype's evidence
(one Query each), and the top decks of the window with the archetype's record against each."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as default

from meta_mage.analytics.matchup_rates import pair_rate
from meta_mage.analytics.meta import MetaService, window
from meta_mage.archetypes.classifier import ArchetypeClassifier
from meta_mage.decks.evidence import ArchetypeEvidence, most_played, pct, win_rate
from meta_mage.errors import NotFound
from meta_mage.models.decks import OptimizeInput, TopArchetype
from meta_mage.models.evidence import FormatStats
from meta_mage.models.meta import Window, WinRate
from meta_mage.storage.cards import CardsRepository


@dataclass(frozen=True)
class Scope:
    """What one optimising call is about: the format, the window, the format's totals, the archetype's
    evidence over it and its matchup against each archetype of the window by the matchup model."""

    format: str
    window: Window
    field: FormatStats
    own: ArchetypeEvidence
    matchups: Mapping[str, WinRate] = default(default_factory=dict)

    def top(self, top_n: int) -> list[TopArchetype]:
        """The ``top_n`` most played other archetypes, each with its share and the archetype's record against it."""
        return [
            TopArchetype(
                archetype=opponent,
                meta_share=pct(self.field.archetype_decks[opponent], self.field.decks),
                your_archetype_vs_it=(
                    self.matchups.get(opponent) or win_rate(self.own.versus(opponent), self.own.min_sample)
                ),
            )
            for opponent in most_played(self.field, (self.own.name,), top_n)
        ]


@dataclass(frozen=True)
class CoachContext:
    """The services the deck tools read."""

    meta: MetaService
    cards: CardsRepository
    classifier: ArchetypeClassifier

    @property
    def min_sample(self) -> int:
        return self.meta.min_sample

    def window(self, fmt: str, days: int, as_of: dt.date | None) -> Window:
        """``days`` days ending at the format's newest tournament (or ``as_of``)."""
        info = self.meta.format_info(fmt)
        return window(as_of or dt.date.fromisoformat(info.last_date), days)

    def field(self, fmt: str, win: Window) -> FormatStats:
        return self.meta.repository.format_stats(fmt, win.start, win.end)

    def evidence(
        self, fmt: str, archetype: str, start: str, end: str, field: FormatStats | None = None
    ) -> ArchetypeEvidence:
        """``archetype``'s evidence between ``start`` and ``end``, with its records from ``field`` when given."""
        stats = self.meta.repository.archetype_stats(fmt, archetype, start, end)
        results = field.versus(archetype) if field else {}
        return ArchetypeEvidence(archetype, stats, self.min_sample, results)

    def scope(self, params: OptimizeInput) -> Scope:
        """The window, totals, evidence and model matchups of an optimising call; NotFound when the archetype
        has no lists."""
        win, total = self.meta.total_of(self.meta.format_info(params.format), params.days, params.as_of)
        totals = total.stats()
        name = self.meta.resolve_archetype(params.archetype, totals.archetype_decks)
        own = self.evidence(params.format, name, win.start, win.end, totals)
        if not own.lists:
            raise NotFound(f"no {name} lists in {params.format} between {win.start} and {win.end}", field="archetype")
        model = self.meta.model_of(params.format, win, total)
        rates = {opp: pair_rate(name, opp, total, model, self.min_sample) for opp in totals.archetype_decks}
        return Scope(params.format, win, totals, own, rates)
