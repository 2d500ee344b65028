"""``meta-mage repair``: fix every violation of the storage invariants (``ingest/invariants.py``) it finds.

In three passes, each checked afresh, because each changes what the next one sees: events (finish or remove
interrupted writes, drop stale decks), then days (recount them from the committed events' aggregates, never from
a stored total; delete archetype items no day lists), then the format registry (summed from the recounted days).
A version whose ingest failed (reported FAILED) is never committed: what was written of it is removed. What
cannot be fixed from the table (such a version, a committed event missing decks) is removed and reported with the
file to ingest again, on every run until that file is ingested. Safe beside running ingests: every write is the
same conditional write they make.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from meta_mage.analytics.day_totals import day_totals
from meta_mage.analytics.matchup_fit import refresh_matchup_models
from meta_mage.errors import StorageUnavailable
from meta_mage.ingest.invariants import (
    StorageCheck,
    Violation,
    check_storage,
    day_violations,
    event_violations,
    registry_violations,
)
from meta_mage.models.tournaments import FORMATS
from meta_mage.storage.meta import DayRebuild, EventVersion, MetaRepository, WriteIntent


@dataclass
class RepairReport:
    """Every violation found with what was done about it, and what is left."""

    fixed: list[tuple[Violation, str]] = field(default_factory=list)
    left: list[tuple[Violation, str]] = field(default_factory=list)  # with what the user should do
    rebuilt: list[DayRebuild] = field(default_factory=list)
    refreshed: set[str] = field(default_factory=set)  # the formats whose registry entry was rewritten
    events: set[str] = field(default_factory=set)  # every committed event of the formats repaired
    final: StorageCheck | None = None
    models: int = 0  # matchup models fitted because their stored fit was not of the figures stored now
    left_steps: list[str] = field(default_factory=list)  # steps that failed, with what to do
    recounted: set[tuple[str, str]] = field(default_factory=set)  # (format, date) of the days recounted

    @property
    def ok(self) -> bool:
        return not self.left and not self.left_steps and (self.final is None or self.final.ok)

    def lines(self) -> list[str]:
        found = len(self.fixed) + len(self.left)
        head = f"repair: {found} violation(s) found, {len(self.fixed)} fixed"
        if self.final is not None:
            head += f"; check afterwards: {len(self.final.violations)} left"
        lines = [head]
        lines += [f"  fixed {violation.line()}: {action}" for violation, action in self.fixed]
        lines += [f"  NOT FIXED {violation.line()}: {advice}" for violation, advice in self.left]
        lines += [f"  NOT DONE {step}" for step in self.left_steps]
        if self.models:
            lines.append(f"  refitted {self.models} matchup model(s) on the data stored now")
        return lines


@dataclass(frozen=True)
class Left:
    """A violation repair cannot fix from the table, with what the user should do."""

    advice: str


Fixer = Callable[[MetaRepository, Violation, RepairReport], str | Left | None]  # what was done, or left (advice)


def repair_storage(repository: MetaRepository, formats: Iterable[str] = FORMATS, since: str = "") -> RepairReport:
    """Fix every violation among ``formats`` dated ``since`` or later, then check again (``report.final``)."""
    report = RepairReport()
    formats = list(formats)
    for fmt in formats:
        for violation in event_violations(repository, fmt, since):
            _apply(repository, violation, report)
        for violation in day_violations(repository, fmt, since):
            _apply(repository, violation, report)
        for violation in registry_violations(repository, fmt):
            _apply(repository, violation, report)
        try:
            report.models += refresh_matchup_models(repository, fmt)
        except StorageUnavailable as exc:
            report.left_steps.append(f"{fmt} matchup model: DynamoDB error while storing it ({exc}); run repair again")
        report.events |= {a.event_key for a in repository.stored_aggregates(fmt, since)}
    report.final = check_storage(repository, formats, since)
    return report


def _apply(repository: MetaRepository, violation: Violation, report: RepairReport) -> None:
    fixer = FIXERS[violation.kind]
    try:
        action = fixer(repository, violation, report)
    except StorageUnavailable as exc:  # one day or event that cannot be written never stops the others
        then = f"; if it is refused again, {_reingest(violation)}" if violation.source_file else ""
        report.left.append((violation, f"DynamoDB error while fixing it ({exc}); run repair again{then}"))
        return
    if isinstance(action, Left):
        report.left.append((violation, action.advice))
    elif action is None:
        report.left.append((violation, _reingest(violation)))
    else:
        report.fixed.append((violation, action))


def _reingest(violation: Violation) -> str:
    named = violation.source_file or "the event's file"
    return f"ingest {named} again ('meta-mage ingest tournaments {named}')"


def _finish_or_remove(repository: MetaRepository, violation: Violation, report: RepairReport) -> str | None:
    """An interrupted write, or an aggregate nothing commits: commit its version if it is stored whole, else
    remove what was written of it."""
    aggregate = repository.aggregate_data(violation.format, violation.date, violation.event_key)
    whole = aggregate is not None and aggregate.digest == violation.digest and violation.digest
    if aggregate is not None and whole:
        event = repository.stored_event(violation.event_key)
        if event.deck_versions.get(violation.digest, 0) == aggregate.decks:
            report.rebuilt.append(
                repository.rebuild_day(
                    violation.format, violation.date, including={violation.event_key}, summed=day_totals
                )
            )
            outcome = repository.commit_stored_version(aggregate)
            return f"committed the version stored whole ({outcome})"
    return _remove(repository, violation, aggregate)


def _remove(
    repository: MetaRepository, violation: Violation, aggregate: EventVersion | None, keep_intent: bool = False
) -> str:
    """Remove what was written of the violation's version (its intent too, unless ``keep_intent``)."""
    committed = repository.committed_events([violation.event_key]).get(violation.event_key)
    removed = repository.delete_version(
        violation.format, violation.date, violation.event_key, violation.digest, keep_intent
    )
    note = f"removed what was written of it ({removed} deck(s))"
    if aggregate is None or aggregate.digest != violation.digest:
        if committed and committed != violation.digest:
            return note + "; the committed version is kept"
        return f"{note}; {_reingest(violation)} to store it"
    # the aggregate stored is this broken version's: the committed version's aggregate is gone with it
    repository.delete_aggregate(violation.format, violation.date, violation.event_key)
    if committed:
        repository.delete_event(violation.event_key)
        note += " and the event, whose committed version's aggregate it had replaced"
    return f"{note}; {_reingest(violation)} to store it"


def _remove_failed(repository: MetaRepository, violation: Violation, _: RepairReport) -> str | Left:
    """A version whose ingest failed: never committed. What was written of it is removed; its marker (the failed
    intent) stays, naming the file, until an ingest commits the event."""
    aggregate = repository.aggregate_data(violation.format, violation.date, violation.event_key)
    written = aggregate is not None and aggregate.digest == violation.digest
    removing = written or _has_decks(repository, violation)
    note = _remove(repository, violation, aggregate, keep_intent=True) if removing else ""
    if repository.committed_events([violation.event_key]).get(violation.event_key):
        repository.delete_intent(violation.format, violation.date, violation.event_key, violation.digest)
        return (note + "; " if note else "") + "the event is committed (ingested since): its failure is cleared"
    return Left(note or f"{_reingest(violation)} to store it")  # what removes it names the file to ingest too


def _has_decks(repository: MetaRepository, violation: Violation) -> bool:
    return repository.stored_event(violation.event_key).deck_versions.get(violation.digest, 0) > 0


def _mark_failed(repository: MetaRepository, violation: Violation, reason: str) -> None:
    intent = WriteIntent(
        violation.format, violation.date, violation.event_key, violation.digest, violation.source_file, reason
    )
    repository.put_failed_marker(intent)


def _uncommit_incomplete(repository: MetaRepository, violation: Violation, _: RepairReport) -> Left:
    """A committed event missing decks: its file must be ingested again. Its marker goes first (so a kill leaves
    it named), then its aggregate and event; the day pass then recounts the day without it."""
    _mark_failed(repository, violation, f"its decks were incomplete: {violation.detail}")
    repository.delete_aggregate(violation.format, violation.date, violation.event_key)
    repository.delete_event(violation.event_key)
    return Left(f"removed the event, whose decks are incomplete, from the statistics; {_reingest(violation)}")


def _drop_stale_decks(repository: MetaRepository, violation: Violation, _: RepairReport) -> str:
    removed = repository.delete_other_versions(violation.event_key, violation.digest, violation.format, violation.date)
    return f"deleted {removed} deck(s) of other versions"


def _recount_day(repository: MetaRepository, violation: Violation, report: RepairReport) -> str:
    """Rebuild the day from its committed events' aggregates (never from a stored total), once per repair."""
    if (violation.format, violation.date) in report.recounted:
        return "recounted with the day's other violations"
    report.recounted.add((violation.format, violation.date))
    rebuilt = repository.rebuild_day(violation.format, violation.date, committed_only=True, summed=day_totals)
    report.rebuilt.append(rebuilt)
    before = rebuilt.before
    was = (before.tournaments, before.decks) if before else (0, 0)
    return (
        f"recounted: {was[0]} → {rebuilt.tournaments} tournaments, {was[1]:,} → {rebuilt.decks:,} decks "
        f"({len(rebuilt.events)} committed event(s))"
    )


def _refresh_registry(repository: MetaRepository, violation: Violation, report: RepairReport) -> str:
    repository.refresh_format(violation.format)
    report.refreshed.add(violation.format)
    return "rewritten from its days"


def _delete_unlisted(repository: MetaRepository, violation: Violation, _: RepairReport) -> str:
    deleted = repository.delete_unlisted_archetype(
        violation.format, violation.date, violation.archetype, violation.parts
    )
    return "deleted them" if deleted else "kept them: the day lists the archetype again (written meanwhile)"


FIXERS: dict[str, Fixer] = {
    "interrupted write": _finish_or_remove,
    "uncommitted aggregate": _finish_or_remove,
    "failed write": _remove_failed,
    "stale decks": _drop_stale_decks,
    "missing decks": _uncommit_incomplete,
    "day": _recount_day,
    "day totals": _recount_day,
    "missing archetype items": _recount_day,
    "unlisted archetype items": _delete_unlisted,
    "registry": _refresh_registry,
}
