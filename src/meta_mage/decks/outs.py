"""What goes out of the main deck against one opponent: what a main-deck card is worth there
(``OutCandidate.here``), the cards that never go out (``STAYS``) and why the others do (``OUT_RULES``), each a
declared table over one card's typed evidence in the matchup."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from meta_mage.card_rules.facts import CardFacts
from meta_mage.card_rules.profile import profile_of
from meta_mage.card_rules.reader import roles_of
from meta_mage.decks.cards import answer_kinds, facts_of_detail, is_land, ramps
from meta_mage.decks.evidence import BETTER_BY, evidence_gap
from meta_mage.decks.guide_case import WORTH_CAP, GuideCase, feared_by, worth
from meta_mage.decks.matchup import Matchup, answers, their_choice
from meta_mage.models.cards import card_key
from meta_mage.models.decks import CardDetail
from meta_mage.models.meta import WinRate

HATE_KINDS = {"graveyard", "spell_limit", "ability", "land"}  # what a noncreature hate permanent does
# What a main-deck card is worth in a matchup beside what it answers there: a body is a clock in any matchup,
# card flow and mana keep the deck going; an answer is worth what it answers (``worth``).
BODY_WORTH = 1.5
# a body is worth more in a deck whose plan is its creatures: they are its clock, not filler
BODY_WORTH_BY_ROLE: dict[str, float] = {"aggro": 2.5, "tempo": 2.0, "midrange": 2.0, "ramp": 2.0}
KIND_WORTH: dict[str, float] = {"threat": BODY_WORTH, "card_flow": 1.0, "mana": 1.0, "other": 1.0, "interaction": 0.0}
FACE_WORTH = 1.0  # burn that can go to the face is never idle
CHOICE_WORTH = 0.5  # an edict against a creature deck: live, but they choose what it takes
WEAK_FACTOR = 0.5  # among the weakest in this kind of matchup (``Matchup.slow_here``): half its worth
WORSE_BY = 1.0  # worth taken off a card whose lists did worse against them
CHEATED_IN = 5.0  # a creature of this mana value or more, in a deck that puts creatures onto the battlefield
NAMED_ANSWERS = 2  # an out-card that answers more of their key cards is said to answer how many, not "only"
# a spell that saves the player's own creature from their removal (Snakeskin Veil, Blossoming Defense)
_SHIELDS = re.compile(
    r"target (?:creature|permanent)(?: you control)?[^.]*(?:\.\s*(?:it|that creature))?[^.]*\bgains? "
    r"(?:hexproof|indestructible|protection|shroud)",
    re.I,
)
_REMOVAL = frozenset({"removal", "sweeper", "edict"})
_FACE = re.compile(r"damage to (?:any target|target player|each opponent|target opponent)", re.I)


def _shielded_from(facts: CardFacts, matchup: Matchup) -> float:
    """What a spell that saves the player's creature (hexproof, protection, indestructible) is worth here: their
    key removal it meets, each weighted by the share of their lists that play it, at most ``WORTH_CAP`` (Snakeskin
    Veil against Dimir's removal, not against a deck with none)."""
    if not _SHIELDS.search(facts.text):
        return 0.0
    removal = [t.name for t in matchup.targets if {r.kind for r in roles_of(t)} & _REMOVAL]
    return min(WORTH_CAP, sum(matchup.weights.get(name, 0.0) for name in removal))


def _plan(facts: CardFacts, matchup: Matchup) -> bool:
    """A piece of the deck's plan that no share of lists shows: a ramp deck's mana source (its lists split among
    Talismans, so none is in 90 % of them, but together they cast its threats), or the big creature a deck that
    cheats creatures in puts onto the battlefield (Archon of Cruelty in Reanimator: its enters trigger makes it
    read as interaction, and it went out against Izzet Tempo as outclassed)."""
    if matchup.own_strategy == "ramp" and ramps(facts):
        return True
    return matchup.cheats_in and "creature" in facts.types and facts.mana_value >= CHEATED_IN


@dataclass(frozen=True)
class OutCandidate:
    """What a guide knows of one main-deck card in one matchup: what it answers and is worth there, why the
    rules keep it (if they do), and the record of the lists that play it against this opponent."""

    card: CardDetail
    facts: CardFacts
    how: dict[str, str]  # their key cards it answers, with how
    worth: float  # what its answers are worth here
    share: float  # % of the archetype's lists that play it
    kept: str  # why the rules keep it (its engine, a win condition, its fast mana, what the deck is), or ""
    in_lists: WinRate | None
    gap: float | None  # points by which lists with it did better (negative: worse) against this opponent
    slow: str  # why it is among the weakest in this kind of matchup, or ""
    plan: bool = False  # a ramp deck's mana source, or a big creature of a deck that cheats creatures in
    their_choice: bool = False  # it reaches their key cards only as they choose (an edict): live, not an answer
    digs: bool = False  # card flow in a combo deck: it digs for the combo, the deck's answer to anything
    feared: str = ""  # why their playbook fears it, or ""
    role: str = "unknown"  # the player's deck's role (its playbook's, else its rule's strategy)
    shields: float = 0.0  # a spell that saves a creature: their removal it meets, weighted like an answer

    @classmethod
    def of(cls, card: CardDetail, case: GuideCase) -> OutCandidate:
        key = card_key(card.name)
        facts = facts_of_detail(card)
        matchup = case.matchup
        how = answers(card, matchup, case.main)
        in_lists = case.own.with_card(card.name, case.opponent, "mainboard")
        value = worth(card, how, matchup.targets, matchup.weights)[0]
        share = case.own.main_usage.get(key, (0.0, 0.0))[0]
        slow = "" if how else matchup.slow_here(facts)
        chosen = not how and their_choice(card, matchup)
        gap = evidence_gap(in_lists, case.base)
        return cls(
            card,
            facts,
            how,
            value,
            share,
            case.kept.get(key, ""),
            in_lists,
            gap,
            slow,
            _plan(facts, matchup),
            chosen,
            matchup.own_strategy == "combo",
            feared_by(matchup, card.name),
            matchup.own_strategy,
            _shielded_from(facts, matchup),
        )

    @property
    def spell(self) -> bool:
        return bool(self.facts.types & {"instant", "sorcery"})

    @property
    def reaches_face(self) -> bool:
        """Burn that can go to the face is never idle."""
        return self.spell and _FACE.search(self.facts.text) is not None

    @property
    def body(self) -> bool:
        return (
            bool(self.facts.types & {"creature", "planeswalker", "battle"}) or profile_of(self.facts).kind == "threat"
        )

    @property
    def digs_for_combo(self) -> bool:
        return self.digs and profile_of(self.facts).kind == "card_flow"

    @property
    def by_rules(self) -> bool:
        """Whether the rules alone may take it out: not a card the rules keep, not a piece of the deck's plan."""
        return not self.kept and not self.plan

    @property
    def dead(self) -> bool:
        """Interaction with nothing to hit among their key cards (an edict against a creature deck has: they
        choose what)."""
        kinds = answer_kinds(self.facts)
        hate = bool(kinds) and kinds <= HATE_KINDS and not self.facts.types & {"creature", "planeswalker"}
        nothing = not self.how and not self.their_choice and not self.reaches_face
        return nothing and ((self.spell and bool(kinds)) or hate)

    @property
    def worse_here(self) -> bool:
        return self.gap is not None and self.gap <= -BETTER_BY and self.in_lists is not None

    @property
    def here(self) -> float:
        """Its worth in this matchup: what it answers, or what its kind does in any matchup (a body
        ``BODY_WORTH``, burn to the face, an edict), halved when it is among the weakest in this kind of
        matchup, less ``WORSE_BY`` when its lists did worse against them."""
        reach = FACE_WORTH if self.reaches_face else CHOICE_WORTH if self.their_choice else self.shields
        body = BODY_WORTH_BY_ROLE.get(self.role, BODY_WORTH)
        kind = (
            body
            if self.body
            else BODY_WORTH
            if self.digs_for_combo
            else KIND_WORTH.get(profile_of(self.facts).kind, 1.0)
        )
        value = max(self.worth if self.how else reach, kind)
        if self.slow:
            value *= WEAK_FACTOR
        return value - WORSE_BY * self.worse_here

    def does_here(self) -> str:
        if len(self.how) > NAMED_ANSWERS:
            return f"answers {len(self.how)} of their key cards, one at a time"
        if self.how:
            return f"answers only {' / '.join(self.how)} here"
        if self.their_choice:
            return "takes only what they choose to lose"
        return "a body, and no answer to their key cards" if self.body else "answers none of their key cards"

    @property
    def note(self) -> str:
        return f" ({self.kept}, out on that evidence)" if self.kept else ""


@dataclass(frozen=True)
class OutRule:
    """Why a main-deck card goes out, the first that holds: its ``rank``, the test, the words (given the best
    card coming in). Changing the guide's words is a row of ``OUT_RULES`` and its test; what goes out is decided
    by worth (``OutCandidate.here``)."""

    rank: int
    test: Callable[[OutCandidate], bool]
    words: Callable[[OutCandidate, str], str]


# Never out: a card whose lists did better against this opponent
STAYS: tuple[Callable[[OutCandidate], bool], ...] = (
    lambda c: c.gap is not None and c.gap >= BETTER_BY,
    lambda c: bool(c.feared),  # their playbook fears it
)
OUT_RULES: tuple[OutRule, ...] = (
    OutRule(0, lambda c: c.dead and c.by_rules, lambda c, _: "nothing to hit among their key cards"),
    OutRule(1, lambda c: bool(c.slow) and c.by_rules, lambda c, _: c.slow),
    OutRule(
        2,
        lambda c: c.worse_here,
        lambda c, _: (
            f"lists with it went {c.in_lists.wins}-{c.in_lists.losses} here, below the archetype's record"  # type: ignore[union-attr]
            + c.note
        ),
    ),
    OutRule(3, lambda c: c.by_rules, lambda c, best: f"{c.does_here()}; {best} does more against them"),
)


@dataclass(frozen=True)
class Out:
    """A main-deck card that can go out: its worth here, the first out-rule that holds, the matchup's tie rule,
    the card and why."""

    here: float
    rank: int
    tie: tuple[float, ...]
    card: CardDetail
    why: str

    @property
    def order(self) -> tuple[float, int, tuple[float, ...], str]:
        return (self.here, self.rank, self.tie, self.card.name)


def judge_main_deck(case: GuideCase, coming: set[str], best_name: str) -> list[Out]:
    """The main-deck cards that can go out, least worth here first (lands, cards coming in, unknown cards and
    cards whose lists did better against them are not judged)."""
    tie = case.matchup.tie_rule()
    outs: list[Out] = []
    for card in case.main:
        if is_land(card) or card_key(card.name) in coming or card.unknown:
            continue
        candidate = OutCandidate.of(card, case)
        if any(rule(candidate) for rule in STAYS):
            continue
        rule = next((r for r in OUT_RULES if r.test(candidate)), None)
        if rule is not None:
            outs.append(Out(candidate.here, rule.rank, tie(card), card, rule.words(candidate, best_name)))
    return sorted(outs, key=lambda o: o.order)
