"""The MetaTable's storage invariants, and a check that reads the table and reports every violation.

1. **No write left half-done.** Every event version whose write began (its intent) was committed or removed.
   A version whose ingest failed (its intent marked ``failed``: the file was reported FAILED) is never
   committed: repair removes what was written of it and names its file until that file is ingested.
2. **Aggregates are committed.** Every stored event aggregate is the version its event's header commits.
3. **Decks are the committed version's.** A committed event holds as many decks as its header says, all of
   its version; no deck of another version is left.
4. **Each committed event is counted exactly once, at its version.** A day counts exactly the committed events
   of that date, each at the version its header commits, and its archetype items are all written.
5. **The format registry is the sum of its days** (tournaments, decks, matches, first and last date).
6. **A day's totals are its events'.** Its tournaments, decks and matches, its statistics (all parts summed) and
   the archetypes it lists are what the aggregates of the events it counts sum to.
7. **A day's archetype items are the ones it lists.** A complete day has every part of every archetype it
   lists, and no archetype item is stored that its day does not list.

``meta-mage repair --check`` runs :func:`check_storage` (reads only); ``meta-mage repair`` fixes what it finds
(``ingest/repair.py``). A kill at any write of ingest, repair or reseed leaves only violations repair can fix.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from meta_mage.analytics.day_totals import day_totals
from meta_mage.models.meta import FormatSummary
from meta_mage.models.tournaments import FORMATS
from meta_mage.storage.meta import DayState, MetaRepository, StoredAggregate, WriteIntent, registry_summary


@dataclass(frozen=True)
class Violation:
    """One broken invariant: which, where, and what was found."""

    invariant: int
    kind: str  # interrupted write | uncommitted aggregate | stale decks | missing decks | day | registry
    format: str
    date: str
    event_key: str
    detail: str
    source_file: str = ""
    digest: str = ""
    archetype: str = ""  # an archetype item's (invariant 7)
    parts: tuple[int, ...] = ()

    def line(self) -> str:
        where = " ".join(part for part in (self.format, self.date, self.event_key) if part)
        return f"[{self.invariant}] {where}: {self.detail}"


@dataclass
class StorageCheck:
    """What a check read and the violations it found."""

    events: int = 0
    days: int = 0
    formats: int = 0
    violations: list[Violation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations

    def lines(self) -> list[str]:
        head = (
            f"check: {self.events:,} events, {self.days:,} days, {self.formats} formats read; "
            f"{len(self.violations)} violation(s)"
        )
        return [head] + [f"  {violation.line()}" for violation in self.violations]


@dataclass
class FormatReads:
    """What a check has already read of one format, so no pass reads it again (repair's passes, each after
    fixes, read afresh)."""

    aggregates: list[StoredAggregate]
    committed: dict[str, str] = field(default_factory=dict)  # event key -> the version its header commits
    days: dict[str, DayState] | None = None
    archetype_items: dict[tuple[str, str], dict[str, set[int]]] | None = None  # (format, date) -> archetype -> parts


def check_storage(repository: MetaRepository, formats: Iterable[str] = FORMATS, since: str = "") -> StorageCheck:
    """Every violation of the invariants among ``formats``' events and days dated ``since`` or later."""
    result = StorageCheck()
    registry = repository.registry_entries()
    archetype_items = repository.archetype_items(since)
    for fmt in formats:
        read = FormatReads(repository.stored_aggregates(fmt, since), archetype_items=archetype_items)
        result.violations += event_violations(repository, fmt, since, result, read)
        read.days = repository.day_states(fmt, since)
        result.violations += day_violations(repository, fmt, since, result, read)
        # the days read are the format's every day when nothing is left out by ``since``
        expected = registry_summary(fmt, read.days.items()) if not since else repository.registry_entry(fmt)[1]
        result.violations += _registry_violation(fmt, registry.get(fmt), expected)
        result.formats += 1
    return result


def event_violations(
    repository: MetaRepository,
    fmt: str,
    since: str = "",
    tally: StorageCheck | None = None,
    read: FormatReads | None = None,
) -> list[Violation]:
    """Invariants 1-3 for one format (fills ``read.committed``)."""
    intents = repository.write_intents(fmt, since)
    read = read or FormatReads(repository.stored_aggregates(fmt, since))
    found = [_interrupted(intent, read.aggregates) for intent in intents]
    pending = {(intent.event_key, intent.digest) for intent in intents}
    for aggregate in read.aggregates:
        if tally:
            tally.events += 1
        found += _event_problems(repository, aggregate, pending, read.committed)
    return found


def _event_problems(
    repository: MetaRepository, aggregate: StoredAggregate, pending: set[tuple[str, str]], committed: dict[str, str]
) -> list[Violation]:
    """What is wrong with one stored event: an aggregate nothing commits, decks missing or left over."""
    event = repository.stored_event(aggregate.event_key)
    if event.header is not None:
        committed[aggregate.event_key] = event.header.digest
    version = committed.get(aggregate.event_key)
    if version is None or version != aggregate.digest:
        if (aggregate.event_key, aggregate.digest) in pending:
            return []  # reported as an interrupted write
        return [_uncommitted(aggregate, version)]
    where = (aggregate.format, aggregate.date, aggregate.event_key)
    found = []
    expected = event.header.decks if event.header else 0
    stored = event.deck_versions.get(version, 0)
    if stored != expected:
        detail = f"its header says {expected} decks, {stored} are stored"
        found.append(Violation(3, "missing decks", *where, detail, aggregate.source_file, version))
    stale = {
        other: n
        for other, n in event.deck_versions.items()
        if other != version and (aggregate.event_key, other) not in pending
    }
    if stale:
        detail = f"{sum(stale.values())} deck(s) of {len(stale)} other version(s) left beside the committed one"
        found.append(Violation(3, "stale decks", *where, detail, aggregate.source_file, version))
    return found


def _interrupted(intent: WriteIntent, aggregates: list[StoredAggregate]) -> Violation:
    if intent.failed:
        return Violation(
            1,
            "failed write",
            intent.format,
            intent.date,
            intent.event_key,
            f"the ingest of {intent.source_file or 'an unnamed file'} failed ({intent.failed[:200]}): never committed",
            intent.source_file,
            intent.digest,
        )
    stored = any(a.event_key == intent.event_key and a.digest == intent.digest for a in aggregates)
    how = "its decks and aggregate are stored, not committed" if stored else "stopped before its aggregate"
    return Violation(
        1,
        "interrupted write",
        intent.format,
        intent.date,
        intent.event_key,
        f"an ingest of {intent.source_file or 'an unnamed file'} was interrupted ({how})",
        intent.source_file,
        intent.digest,
    )


def _uncommitted(aggregate: StoredAggregate, committed: str | None) -> Violation:
    what = "no header commits it" if committed is None else f"its header commits another version ({committed})"
    return Violation(
        2,
        "uncommitted aggregate",
        aggregate.format,
        aggregate.date,
        aggregate.event_key,
        f"the aggregate of version {aggregate.digest or '(unversioned)'} is stored but {what}",
        aggregate.source_file,
        aggregate.digest or "",
    )


def day_violations(
    repository: MetaRepository,
    fmt: str,
    since: str = "",
    tally: StorageCheck | None = None,
    read: FormatReads | None = None,
) -> list[Violation]:
    """Invariants 4, 6 and 7 for one format (what ``read`` holds is not read again)."""
    aggregates = read.aggregates if read else repository.stored_aggregates(fmt, since)
    by_date: dict[str, list[StoredAggregate]] = {}
    for aggregate in aggregates:
        by_date.setdefault(aggregate.date, []).append(aggregate)
    days = read.days if read and read.days is not None else repository.day_states(fmt, since)
    items = read.archetype_items if read and read.archetype_items is not None else repository.archetype_items(since)
    item_dates = {date for item_format, date in items if item_format == fmt}
    found = []
    for date in sorted(set(by_date) | set(days) | item_dates):
        if tally:
            tally.days += 1
        counted = _committed(repository, read, {aggregate.event_key for aggregate in by_date.get(date, [])})
        problem = _day_problem(days.get(date), counted)
        if problem:
            found.append(Violation(4, "day", fmt, date, "", problem))
        found += _total_violations(repository, fmt, date, days.get(date))
        found += _archetype_item_violations(fmt, date, days.get(date), items.get((fmt, date), {}))
    return found


def _committed(repository: MetaRepository, read: FormatReads | None, keys: set[str]) -> dict[str, str]:
    """Those of ``keys`` committed, with their versions (from what ``read`` holds when given)."""
    if read is None:
        return repository.committed_events(keys)
    return {key: read.committed[key] for key in keys if key in read.committed}


def _day_problem(state: DayState | None, committed: dict[str, str]) -> str | None:
    if state is None:
        return f"no day item, {len(committed)} committed event(s)" if committed else None
    if state.events != set(committed):
        extra, missing = sorted(state.events - set(committed)), sorted(set(committed) - state.events)
        parts = ([f"counts {', '.join(extra)} (not committed)"] if extra else []) + (
            [f"misses {', '.join(missing)}"] if missing else []
        )
        return "; ".join(parts)
    wrong = sorted(key for key, digest in committed.items() if state.digests.get(key, digest) != digest)
    if wrong:
        return f"counts another version of {', '.join(wrong)} than its header commits"
    if not state.complete:
        return f"its archetype items stop at version {state.archetypes_version} of {state.version}"
    return None


_TOTALS = ("tournaments", "decks", "matches")


def _total_violations(repository: MetaRepository, fmt: str, date: str, state: DayState | None) -> list[Violation]:
    """Invariant 6: the day's totals, statistics and archetypes against its events' aggregates summed afresh."""
    if state is None:
        return []
    events = repository.counted_events(fmt, date, state.events)
    recount = day_totals(events)
    archetypes = frozenset(recount.archetypes)
    problems = [
        f"{key} {getattr(state, key):,} (its events say {getattr(recount.format, key):,})"
        for key in _TOTALS
        if getattr(state, key) != getattr(recount.format, key)
    ]
    if repository.stored_day_data(fmt, date) != recount.format:
        problems.append("its statistics are not the sum of its events'")
    if state.archetypes != archetypes:
        listed, expected = state.archetypes - archetypes, archetypes - state.archetypes
        problems.append(
            "its archetypes differ from its events' ("
            + "; ".join(
                part
                for part in (
                    f"lists {', '.join(sorted(listed))}" if listed else "",
                    f"misses {', '.join(sorted(expected))}" if expected else "",
                )
                if part
            )
            + ")"
        )
    if not problems:
        return []
    return [Violation(6, "day totals", fmt, date, "", "; ".join(problems))]


def _archetype_item_violations(
    fmt: str, date: str, state: DayState | None, items: dict[str, set[int]]
) -> list[Violation]:
    """Invariant 7: a complete day's archetypes each have every part; no archetype item its day does not list."""
    listed = state.archetypes if state else frozenset()
    found = []
    if state is not None and state.complete:
        missing = sorted(
            archetype
            for archetype in listed
            if not set(range(1, state.archetype_parts.get(archetype, 1) + 1)) <= items.get(archetype, set())
        )
        if missing:
            found.append(
                Violation(
                    7, "missing archetype items", fmt, date, "", f"lists {', '.join(missing)} without its item(s)"
                )
            )
    for archetype in sorted(set(items) - listed):
        detail = f"{len(items[archetype])} item(s) of {archetype} are stored that the day does not list"
        parts = tuple(sorted(items[archetype]))
        found.append(Violation(7, "unlisted archetype items", fmt, date, "", detail, archetype=archetype, parts=parts))
    return found


def registry_violations(repository: MetaRepository, fmt: str) -> list[Violation]:
    """Invariant 5 for one format."""
    return _registry_violation(fmt, *repository.registry_entry(fmt))


def _registry_violation(fmt: str, entry: FormatSummary | None, summed: FormatSummary | None) -> list[Violation]:
    stored, expected = _entry_fields(entry), _entry_fields(summed)
    if stored == expected:
        return []
    what = ", ".join(
        f"{key} {stored.get(key, '-')} (days say {expected.get(key, '-')})"
        for key in sorted(set(stored) | set(expected))
        if stored.get(key) != expected.get(key)
    )
    return [Violation(5, "registry", fmt, "", "", f"the registry differs from its days: {what}")]


def _entry_fields(entry: FormatSummary | None) -> dict[str, str | int]:
    """A registry entry's dates and totals by name ({} for none)."""
    return entry.model_dump(exclude={"format"}) if entry else {}
