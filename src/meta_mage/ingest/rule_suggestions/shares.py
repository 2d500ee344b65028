"""How many of a format's decks the rules leave unnamed ("Unknown" or a fallback), from the per-day aggregates."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from dataclasses import dataclass, field

from meta_mage.analytics.meta import MetaService
from meta_mage.analytics.stats import wilson_interval, win_rate
from meta_mage.archetypes.catch_alls import unnamed_names
from meta_mage.archetypes.classifier import (
    ArchetypeClassifier,
)
from meta_mage.archetypes.provisional import is_provisional
from meta_mage.models.meta import FormatSummary
from meta_mage.storage.meta import MetaRepository

MAX_DAYS = 3650  # ten years: more overflows no date, but means nothing for a meta


@dataclass(frozen=True)
class FallbackShare:
    """The share of a format's decks named "Unknown" or by a fallback, over a window."""

    format: str
    start: str
    end: str
    unnamed_decks: int
    total_decks: int
    share: float | None  # percent; None without decks
    ci_low: float | None  # 95 % Wilson interval of the share, percent
    ci_high: float | None
    by_name: dict[str, int] = field(default_factory=dict)  # unnamed decks per stored name, most first

    def line(self) -> str:
        """The share in one human line."""
        if self.share is None:
            return f"{self.format}: no decks between {self.start} and {self.end}"
        names = ", ".join(f"{name} {count}" for name, count in self.by_name.items())
        return (
            f"{self.format}: {self.unnamed_decks} of {self.total_decks} decks unnamed ({self.share:.1f} %, "
            f"95 % CI {self.ci_low:.1f}–{self.ci_high:.1f} %) from {self.start} to {self.end}"
            + (f": {names}" if names else "")
        )


def _check_days(days: int) -> None:
    if not 1 <= days <= MAX_DAYS:
        raise ValueError(f"days must be between 1 and {MAX_DAYS}")


def fallback_share(
    meta: MetaRepository,
    classifier: ArchetypeClassifier,
    info: FormatSummary,
    days: int = 14,
    today: dt.date | None = None,
) -> FallbackShare:
    """The share of ``info``'s format's decks left unnamed over ``days`` days.

    The window ends at ``today`` when given, else at the format's newest stored date (so older data,
    such as the bundled demo, still reads). One Query on the format's per-day aggregates; which names
    are fallbacks comes from ``classifier``'s rules for the format."""
    _check_days(days)
    period, total = MetaService(meta).total_of(info, days, today)
    archetypes = total.archetypes
    # a provisional archetype's lists are named by no rule file yet: what a suggestion would name
    unnamed = unnamed_names(classifier.rules_for(info.format), archetypes) | set(filter(is_provisional, archetypes))
    by_name = {name: archetypes[name].decks for name in unnamed}
    count, decks = sum(by_name.values()), total.decks
    interval = wilson_interval(count, decks - count)
    return FallbackShare(
        format=info.format,
        start=period.start,
        end=period.end,
        unnamed_decks=count,
        total_decks=decks,
        share=win_rate(count, decks - count),
        ci_low=interval[0] if interval else None,
        ci_high=interval[1] if interval else None,
        by_name=dict(sorted(by_name.items(), key=lambda kv: (-kv[1], kv[0]))),
    )


def fallback_shares(
    meta: MetaRepository,
    classifier: ArchetypeClassifier,
    days: int = 14,
    today: dt.date | None = None,
    formats: Collection[str] | None = None,
) -> list[FallbackShare]:
    """Per format with data (or only ``formats``), by name, :func:`fallback_share` over ``days`` days: one
    Query for the formats, then one per format."""
    _check_days(days)
    wanted = {f.lower() for f in formats} if formats is not None else None
    return [
        fallback_share(meta, classifier, info, days, today)
        for info in sorted(meta.list_formats(), key=lambda f: f.format)
        if wanted is None or info.format.lower() in wanted
    ]
