"""Reading the state's route and pending request: models as they are, dicts from older checkpoints
validated into models, nothing (or an empty dict) as None."""

from typing import Any

import pytest

from meta_mage.agent.state import Pending, Route, pending_of, route_of

ROUTE = Route(workflow="meta_research", task="rankings", confidence=0.85, format="Modern", question="top decks?")


@pytest.mark.parametrize("value", [None, {}])
def test_nothing_stored_reads_as_none(value: Any) -> None:
    assert route_of({"route": value}) is None and pending_of({"pending": value}) is None
    assert route_of({}) is None and pending_of({}) is None


def test_a_model_reads_as_itself() -> None:
    pending = Pending(workflow="meta_research", task="rankings", missing="days", route=ROUTE)
    assert route_of({"route": ROUTE}) is ROUTE
    assert pending_of({"pending": pending}) is pending


def test_a_dict_from_an_older_checkpoint_is_validated_into_the_model() -> None:
    stored = {"workflow": "meta_research", "task": "rankings", "missing": "days", "route": ROUTE.model_dump()}
    pending = pending_of({"pending": stored})
    assert pending == Pending(workflow="meta_research", task="rankings", missing="days", route=ROUTE)
    assert route_of({"route": ROUTE.model_dump()}) == ROUTE


def test_a_partial_dict_keeps_what_it_says() -> None:
    pending = pending_of({"pending": {"missing": "format", "route": {"question": "top decks?"}}})
    assert pending is not None and pending.route is not None
    assert (pending.workflow, pending.task, pending.missing, pending.route.question) == (
        None,
        None,
        "format",
        "top decks?",
    )
