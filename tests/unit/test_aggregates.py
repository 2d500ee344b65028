"""Summing stored aggregates (``models/aggregates.py``): counts add, dicts merge, and a source is copied
unless it is handed over."""

import copy
from typing import Any

from meta_mage.models.aggregates import merge

DAY_ONE = {"decks": 2, "record": [3, 1, 0], "archetypes": {"Burn": {"decks": 2, "colors": {"R": 2}}}, "sources": ["a"]}
DAY_TWO = {
    "decks": 1,
    "record": [0, 2, 1],
    "archetypes": {"Burn": {"decks": 1}, "Tron": {"decks": 1}},
    "sources": ["b"],
}
SUM = {
    "decks": 3,
    "record": [3, 3, 1],
    "archetypes": {"Burn": {"decks": 3, "colors": {"R": 2}}, "Tron": {"decks": 1}},
    "sources": ["a", "b"],
}


def test_days_sum_alike_copied_or_handed_over() -> None:
    for owned in (False, True):
        total: dict[str, Any] = {}
        for day in copy.deepcopy([DAY_ONE, DAY_TWO]):
            merge(total, day, owned=owned)
        assert total == SUM, owned


def test_a_copied_source_is_left_as_it_was() -> None:
    # Given a day summed into an empty total by copy
    day = copy.deepcopy(DAY_ONE)
    total: dict[str, Any] = {}
    merge(total, day)
    # When the next day is added
    merge(total, copy.deepcopy(DAY_TWO))
    # Then the first day's figures are still its own
    assert day == DAY_ONE
