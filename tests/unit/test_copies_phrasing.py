"""How a deck's key cards' average copies read in an answer."""

import pytest

from meta_mage.agent.tasks.decks import _copies


@pytest.mark.parametrize(
    ("average", "said"),
    [
        (3.99, "4 copies"),
        (1.0, "1 copy"),
        (0.98, "1 copy"),
        (2.16, "2.2 copies on average"),
        (3.09, "3.1 copies on average"),
    ],
)
def test_average_copies_read_as_a_player_counts(average: float, said: str) -> None:
    assert _copies(average) == said
