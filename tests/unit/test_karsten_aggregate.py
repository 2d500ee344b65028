"""Frank Karsten's aggregate (``analytics/karsten.py``) on real lists: the three Boros Energy lists of the Modern
Challenge 64 of 2025-11-01 (MTGO event 12822690, in the bundled demo data: PetrKikac1 1st, Brunes 14th,
ZVendetta 23rd), aggregated by hand below; and the rules on small made-up piles where a rule needs a case the
real lists do not hold."""

from __future__ import annotations

import json
import tarfile
from collections import Counter
from functools import cache

from meta_mage.analytics.karsten import aggregate, usual_size
from meta_mage.config import DEMO_DATA_DIR
from meta_mage.models.cards import front_face

EVENT = "Tournaments/MTGO/2025/11/01/modern-challenge-64-2025-11-0112822690.json"
PLAYERS = ("PetrKikac1", "Brunes", "ZVendetta")

# By hand: 49 card-copies are in all three main decks; 14 are in two of them, for the 11 slots left. Those of
# the cards all three lists play come first (Marsh Flats' 3rd and 4th, Seasoned Pyromancer's 3rd, Voice of
# Victory's 2nd), then by copies over the three lists: Flooded Strand and Windswept Heath (7 each: three copies
# each, by copy number then name), then Blood Moon (4 copies) over Fable of the Mirror-Breaker (3) and
# Ranger-Captain of Eos (2), which stay out.
HAND_MAIN = {
    "Ajani, Nacatl Pariah": 4,
    "Arid Mesa": 4,
    "Galvanic Discharge": 4,
    "Guide of Souls": 4,
    "Marsh Flats": 4,
    "Ocelot Pride": 4,
    "Phlage, Titan of Fire's Fury": 4,
    "Ragavan, Nimble Pilferer": 4,
    "Arena of Glory": 3,
    "Flooded Strand": 3,
    "Goblin Bombardment": 3,
    "Sacred Foundry": 3,
    "Seasoned Pyromancer": 3,
    "Windswept Heath": 3,
    "Elegant Parlor": 2,
    "Plains": 2,
    "Thraben Charm": 2,
    "Voice of Victory": 2,
    "Blood Moon": 1,
    "Static Prison": 1,
}
# Six card-copies in all three sideboards, six in two; three of the copies in one list fill the 15: the 2nd
# copies of the cards all three play (Celestial Purge, Surgical Extraction, Wear), not Molten Rain, four
# copies in one list. Those three are flex copies (in 1 of 3 lists, under 50 %).
HAND_SIDE = {
    "Celestial Purge": 2,
    "Surgical Extraction": 2,
    "Vexing Bauble": 2,
    "Wear": 2,
    "Wrath of the Skies": 2,
    "Damping Sphere": 1,
    "Obsidian Charmaw": 1,
    "Orim's Chant": 1,
    "Showdown of the Skalds": 1,
    "Stony Silence": 1,
}


def _pile(lines: list[dict[str, object]]) -> dict[str, int]:
    pile: Counter[str] = Counter()
    for line in lines:
        pile[front_face(str(line["CardName"]))] += int(str(line["Count"]))  # stored lists keep front faces
    return dict(pile)


@cache
def _lists() -> tuple[list[dict[str, int]], list[dict[str, int]]]:
    with tarfile.open(DEMO_DATA_DIR / "tournaments.tar.gz") as archive:
        member = archive.extractfile(EVENT)
        assert member is not None
        decks = {deck["Player"]: deck for deck in json.loads(member.read())["Decks"]}
    chosen = [decks[player] for player in PLAYERS]
    return [_pile(d["Mainboard"]) for d in chosen], [_pile(d["Sideboard"]) for d in chosen]


def test_three_real_boros_energy_lists_aggregate_as_worked_by_hand() -> None:
    mains, sides = _lists()
    deck = aggregate(mains, sides)
    assert (deck.lists, deck.main.size, deck.side.size) == (3, 60, 15)
    assert deck.main.counts() == HAND_MAIN and sum(HAND_MAIN.values()) == 60
    assert deck.side.counts() == HAND_SIDE and sum(HAND_SIDE.values()) == 15
    flex = {card.name: card.flex_copies for card in (*deck.main.cards, *deck.side.cards) if card.flex_copies}
    assert flex == {"Celestial Purge": 1, "Surgical Extraction": 1, "Wear": 1}


def test_each_card_carries_its_inclusion_and_average_copies_among_the_lists_that_play_it() -> None:
    mains, sides = _lists()
    cards = {card.name: card for card in aggregate(mains, sides).main.cards}
    marsh = cards["Marsh Flats"]  # 2, 4 and 4 copies
    assert (marsh.lists_with, marsh.average_copies, marsh.at_least) == (3, 3.33, (3, 3, 2, 2))
    moon = cards["Blood Moon"]  # 2, 2 and none
    assert (moon.copies, moon.lists_with, moon.average_copies, moon.at_least) == (1, 2, 2.0, (2,))


def test_the_size_is_the_most_common_and_a_tie_takes_the_smaller() -> None:
    assert usual_size([{"A": 60}, {"A": 61}, {"A": 60}]) == 60
    assert usual_size([{"A": 61}, {"A": 60}]) == 60
    assert usual_size([]) == 0


def test_no_card_gets_more_copies_over_the_75_than_one_list_plays() -> None:
    # Given two lists of four main-deck Bolts, and two of three Bolts with the fourth in the sideboard
    mains = [{"Bolt": 4}, {"Bolt": 4}, {"Bolt": 3, "Land": 1}, {"Bolt": 3, "Land": 1}]
    sides = [{"Hate": 1, "Other": 1}, {"Hate": 1, "Other": 1}, {"Bolt": 1, "Hate": 1}, {"Bolt": 1, "Hate": 1}]
    deck = aggregate(mains, sides)
    # Then the main deck's 4th Bolt (two lists) beats the Land (two lists) as more lists play Bolt, and the
    # sideboard's Bolt (two lists, before Other by name) is passed over: no list plays five
    assert deck.main.counts() == {"Bolt": 4}
    assert deck.side.counts() == {"Hate": 1, "Other": 1}
