"""Blood Moon hurts a deck by what its spells need and what its lands do, not by the word "nonbasic": a
mono-red deck casts every spell off Mountains (its hybrid Manamorphose too), and loses only lands whose
abilities its plan uses."""

from __future__ import annotations

from meta_mage.decks.matchup import Matchup
from tests.unit.test_card_answers_table import card

RUBY_STORM = ["Ruby Medallion", "Manamorphose", "Desperate Ritual", "Pyretic Ritual", "Grapeshot", "Past in Flames"]
JESKAI = ["Lightning Bolt", "Counterspell", "Ragavan, Nimble Pilferer", "Prismatic Ending"]


def matchup(spells: list[str], lands: list[str]) -> Matchup:
    return Matchup("unknown", [card(name) for name in [*spells, *lands]], {}, 2.0)


def test_hybrid_and_phyrexian_costs_are_castable_with_one_of_their_colours() -> None:
    assert card("Manamorphose").castable_with({"R"}) and card("Manamorphose").castable_with({"G"})
    assert card("Dismember").castable_with({"R"})  # {B/P}: paid with life
    assert not card("Counterspell").castable_with({"R"}) and card("Ruby Medallion").castable_with(set())


def test_blood_moon_misses_a_deck_whose_spells_mountains_cast() -> None:
    moon = card("Blood Moon")
    assert matchup(RUBY_STORM, ["Sacred Foundry", "Bloodstained Mire"]).moon_misses(moon)
    assert not matchup(JESKAI, ["Sacred Foundry"]).moon_misses(moon)


def test_a_moon_still_takes_the_abilities_a_plan_uses_from_its_lands() -> None:
    assert Matchup.land_plan(card("Urza's Saga"))
    assert not Matchup.land_plan(card("Bloodstained Mire")) and not Matchup.land_plan(card("Sacred Foundry"))
