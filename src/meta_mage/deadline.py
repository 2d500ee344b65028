"""Cooperative deadlines for tool work: the tool runner sets one, long loops check it.

The deadline lives in a context variable, so the worker thread a tool runs in sees the deadline of
the call that started it (the runner copies the context into the thread). A thread cannot be killed;
a tool stops because its loops call ``check_deadline``, which raises ``ToolTimeout`` once it passed.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from meta_mage.errors import MetaMageError


class ToolTimeout(MetaMageError):
    """A tool call ran past its deadline (raised inside the tool, which then stops)."""

    code = "tool_timeout"


@dataclass(frozen=True)
class Deadline:
    at: float  # time.monotonic()
    message: str  # what the user is told when it passes

    def seconds_left(self) -> float:
        return max(0.0, self.at - time.monotonic())


_CURRENT: ContextVar[Deadline | None] = ContextVar("meta_mage_deadline", default=None)


def timeout_message(name: str, seconds: float) -> str:
    """The sentence a timed-out tool call becomes (the agent's ``tool_call`` error event shows it)."""
    return f"{name} did not answer within {seconds:g} second{'' if seconds == 1 else 's'}"


@contextlib.contextmanager
def deadline(seconds: float | None, name: str) -> Iterator[Deadline | None]:
    """Within the block, work on ``name`` must end ``seconds`` from now, or by the deadline already set
    if that is sooner. ``seconds=None`` keeps the current deadline (None when there is none)."""
    current = _CURRENT.get()
    if seconds is None:
        yield current
        return
    mine = Deadline(time.monotonic() + seconds, timeout_message(name, seconds))
    chosen = mine if current is None or mine.at < current.at else current
    token = _CURRENT.set(chosen)
    try:
        yield chosen
    finally:
        _CURRENT.reset(token)


def current_deadline() -> Deadline | None:
    """The deadline of the work running in this context, if any."""
    return _CURRENT.get()


def check_deadline() -> None:
    """Raise ``ToolTimeout`` when the current deadline has passed; cheap enough for every loop turn."""
    current = _CURRENT.get()
    if current is not None and time.monotonic() >= current.at:
        raise ToolTimeout(current.message)
