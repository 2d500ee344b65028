"""A card's profile (card_rules/profile.py) on real cards from the bundled corpus: its kind (land, interaction,
mana, threat, card_flow, other: the first that applies), the abilities of opponents' cards it stops, what sets
its X, and the kinds of answer it is, read from the same roles the answers come from."""

from __future__ import annotations

import gzip
import json
from functools import cache

import pytest

from meta_mage.card_rules.answers import answered_by, verdicts
from meta_mage.card_rules.facts import CardFacts
from meta_mage.card_rules.profile import KINDS, NOT_ANSWERS, STOPS, X_RULES, CardProfile, profile_of
from meta_mage.card_rules.reader import roles_of
from meta_mage.card_rules.roles import answer
from meta_mage.config import DEMO_DATA_DIR
from meta_mage.ingest.cards import parse_card_corpus
from tests.unit.test_card_answers_table import card as any_card  # the shared corpus: every card


@cache
def corpus() -> dict[str, CardFacts]:
    """The bundled cards by name, and a double-faced card by its front face's name too."""
    with gzip.open(DEMO_DATA_DIR / "cards.json.gz") as file:
        cards = parse_card_corpus(json.loads(file.read()), "cards.json.gz")
    found: dict[str, CardFacts] = {}
    for card in cards:
        found.setdefault(card.name, CardFacts.of(card))
        found.setdefault(card.name.split(" // ")[0], CardFacts.of(card))
    return found


def card(name: str) -> CardFacts:
    return corpus()[name]


# (card, kind, stops, x_rule, answer kinds)
PROFILES = [
    # lands first, whatever else they do
    ("Urza's Saga", "land", "", "", ""),
    ("Boseiju, Who Endures", "land", "", "", "removal"),  # channel: destroys, still a land
    ("Cavern of Souls", "land", "", "", ""),
    # interaction: counters, removal, discard, locks and hate, creatures whose abilities interact
    ("Blood Moon", "interaction", "static", "", "land"),  # nonbasic lands lose their abilities
    ("Lightning Bolt", "interaction", "", "", "removal"),
    ("Thoughtseize", "interaction", "", "", "discard"),
    ("Counterspell", "interaction", "", "", "counter"),
    ("Consign to Memory", "interaction", "triggered", "", "counter"),
    ("Stifle", "interaction", "activated triggered", "", "counter"),
    ("Tishana's Tidebinder", "interaction", "activated static triggered", "", "counter"),
    ("Pithing Needle", "interaction", "activated", "", "ability"),  # mana abilities excepted
    ("Sorcerous Spyglass", "interaction", "activated", "", "ability"),
    ("Null Rod", "interaction", "activated mana", "", "ability"),
    ("Collector Ouphe", "interaction", "activated mana", "", "ability"),
    ("Torpor Orb", "interaction", "triggered", "", "ability"),
    ("Dress Down", "interaction", "static", "", "ability"),
    ("Engineered Explosives", "interaction", "", "sunburst", "sweeper"),
    ("Prismatic Ending", "interaction", "", "converge", "removal"),  # converge before its {X}
    ("Walking Ballista", "interaction", "", "x", "removal"),
    ("Chalice of the Void", "interaction", "", "x", "counter"),
    ("Orcish Bowmasters", "interaction", "", "", "removal"),
    ("Fury", "interaction", "", "", "removal"),
    ("Solitude", "interaction", "", "", "removal"),
    ("Leyline of the Void", "interaction", "", "", "graveyard"),
    ("Kozilek's Return", "interaction", "", "", "sweeper"),  # Devoid: a colourless instant
    ("Hushbringer", "interaction", "triggered", "", "ability"),  # creatures entering or dying trigger nothing
    ("Gaddock Teeg", "interaction", "", "", "spell_limit"),  # noncreature spells of mana value 4+ can't be cast
    ("Living End", "interaction", "", "", "sweeper"),  # each player sacrifices all creatures
    ("Emrakul, the Aeons Torn", "interaction", "", "", "edict"),  # annihilator 6
    ("Kaito, Bane of Nightmares", "interaction", "", "", "removal"),  # tap target creature, two stun counters
    ("Flowstone Infusion", "interaction", "", "", "removal"),  # +2/-2
    ("Goblin Charbelcher", "interaction", "", "", "removal"),  # damage equal to the cards revealed
    ("Screaming Nemesis", "interaction", "", "", "removal"),  # "any other target"
    ("Marang River Regent", "interaction", "", "", "removal"),  # "up to two other target nonland permanents"
    # taxes and life locks: interaction by what they do to opponents, and no answer to any card
    ("Thalia, Guardian of Thraben", "interaction", "", "", ""),
    ("Sphere of Resistance", "interaction", "", "", ""),
    ("Anointed Peacekeeper", "interaction", "", "", ""),
    ("Sunspine Lynx", "interaction", "", "", ""),  # "Players can't gain life"
    # mana: its own text adds mana (a spirit guide's from the hand)
    ("Manamorphose", "mana", "", "", ""),
    ("Dark Ritual", "mana", "", "", ""),
    ("Mox Opal", "mana", "", "", ""),
    ("Lotus Petal", "mana", "", "", ""),
    ("Birds of Paradise", "mana", "", "", ""),
    ("Simian Spirit Guide", "mana", "", "", ""),
    ("Elvish Spirit Guide", "mana", "", "", ""),
    # threats: creatures, planeswalkers, vehicles, creature tokens
    ("Ragavan, Nimble Pilferer", "threat", "", "", ""),
    ("Fable of the Mirror-Breaker", "threat", "", "", ""),  # a Saga whose first chapter makes a creature token
    ("Writhing Chrysalis", "threat", "", "", ""),  # Devoid Eldrazi
    ("Eldrazi Linebreaker", "threat", "", "", ""),
    ("Smuggler's Copter", "threat", "", "", ""),
    ("Crashing Footfalls", "threat", "", "", ""),
    ("Primeval Titan", "threat", "", "", ""),
    ("Nettlecyst", "threat", "", "", ""),  # living weapon: its Germ token is only in the reminder text
    ("Black Mage's Rod", "threat", "", "", ""),  # job select: a Hero token
    ("Batterskull", "threat", "", "", ""),
    # card flow: draws, looks at the top of the library, tutors a nonland card
    ("Expressive Iteration", "card_flow", "", "", ""),
    ("Brainstorm", "card_flow", "", "", ""),
    ("Ponder", "card_flow", "", "", ""),
    ("Ancient Stirrings", "card_flow", "", "", ""),
    ("Demonic Tutor", "card_flow", "", "", ""),
    # the rest
    ("Ephemerate", "other", "", "", ""),
    ("Goryo's Vengeance", "other", "", "", ""),
    ("Amulet of Vigor", "other", "", "", ""),
    ("Sylvan Scrying", "other", "", "", ""),  # a land tutor is not card flow
]


@pytest.mark.parametrize(("name", "kind", "stops", "x_rule", "answers"), PROFILES)
def test_profile_read_from_the_rules_text(name: str, kind: str, stops: str, x_rule: str, answers: str) -> None:
    # Given a real card, When its profile is read, Then each field is what its rules text says
    expected = CardProfile(kind, frozenset(stops.split()), x_rule, frozenset(answers.split()))
    assert profile_of(card(name)) == expected


def test_the_table_covers_every_kind_stop_and_x_rule() -> None:
    assert len(PROFILES) >= 25 and len({name for name, *_ in PROFILES}) == len(PROFILES)
    assert {kind for _, kind, *_ in PROFILES} == set(KINDS)
    assert {stop for _, _, stops, *_ in PROFILES for stop in stops.split()} == set(STOPS)
    assert {x_rule for *_, x_rule, _ in PROFILES} == set(X_RULES)


def test_devoid_eldrazi_are_colourless_by_the_rules() -> None:
    assert not card("Writhing Chrysalis").colours and not card("Kozilek's Return").colours
    assert card("Writhing Chrysalis").devoid


def test_every_bundled_card_has_one_profile_of_the_declared_values() -> None:
    for facts in corpus().values():
        profile = profile_of(facts)
        assert profile.kind in KINDS and profile.x_rule in X_RULES and profile.stops <= set(STOPS), facts.name
        if "mana" in profile.stops:  # only a lock that reaches mana abilities too
            assert "activated" in profile.stops, facts.name


def test_the_profile_and_the_answers_cannot_disagree() -> None:
    # The answer kinds are the kinds of the roles the answers come from (lifegain and protection reach nothing
    # of an opponent's), and a card with answer kinds is interaction unless it is a land.
    for facts in corpus().values():
        profile = profile_of(facts)
        assert profile.answer_kinds == {role.kind for role in roles_of(facts)} - NOT_ANSWERS, facts.name
        if profile.answer_kinds and not facts.is_land:
            assert profile.kind == "interaction", facts.name
    assert profile_of(card("Kor Firewalker")).answer_kinds == frozenset()  # lifegain and protection only


TAXES = ["Thalia, Guardian of Thraben", "Sphere of Resistance", "Anointed Peacekeeper", "Sunspine Lynx"]
TAXED = ["Lightning Bolt", "Counterspell", "Ragavan, Nimble Pilferer", "Walking Ballista", "Thoughtseize"]


@pytest.mark.parametrize("tax", TAXES)
def test_a_tax_is_interaction_but_answers_nothing(tax: str) -> None:
    # Given a tax on opponents' spells or a life lock, Then it is interaction, and the coach never says it answers a
    # card (no role: nothing to answer with)
    assert profile_of(card(tax)).kind == "interaction" and roles_of(card(tax)) == ()
    assert not any(answered_by(card(tax), card(target)) for target in TAXED)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("Fireball", "other"),  # "This spell costs {1} more to cast for each target beyond the first"
        ("Derelor", "threat"),  # "Black spells you cast cost {B} more": its own controller's
        ("Geist-Fueled Scarecrow", "threat"),  # "Creature spells you cast cost {1} more"
        (
            "Kopala, Warden of Waves",
            "threat",
        ),  # "Spells your opponents cast that target a Merfolk you control cost {2}"
        # Icefall Regent's tax is on spells that target it too, but its "That creature doesn't untap" keeps an
        # opponent's creature tapped: interaction, as Bind the Monster and Sleep of the Dead in the facts table
        ("Icefall Regent", "interaction"),
        ("Gloom", "interaction"),  # "White spells cost {3} more to cast"
        ("Lodestone Golem", "interaction"),  # "Nonartifact spells cost {1} more to cast"
    ],
)
def test_only_a_tax_on_opponents_is_interaction(name: str, kind: str) -> None:
    # A cost the caster pays, a cost of one's own spells or a tax only on spells that target it is no hate
    assert profile_of(any_card(name)).kind == kind


def test_a_profile_is_read_once() -> None:
    assert profile_of(card("Null Rod")) is profile_of(card("Null Rod"))


# Spirit guides are exiled from the hand for mana and practically never cast: no counterspell answers one.
SPIRIT_GUIDES = ["Simian Spirit Guide", "Elvish Spirit Guide"]
COUNTERSPELLS = ["Counterspell", "Force of Will", "Flashfreeze", "Mystical Dispute", "Hydroblast", "Pyroblast"]


@pytest.mark.parametrize("guide", SPIRIT_GUIDES)
@pytest.mark.parametrize("counter", COUNTERSPELLS)
def test_no_counterspell_answers_a_spirit_guide(counter: str, guide: str) -> None:
    # Given a counterspell and a spirit guide (red or green, the colours Flashfreeze counters),
    # When the rules are applied, Then its counter role does not meet the guide, and says why
    found = [answer(role, card(guide)) for role in roles_of(card(counter)) if role.kind == "counter"]
    assert found and not any(found)
    assert all(v.detail == "it is exiled from hand for mana, not cast" for v in found)
    assert not any("counters" in way for way in answered_by(card(counter), card(guide)))


GUIDE_MISSES = ["Hydroblast", "Pyroblast", "Dress Down", "Wrath of God", "Lightning Bolt", "Swords to Plowshares"]


@pytest.mark.parametrize("guide", SPIRIT_GUIDES)
@pytest.mark.parametrize("other", GUIDE_MISSES)
def test_a_spirit_guide_is_never_on_the_battlefield(other: str, guide: str) -> None:
    # Given removal, a sweeper or a lock (Hydroblast's "destroy target permanent if it's red" too) and a spirit
    # guide, When the rules are applied, Then nothing meets it: it goes from the hand to exile, never cast
    found = verdicts(card(other), card(guide))
    assert found and not any(found)
    assert answered_by(card(other), card(guide)) == []


def test_only_discard_reaches_a_spirit_guide() -> None:
    # it is only ever in the hand, where discard takes it
    assert answered_by(card("Thoughtseize"), card("Simian Spirit Guide")) == ["takes nonland cards"]
    assert answered_by(card("Hydroblast"), card("Simian Spirit Guide")) == []
    [_, destroys] = verdicts(card("Hydroblast"), card("Simian Spirit Guide"))
    assert destroys.detail == "it is exiled from hand for mana, never cast nor on the battlefield"
    assert card("Simian Spirit Guide").exiled_for_mana and card("Elvish Spirit Guide").exiled_for_mana
    assert not card("Manamorphose").exiled_for_mana and not card("Ragavan, Nimble Pilferer").exiled_for_mana
