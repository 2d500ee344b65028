"""Reliability suite: the bad-input collector and the summary line it prints at the end of the run."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest


@dataclass(frozen=True)
class BadInputOutcome:
    """One bad input: where it was sent, what came back, whether that was clean and whether a table changed."""

    case: str
    surface: str
    outcome: str
    clean: bool
    changed: bool


@dataclass
class BadInputs:
    """Every bad input tried during the run (``tests/reliability/test_bad_input.py`` records them)."""

    outcomes: list[BadInputOutcome] = field(default_factory=list)

    def record(self, outcome: BadInputOutcome) -> None:
        self.outcomes.append(outcome)

    @property
    def tried(self) -> int:
        return len(self.outcomes)

    @property
    def clean(self) -> int:
        return sum(o.clean for o in self.outcomes)

    @property
    def changed(self) -> int:
        return sum(o.changed for o in self.outcomes)

    def line(self) -> str:
        return f"{self.tried} bad inputs tried, {self.clean} rejected cleanly, {self.changed} state changes"


BAD_INPUTS = BadInputs()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The summary line (shown with or without ``-s``); with ``-v`` also every case and its outcome."""
    if not BAD_INPUTS.tried:
        return
    terminalreporter.section("bad input")
    if terminalreporter.config.get_verbosity() > 0:
        for o in BAD_INPUTS.outcomes:
            mark = "ok " if o.clean and not o.changed else "BAD"
            terminalreporter.write_line(f"{mark} {o.surface:10} {o.case:45} {o.outcome}")
    terminalreporter.write_line(BAD_INPUTS.line())
