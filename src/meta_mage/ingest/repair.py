"""``meta-mage repair``: rebuild the days whose aggregates miss a stored event or were left half-written."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from meta_mage.models.tournaments import FORMATS
from meta_mage.storage.meta import DayRebuild, MetaRepository


@dataclass
class RepairReport:
    """The days looked at and those rebuilt, with what changed."""

    days_checked: int = 0
    rebuilt: list[DayRebuild] = field(default_factory=list)
    events: set[str] = field(default_factory=set)  # every event stored for the days checked
    refreshed: set[str] = field(default_factory=set)  # the formats whose registry entry was rewritten

    def lines(self) -> list[str]:
        changed = [day for day in self.rebuilt if day.changed]
        head = f"repair: {self.days_checked} days checked, {len(self.rebuilt)} rebuilt"
        if len(changed) < len(self.rebuilt):
            head += f" ({len(self.rebuilt) - len(changed)} only to finish their archetype items)"
        return [head] + [f"  {_describe(day)}" for day in changed]


def repair_days(repository: MetaRepository, formats: Iterable[str] = FORMATS, since: str = "") -> RepairReport:
    """Rebuild every day of ``formats`` from ``since`` on that does not count each committed event stored for
    it, or whose archetype items were not all written; then the formats' registry entries.

    Safe beside running ingests: a rebuild is the same conditional write they make."""
    report = RepairReport()
    for fmt in formats:
        touched = False
        for date, stored in sorted(repository.stored_event_days(fmt, since).items()):
            report.days_checked += 1
            report.events |= stored
            state = repository.day_state(fmt, date)
            committed = repository.committed_events(stored)
            if state is not None and state.complete and committed <= state.events:
                continue
            report.rebuilt.append(repository.rebuild_day(fmt, date))
            touched = True
        if touched:
            repository.refresh_format(fmt)
            report.refreshed.add(fmt)
    return report


def _describe(day: DayRebuild) -> str:
    before = day.before
    was_tournaments, was_decks = (before.tournaments, before.decks) if before else (0, 0)
    added = sorted(day.events - (before.events if before else frozenset()))
    detail = f" (now counts {', '.join(added)})" if added else ""
    return (
        f"{day.format} {day.date}: {was_tournaments} → {day.tournaments} tournaments, "
        f"{was_decks:,} → {day.decks:,} decks{detail}"
    )
