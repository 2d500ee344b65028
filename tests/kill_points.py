"""Kill a run at its n-th DynamoDB write: the write is never sent, and nothing after it runs (as a SIGKILL
between two writes leaves the table), so a test can enumerate every write point of an operation."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

WRITES = frozenset({"PutItem", "BatchWriteItem", "TransactWriteItems", "UpdateItem", "DeleteItem"})


class Killed(BaseException):
    """The process 'died' here (a BaseException: no ``except Exception`` of the code under test catches it)."""


@contextmanager
def killed_at(client: Any, write: int | None) -> Iterator[Callable[[], int]]:
    """Count the writes made through ``client`` and raise :class:`Killed` in place of the ``write``-th
    (``None``: only count); yields the count so far."""
    count = 0

    def before_call(model: Any, **_: Any) -> None:
        nonlocal count
        if model.name in WRITES:
            count += 1
            if count == write:
                raise Killed(f"killed at write {write} ({model.name})")

    client.meta.events.register("before-call.dynamodb", before_call)
    try:
        yield lambda: count
    finally:
        client.meta.events.unregister("before-call.dynamodb", before_call)


def writes_of(client: Any, operation: Callable[[], object]) -> int:
    """How many writes ``operation`` makes when nothing kills it."""
    with killed_at(client, None) as count:
        operation()
    return count()


def run_killed(client: Any, write: int, operation: Callable[[], object]) -> bool:
    """Run ``operation`` killed at its ``write``-th write; whether the kill happened."""
    try:
        with killed_at(client, write):
            operation()
    except Killed:
        return True
    return False


@contextmanager
def interleaved_at(client: Any, write: int, other: Callable[[], object]) -> Iterator[None]:
    """Run ``other`` whole just before the ``write``-th write made through ``client`` (as a second process
    would, had the scheduler switched there); its own writes are not counted."""
    count = 0
    running = False

    def before_call(model: Any, **_: Any) -> None:
        nonlocal count, running
        if model.name not in WRITES or running:
            return
        count += 1
        if count == write:
            running = True
            try:
                other()
            finally:
                running = False

    client.meta.events.register("before-call.dynamodb", before_call)
    try:
        yield
    finally:
        client.meta.events.unregister("before-call.dynamodb", before_call)
