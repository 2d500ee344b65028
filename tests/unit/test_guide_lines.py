"""A guide that brings nothing in never reads "stay with the main deck" beside cards to bring in."""

from __future__ import annotations

from meta_mage.agent.tasks.decks import _guide_lines
from meta_mage.models.decks import SideboardGuide


def guide(held: list[str]) -> SideboardGuide:
    return SideboardGuide(
        opponent="Jeskai Blink",
        record=None,
        bring_in=[],
        take_out=[],
        held_back=held,
        mainboard_after=60,
        sideboard_after=15,
    )


def test_cards_worth_bringing_in_are_not_told_beside_stay_with_the_main_deck() -> None:
    [line] = _guide_lines(guide(["March of Otherworldly Light", "Wrath of the Skies"]))
    assert isinstance(line, str)
    assert "stay with the main deck" not in line
    assert "no main-deck card does less here than your sideboard's answers" in line
    assert "March of Otherworldly Light" in line


def test_with_nothing_worth_bringing_in_the_guide_says_stay() -> None:
    [line] = _guide_lines(guide([]))
    assert isinstance(line, str) and line.endswith("stay with the main deck.")
