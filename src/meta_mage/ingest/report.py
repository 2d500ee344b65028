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
    """Counts per outcome plus every failed file with its reason.

    ``storage_failures`` names the files that failed on a DynamoDB error rather than on their
    content: retrying them may succeed, retrying a bad file never does.
    """

    kind: str
    outcomes: Counter[str] = field(default_factory=Counter)
    totals: Counter[str] = field(default_factory=Counter)
    failures: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    storage_failures: set[str] = field(default_factory=set)

    @property
    def ok(self) -> bool:
        return not self.failures

    def fail(self, source: str, reason: str, *, storage: bool = False) -> None:
        """Record a failed file; ``storage`` when DynamoDB failed, not the file."""
        self.failures.append((source, reason))
        self.outcomes["failed"] += 1
        if storage:
            self.storage_failures.add(source)

    def summary(self) -> str:
        """One human line of counts, then one line per failure."""
        parts = [f"{n} {k}" for k, n in sorted(self.outcomes.items())]
        totals = [f"{n} {k}" for k, n in sorted(self.totals.items())]
        lines = [f"{self.kind}: " + ", ".join(parts or ["nothing to do"])]
        if totals:
            lines.append("  " + ", ".join(totals))
        lines += [f"  note: {note}" for note in self.notes]
        lines += [f"  FAILED {source}: {reason}" for source, reason in self.failures]
        return "\n".join(lines)


def progress(items: Iterable[T], total: int | None, description: str) -> Iterator[T]:
    """Wrap ``items`` in a progress bar on an interactive terminal, silently otherwise."""
    yield from tqdm(items, total=total, desc=description, unit="file", disable=not sys.stderr.isatty())
