"""The card-role reader (decks/roles.py) on real cards from the bundled corpus: what each card does, and
whether one card answers another by the rules (types, colours, mana value, toughness, abilities)."""

from __future__ import annotations

import gzip
import json
from functools import cache

import pytest

from meta_mage.card_rules.answers import verdicts
from meta_mage.card_rules.facts import CardFacts
from meta_mage.card_rules.reader import roles_of
from meta_mage.config import DEMO_DATA_DIR
from meta_mage.ingest.cards import parse_card_corpus


@cache
def corpus() -> dict[str, CardFacts]:
    with gzip.open(DEMO_DATA_DIR / "cards.json.gz") as file:
        cards = parse_card_corpus(json.loads(file.read()), "cards.json.gz")
    return {card.name: CardFacts.of(card) for card in cards}


def card(name: str) -> CardFacts:
    return corpus()[name]


# Every card with the kinds of role its rules text gives it (no role: it interacts with nothing directly).
ROLES = [
    ("Consign to Memory", ["counter"]),
    ("Meltdown", ["sweeper"]),
    ("Wrath of the Skies", ["sweeper"]),
    ("Force of Will", ["counter"]),
    ("Red Elemental Blast", ["counter", "removal"]),
    ("Blood Moon", ["land"]),
    ("Surgical Extraction", ["graveyard"]),
    ("Leyline of the Void", ["graveyard"]),
    ("Pithing Needle", ["ability"]),
    ("Stony Silence", ["ability"]),
    ("Flusterstorm", ["counter"]),
    ("Fatal Push", ["removal"]),
    ("Lightning Bolt", ["removal"]),
    ("High Noon", ["removal", "spell_limit"]),
    ("Prismatic Ending", ["removal"]),
    ("Thoughtseize", ["discard"]),
    ("Pyroblast", ["counter", "removal"]),
    ("Mystical Dispute", ["counter"]),
    ("Unholy Heat", ["removal"]),
    ("Galvanic Discharge", ["removal"]),
    ("Solitude", ["removal"]),  # its lifelink is no answer to anything (issue 23)
    ("Dress Down", ["ability"]),
    ("Tormod's Crypt", ["graveyard"]),
    ("Relic of Progenitus", ["graveyard"]),
    ("Rest in Peace", ["graveyard"]),
    ("Kor Firewalker", ["lifegain", "protection"]),
    ("Celestial Purge", ["removal"]),
    ("Wear // Tear", ["removal"]),
    ("Drown in the Loch", ["counter", "removal"]),
    ("Spell Pierce", ["counter"]),
    ("Damping Sphere", ["ability", "spell_limit"]),  # and lands that tap for more than one mana
    ("Chalice of the Void", ["counter"]),
    ("Deafening Silence", ["spell_limit"]),
    ("Grafdigger's Cage", ["graveyard"]),
    ("Doomskar", ["sweeper"]),
    ("Kozilek's Return", ["sweeper"]),
    ("Engineered Explosives", ["sweeper"]),
    ("Anger of the Gods", ["sweeper"]),
    ("Pyroclasm", ["sweeper"]),
    ("Brotherhood's End", ["sweeper"]),
    ("Fury", ["removal"]),
    ("Sheoldred's Edict", ["edict"]),
    ("Path to Exile", ["removal"]),
    ("Swords to Plowshares", ["removal"]),
    ("Dismember", ["removal"]),
    ("Counterspell", ["counter"]),
    ("Mana Leak", ["counter"]),
    ("Stern Scolding", ["counter"]),
    ("Annul", ["counter"]),
    ("Abrade", ["removal"]),
    ("Veil of Summer", ["protection"]),
    ("Alpine Moon", ["land"]),
    ("Magus of the Moon", ["land"]),
    ("Hydroblast", ["counter", "removal"]),
    ("Stifle", ["counter"]),
    ("Subtlety", ["counter"]),
    ("Orim's Chant", ["spell_limit"]),
    ("Void Mirror", ["counter"]),
    ("Ashiok, Dream Render", ["graveyard"]),
    ("Clarion Conqueror", ["ability"]),
    ("Static Prison", ["removal"]),
    ("Boseiju, Who Endures", ["removal"]),
    ("Shattering Spree", ["removal"]),
    ("Endurance", ["graveyard"]),
    ("Ranger-Captain of Eos", ["spell_limit"]),
    ("Ephemerate", []),
    ("Thoughtcast", []),
    ("Ragavan, Nimble Pilferer", []),
    ("Mountain", []),
    ("Arid Mesa", []),
    ("Ocelot Pride", []),
    ("Walking Ballista", ["removal"]),
    ("Hushbringer", ["ability"]),  # creatures entering or dying don't cause abilities to trigger
    ("Gaddock Teeg", ["spell_limit"]),  # noncreature spells with mana value 4 or greater can't be cast
    ("Living End", ["sweeper"]),  # each player sacrifices all creatures they control
    ("All Is Dust", ["sweeper"]),
    ("Emrakul, the Aeons Torn", ["edict"]),  # annihilator 6: the defending player's choice
    ("Kaito, Bane of Nightmares", ["removal"]),  # tap target creature, two stun counters
    ("Flowstone Infusion", ["removal"]),  # +2/-2
    ("Goblin Charbelcher", ["removal"]),  # damage equal to the nonland cards revealed, to any target
    ("Skred", ["removal"]),  # damage to target creature equal to the snow permanents
    ("Screaming Nemesis", ["removal"]),  # that much damage to any other target
    ("Marang River Regent // Coil and Catch", ["removal"]),  # up to two other target nonland permanents
    ("Thalia, Guardian of Thraben", []),  # a tax answers no card (its profile makes it interaction)
    ("Sphere of Resistance", []),
]


@pytest.mark.parametrize(("name", "kinds"), ROLES)
def test_roles_read_from_the_rules_text(name: str, kinds: list[str]) -> None:
    assert sorted({role.kind for role in roles_of(card(name))}) == kinds


# (answer, target, "yes" / "if" (only with a condition the caster can meet), or None when it cannot by the rules)
ANSWERS = [
    # Consign to Memory counters triggered abilities and colourless spells only
    ("Consign to Memory", "Ocelot Pride", "yes"),
    ("Consign to Memory", "Walking Ballista", "yes"),  # a colourless spell
    ("Consign to Memory", "Ephemerate", None),
    ("Consign to Memory", "Prismatic Ending", None),
    ("Consign to Memory", "Thoughtcast", None),
    ("Consign to Memory", "Metallic Rebuke", None),
    # damage against toughness
    ("Lightning Bolt", "Ragavan, Nimble Pilferer", "yes"),
    ("Lightning Bolt", "Endurance", None),  # 4 toughness
    ("Unholy Heat", "Endurance", "if"),
    ("Fury", "Endurance", "yes"),
    ("Dismember", "Endurance", "yes"),
    ("Anger of the Gods", "Endurance", None),
    # mana value caps
    ("Fatal Push", "Ragavan, Nimble Pilferer", "yes"),
    ("Fatal Push", "Endurance", "if"),
    ("Fatal Push", "Phlage, Titan of Fire's Fury", "if"),
    ("Meltdown", "Walking Ballista", "if"),
    ("Meltdown", "Ragavan, Nimble Pilferer", None),  # not an artifact
    ("Wrath of the Skies", "Urza's Saga", "if"),  # an enchantment
    # colour hosers
    ("Red Elemental Blast", "Thoughtcast", "yes"),
    ("Red Elemental Blast", "Lightning Bolt", None),
    ("Hydroblast", "Lightning Bolt", "yes"),
    ("Celestial Purge", "Ragavan, Nimble Pilferer", "yes"),
    ("Celestial Purge", "Ocelot Pride", None),
    # counterspells by kind of spell
    ("Force of Will", "Thoughtcast", "yes"),
    ("Force of Will", "Mountain", None),  # a land is not cast
    ("Flusterstorm", "Thoughtcast", "yes"),
    ("Flusterstorm", "Ragavan, Nimble Pilferer", None),
    ("Spell Pierce", "Ragavan, Nimble Pilferer", None),
    ("Spell Pierce", "Prismatic Ending", "yes"),
    ("Stern Scolding", "Ragavan, Nimble Pilferer", "yes"),
    ("Stern Scolding", "Endurance", None),  # 3/4
    ("Annul", "Walking Ballista", "yes"),
    ("Stifle", "Arid Mesa", "yes"),
    # lands, abilities, graveyards, many spells
    ("Blood Moon", "Arid Mesa", "yes"),
    ("Blood Moon", "Mountain", None),
    ("Pithing Needle", "Walking Ballista", "yes"),
    ("Pithing Needle", "Lightning Bolt", None),
    ("Stony Silence", "Walking Ballista", "yes"),
    ("Stony Silence", "Ragavan, Nimble Pilferer", None),
    ("Surgical Extraction", "Goryo's Vengeance", "yes"),
    ("Leyline of the Void", "Goryo's Vengeance", "yes"),
    ("Leyline of the Void", "Lightning Bolt", None),
    ("High Noon", "Grapeshot", "yes"),
    ("High Noon", "Ephemerate", None),
    ("High Noon", "Consign to Memory", None),
    ("Kor Firewalker", "Lightning Bolt", "yes"),
    # spell limits by mana value and {X}; enters and dies locks; +N/-N; sacrifice-all sweepers
    ("Gaddock Teeg", "Wrath of God", "yes"),
    ("Gaddock Teeg", "Engineered Explosives", "yes"),  # {X} in its cost
    ("Gaddock Teeg", "Lightning Bolt", None),
    ("Gaddock Teeg", "Primeval Titan", None),  # a creature spell
    ("Hushbringer", "Solitude", "yes"),
    ("Hushbringer", "Ragavan, Nimble Pilferer", None),
    ("Flowstone Infusion", "Ragavan, Nimble Pilferer", "yes"),
    ("Flowstone Infusion", "Endurance", None),  # toughness 4
    ("Living End", "Endurance", "yes"),
    ("Kaito, Bane of Nightmares", "Ragavan, Nimble Pilferer", "yes"),
    ("Goblin Charbelcher", "Ragavan, Nimble Pilferer", "if"),
    # Spirit guides are exiled from the hand for mana: never on the battlefield
    ("Hydroblast", "Simian Spirit Guide", None),
    ("Dress Down", "Simian Spirit Guide", None),
    ("Thoughtseize", "Simian Spirit Guide", "yes"),
]


@pytest.mark.parametrize(("answer", "target", "outcome"), ANSWERS)
def test_what_answers_what(answer: str, target: str, outcome: str | None) -> None:
    found = [v.outcome for v in verdicts(card(answer), card(target)) if v]
    best = "yes" if "yes" in found else "if" if found else None
    assert best == outcome, verdicts(card(answer), card(target))


def test_the_table_covers_at_least_sixty_real_cards() -> None:
    assert len({name for name, _ in ROLES}) >= 60
    assert all(name in corpus() for name, _ in ROLES)
