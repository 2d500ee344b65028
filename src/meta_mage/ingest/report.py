"""What an ingest run did, and a progress bar that only draws on a terminal."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from tqdm import tqdm

T = TypeVar("T")


@dataclass
class IngestReport:
    """One line per file (its outcome, and why where it helps), counts per outcome that add up to the lines,
    every failed file with its reason.

    ``storage_failures`` names the files that failed on a DynamoDB error rather than on their
    content: retrying them may succeed, retrying a bad file never does.
    """

    kind: str
    outcomes: Counter[str] = field(default_factory=Counter)
    totals: Counter[str] = field(default_factory=Counter)
    failures: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    storage_failures: set[str] = field(default_factory=set)
    files: list[tuple[str, str, str]] = field(default_factory=list)  # (file, outcome, detail)
    provisional: list[str] = field(default_factory=list)  # new and retired provisional archetypes, one line each
    relabel_pending: list[str] = field(default_factory=list)  # files to ingest again to re-label their decks

    @property
    def ok(self) -> bool:
        return not self.failures

    def file(self, source: str, outcome: str, detail: str = "") -> None:
        """Record what happened to one file."""
        self.files.append((source, outcome, detail))
        self.outcomes[outcome] += 1

    def fail(self, source: str, reason: str, *, storage: bool = False) -> None:
        """Record a failed file; ``storage`` when DynamoDB failed, not the file."""
        self.failures.append((source, reason))
        self.file(source, "failed", reason)
        if storage:
            self.storage_failures.add(source)

    def fail_step(self, what: str, reason: str) -> None:
        """Record a failed step of the run that is not a file (a format registry): retried, not counted as a file."""
        self.failures.append((what, reason))
        self.storage_failures.add(what)

    def merge_relabelled(self, again: IngestReport) -> None:
        """Add what ingesting events again to re-label them did: each replaced file as ``re-labelled``, each
        failure as a failure (an unchanged file, stored meanwhile, adds nothing)."""
        for source, outcome, detail in again.files:
            if outcome in ("replaced", "added"):
                self.file(source, "re-labelled", "its decks' archetypes changed")
            elif outcome == "failed":
                self.fail(source, f"while re-labelling it: {detail}", storage=source in again.storage_failures)
        self.failures += [(what, why) for what, why in again.failures if what not in {s for s, _, _ in again.files}]
        self.storage_failures |= again.storage_failures

    def file_lines(self) -> list[str]:
        """One line per file: ``stored``, ``unchanged``, ``replaced``, ``FAILED <file>: <reason>`` and the like."""
        return [
            f"  FAILED {source}: {detail}"
            if outcome == "failed"
            else f"  {source}: {_SHOWN.get(outcome, outcome)}{': ' + detail if detail else ''}"
            for source, outcome, detail in self.files
        ]

    def summary(self) -> str:
        """One human line of counts (which add up to the file lines), then one line per file and the notes."""
        parts = [f"{n} {k}" for k, n in sorted(self.outcomes.items())]
        totals = [f"{n} {k}" for k, n in sorted(self.totals.items())]
        lines = [f"{self.kind}: " + ", ".join(parts or ["nothing to do"])]
        if totals:
            lines.append("  " + ", ".join(totals))
        lines += self.file_lines()
        files = {source for source, _, _ in self.files}
        lines += [f"  FAILED {what}: {reason}" for what, reason in self.failures if what not in files]
        lines += [f"  {line}" for line in self.provisional]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


_SHOWN = {"added": "stored"}


def progress(items: Iterable[T], total: int | None, description: str) -> Iterator[T]:
    """Wrap ``items`` in a progress bar on an interactive terminal, silently otherwise."""
    yield from tqdm(items, total=total, desc=description, unit="file", disable=not sys.stderr.isatty())
