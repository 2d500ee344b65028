"""Sideboard guides: what comes in against one opponent (``IN_RULES``) and what goes out (``OUT_RULES``), each
a declared table of rules over one card's typed evidence in the matchup."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property

from meta_mage.archetypes.classifier import ArchetypeClassifier
from meta_mage.card_rules.facts import CardFacts
from meta_mage.card_rules.profile import profile_of
from meta_mage.card_rules.reader import roles_of
from meta_mage.decks.cards import (
    COLOUR_LETTERS,
    answer_kinds,
    facts_of_detail,
    is_land,
    ramps,
    section_of,
    wished_by,
)
from meta_mage.decks.evidence import (
    BETTER_BY,
    ArchetypeEvidence,
    did_better,
    evidence_gap,
)
from meta_mage.decks.matchup import Matchup, answers, group_ways, their_choice
from meta_mage.decks.post_board import deck_text, post_board
from meta_mage.models.cards import card_key
from meta_mage.models.decks import CardDetail, GuideCard, SideboardGuide
from meta_mage.models.meta import WinRate

# the most a card's worth in a matchup counts, however many of their cards it reaches: one card answers one threat
# at a time, and an aggro deck's body (2.5) is its clock
WORTH_CAP = 2.5
LAND_PLAN = 1.0  # their key lands that tap for more or carry a plan weigh this much: land hate is worth more
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
FEARED_WORTH = WORTH_CAP + 1.0  # a card their playbook fears beats any one answer: it beats their plan
NAMED_ANSWERS = 2  # an out-card that answers more of their key cards is said to answer how many, not "only"
SWAP_MARGIN = 0.25  # a sideboard card comes in for a main-deck card worth at least a quarter of a card less here
_CHEAPER_VS_COLOUR = re.compile(r"costs? \{(\d+)\} less to cast if it targets an? (white|blue|black|red|green)")
# a spell that saves the player's own creature from their removal (Snakeskin Veil, Blossoming Defense)
_SHIELDS = re.compile(
    r"target (?:creature|permanent)(?: you control)?[^.]*(?:\.\s*(?:it|that creature))?[^.]*\bgains? "
    r"(?:hexproof|indestructible|protection|shroud)",
    re.I,
)
_REMOVAL = frozenset({"removal", "sweeper", "edict"})
_FACE = re.compile(r"damage to (?:any target|target player|each opponent|target opponent)", re.I)


def _land_hate(how: dict[str, str], lands: dict[str, CardFacts], weights: dict[str, float]) -> float:
    """Their key lands a card hits, as worth: their mana base counts as one card, unless the lands hit are their
    plan (lands that tap for more, sagas, manlands weighing ``LAND_PLAN``)."""
    hit = [name for name in how if name in lands]
    plan = sum(weights.get(n, 0.5) for n in hit if lands[n].taps_for_more or Matchup.land_plan(lands[n]))
    return min(WORTH_CAP if plan >= LAND_PLAN else 1.0, sum(weights.get(name, 0.5) for name in hit))


def _shielded_from(facts: CardFacts, matchup: Matchup) -> float:
    """What a spell that saves the player's creature (hexproof, protection, indestructible) is worth here: their
    key removal it meets, each weighted by the share of their lists that play it, at most ``WORTH_CAP`` (Snakeskin
    Veil against Dimir's removal, not against a deck with none)."""
    if not _SHIELDS.search(facts.text):
        return 0.0
    removal = [t.name for t in matchup.targets if {r.kind for r in roles_of(t)} & _REMOVAL]
    return min(WORTH_CAP, sum(matchup.weights.get(name, 0.0) for name in removal))


def feared_by(matchup: Matchup, name: str) -> str:
    """Why the opponent's deck fears a card, or "" when it does not: its playbook's ``fears_why`` when that
    sentence names the card, else that the playbook lists it among the cards that beat the deck."""
    theirs = matchup.theirs
    if theirs is None or not theirs.fears_card(name):
        return ""
    short = name.split(" // ")[0].split(",")[0]
    if short.casefold() in theirs.fears_why.casefold():
        return theirs.fears_why.rstrip(".")
    return f"{theirs.archetype}'s playbook lists it among the cards that beat the deck"


def worth(
    card: CardDetail, how: dict[str, str], targets: list[CardFacts], weights: dict[str, float]
) -> tuple[float, str]:
    """What a card is worth in a matchup: each key card it answers, weighted by the share of their lists that
    play it (their key lands count as one card together unless the lands hit are their plan: lands that tap for
    more, sagas, manlands weighing ``LAND_PLAN``; ``WORTH_CAP`` at most, as one card answers one threat at
    a time); halved when its cost reduction needs a colour none of their key cards has (Mystical Dispute against
    a deck without blue), with the words that say so."""
    lands = {t.name: t for t in targets if t.is_land}
    spells = sum(weights.get(name, 0.5) for name in how if name not in lands)
    value = min(WORTH_CAP, spells + _land_hate(how, lands, weights))
    cheaper = _CHEAPER_VS_COLOUR.search(card.oracle_text or "")
    if cheaper and value:
        colour = COLOUR_LETTERS[cheaper.group(2)]
        if not any(colour in t.colours for t in targets if t.name in how):
            return value / 2, f" (full cost here: none of theirs is {cheaper.group(2)})"
    return value, ""


def kept_cards(
    classifier: ArchetypeClassifier, fmt: str, archetype: str, deck: list[CardDetail], matchup: Matchup
) -> dict[str, str]:
    """The player's main-deck cards (normalised) no matchup takes out on the rules alone, each with why: the
    deck's engine, win conditions and fast mana (its playbook's, else its computed profile's), and what the deck
    is (the player's deck would no longer meet the archetype's rule without it, or the archetype's name names
    it). How often the lists play a card protects nothing by itself."""
    counts = [{k: c.quantity for k, c in section_of(deck, part).items()} for part in ("mainboard", "sideboard")]
    named = [card_key(c.name) for c in deck if c.section == "mainboard" and names_card(archetype, c.name)]
    defining = dict.fromkeys([*classifier.defining_cards(fmt, archetype, *counts), *named], "what the deck is")
    known = matchup.yours.kept_on_rules if matchup.yours is not None else {}
    mine = {card_key(c.name) for c in deck if c.section == "mainboard"}
    return {key: why for key, why in (defining | known).items() if key in mine}


def names_card(archetype: str, card: str) -> bool:
    """Whether the archetype's name holds the card's short name ("Dragonstorm Omniscience" and Omniscience,
    "Greasefang" and Greasefang, Okiba Boss, "Yawgmoth Samwise" and Yawgmoth, Thran Physician): the card the
    deck is named for, never a flex slot however many lists go without it."""
    short = card.split(" // ")[0].split(",")[0].strip()
    return bool(short) and re.search(rf"(?<!\w){re.escape(short)}(?!\w)", archetype, re.I) is not None


@dataclass(frozen=True)
class GuideCase:
    """One deck against one opponent, as a guide reads it: the opponent, the archetype's record against it,
    the player's sideboard and main deck, the kind of matchup, the archetype's evidence and the cards the rules
    keep."""

    opponent: str
    base: WinRate | None
    side: list[CardDetail]
    main: list[CardDetail]
    matchup: Matchup
    own: ArchetypeEvidence
    kept: dict[str, str]  # card key -> why the rules keep it (``kept_cards``)

    @cached_property
    def main_facts(self) -> list[CardFacts]:
        """The known main-deck cards as the card rules read them, read once per guide."""
        return [facts_of_detail(c) for c in self.main if not c.unknown]


# --- what comes in -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InCandidate:
    """What a guide knows of one sideboard card in one matchup: what it answers and is worth there, and the
    record of the lists that play it against this opponent."""

    card: CardDetail
    facts: CardFacts
    how: dict[str, str]  # their key cards it answers, with how
    worth: float
    full_cost: str  # the words when its cost reduction needs a colour none of their key cards has, or ""
    with_card: WinRate | None
    better: bool  # its lists did better against them
    matchup: Matchup
    wished_by: str = ""  # the main-deck card that fetches it from the sideboard (Wish), or ""
    their_choice: bool = False  # it reaches their key cards only as they choose (an edict)

    @classmethod
    def of(cls, card: CardDetail, case: GuideCase) -> InCandidate:
        how = answers(card, case.matchup, case.main)
        with_card = case.own.with_card(card.name, case.opponent)
        value, full_cost = worth(card, how, case.matchup.targets, case.matchup.weights)
        better = did_better(with_card, case.base)
        facts = facts_of_detail(card)
        wish = wished_by(facts, case.main_facts)
        chosen = not how and their_choice(card, case.matchup)
        return cls(card, facts, how, value, full_cost, with_card, better, case.matchup, wish, chosen)

    @property
    def interaction(self) -> bool:
        return bool(answer_kinds(self.facts))

    @property
    def graveyard_hate(self) -> bool:
        """Hate that only reaches graveyards (Surgical Extraction, Rest in Peace, Nihil Spellbomb)."""
        kinds = answer_kinds(self.facts)
        return bool(kinds) and kinds <= {"graveyard"}

    @property
    def feared(self) -> str:
        """Why their deck fears this card (its playbook's words), or ""."""
        return feared_by(self.matchup, self.card.name)

    @property
    def value(self) -> float:
        """Its worth here (a card they fear is worth ``FEARED_WORTH`` at least), and 2 more when its lists did
        better against them."""
        worth = max(self.worth, FEARED_WORTH) if self.feared else self.worth
        return worth + 2 * self.better

    @property
    def record_words(self) -> str:
        rate = self.with_card
        return f"lists with it went {rate.wins}-{rate.losses}" if rate is not None and rate.wins + rate.losses else ""


@dataclass(frozen=True)
class InRule:
    """One reason a sideboard card comes in, or (``comes_in`` False) stays out: its ``rank`` (its place in the
    table: the first that holds decides; cards come in by their worth), the test, the words."""

    rank: int
    test: Callable[[InCandidate], bool]
    words: Callable[[InCandidate], str]
    comes_in: bool = True


def _no_graveyard_plan(c: InCandidate) -> bool:
    return c.graveyard_hate and not c.matchup.graveyard_plan


def _graveyard_words(c: InCandidate) -> str:
    users = c.matchup.graveyard_users
    few = f" (only {' / '.join(users)} uses one)" if users else ""
    return f"graveyard hate, and their deck has no graveyard plan{few}"


def _moon_words(c: InCandidate) -> str:
    return "their spells are all cast with the colour a Moon leaves them, and no land of theirs loses a plan"


# The first row that holds decides; the stays-out rows come first (never in, whatever the lists did).
IN_RULES: tuple[InRule, ...] = (
    # a card their playbook fears (Blood Moon against Jeskai Blink, Wrath of the Skies against Boros Energy)
    InRule(0, lambda c: bool(c.feared), lambda c: f"they fear it: {c.feared}"),
    InRule(1, lambda c: bool(c.full_cost), lambda c: c.full_cost.strip(" ()"), comes_in=False),
    InRule(2, _no_graveyard_plan, _graveyard_words, comes_in=False),
    InRule(3, lambda c: not c.how and c.matchup.moon_misses(c.facts), _moon_words, comes_in=False),
    InRule(4, lambda c: bool(c.how), lambda c: group_ways(c.how, limit=2)),
    # its lists did better against them; an answer with nothing to hit stays out whatever they did (Pyroblast
    # against a deck with no blue card)
    InRule(5, lambda c: c.better and not c.interaction, lambda _: ""),
    InRule(
        6,
        lambda c: c.their_choice,
        lambda _: "they choose what it takes: no answer to any one key card",
        comes_in=False,
    ),
    InRule(7, lambda c: c.interaction, lambda _: "answers none of their key cards", comes_in=False),
    # a card the main deck's wish fetches is part of the plan from the sideboard (Past in Flames for Wish)
    InRule(8, lambda c: bool(c.wished_by), lambda c: f"for {c.wished_by} to fetch", comes_in=False),
    InRule(9, lambda _: True, lambda _: "no answer to their key cards, and no record against them", comes_in=False),
)


@dataclass(frozen=True)
class Ranked:
    """A sideboard card judged for one matchup: its order, worth, the card with its reason, the rule's verdict
    and the record words of the lists that play it."""

    order: tuple[float, int, float, str]
    value: float
    worth: float
    card: GuideCard
    comes_in: bool
    record: str
    answered: tuple[str, ...] = ()  # their key cards it answers
    feared_by: str = ""  # the opponent whose playbook fears it, or ""

    @property
    def named(self) -> str:
        """The card with why it comes in (they fear it, or two of their key cards it answers), for the words of
        what it replaces."""
        if self.feared_by:
            return f"{self.card.name} (which {self.feared_by} fears)"
        return f"{self.card.name} (for {' / '.join(self.answered[:2])})" if self.answered else self.card.name


def _judged(candidate: InCandidate) -> tuple[bool, str]:
    rule = next(r for r in IN_RULES if r.test(candidate))
    return rule.comes_in, rule.words(candidate)


def judge_sideboard(case: GuideCase) -> list[Ranked]:
    """Every sideboard card judged against this opponent by the first of ``IN_RULES`` that holds, best first;
    among equals the kind of answer the matchup wants first (``Matchup.answer_order``), then the cheaper."""
    ranked = []
    for card in case.side:
        candidate = InCandidate.of(card, case)
        comes_in, why = _judged(candidate)
        evidence = candidate.record_words if comes_in else ""
        why += ("; " if why and evidence else "") + evidence
        order = (-candidate.value, case.matchup.answer_order(candidate.facts), candidate.facts.mana_value, card.name)
        guide_card = GuideCard(name=card.name, quantity=card.quantity, why=why)
        ranked.append(
            Ranked(
                order,
                candidate.value,
                candidate.worth,
                guide_card,
                comes_in,
                evidence,
                tuple(candidate.how),
                case.opponent if candidate.feared else "",
            )
        )
    return sorted(ranked, key=lambda r: r.order)


def bring_in(case: GuideCase) -> list[tuple[float, GuideCard]]:
    """Sideboard cards worth bringing in, best first, each with its worth here (``InCandidate.value``)."""
    return [(r.value, r.card) for r in judge_sideboard(case) if r.comes_in]


# --- what goes out -------------------------------------------------------------------------------------------


CHEATED_IN = 5.0  # a creature of this mana value or more, in a deck that puts creatures onto the battlefield


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


def _outs(case: GuideCase, coming: set[str], best_name: str) -> list[Out]:
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


@dataclass(frozen=True)
class Swaps:
    """What a guide moves: the sideboard cards in and the main-deck cards out, copy for copy."""

    bring_in: list[GuideCard]
    take_out: list[GuideCard]


def _add(cards: list[GuideCard], name: str, why: str) -> None:
    if cards and cards[-1].name == name:
        cards[-1] = cards[-1].model_copy(update={"quantity": cards[-1].quantity + 1})
    else:
        cards.append(GuideCard(name=name, quantity=1, why=why))


def swaps(coming: list[tuple[float, GuideCard]], outs: list[Out]) -> Swaps:
    """Copy for copy: the best sideboard card comes in for the main deck's least worth here while it is worth
    ``SWAP_MARGIN`` more; so every card worth more than the main deck's worst comes in, as many copies as the
    cuts allow."""
    ins = [(value, card) for value, card in coming for _ in range(card.quantity)]
    out_copies = [out for out in outs for _ in range(out.card.quantity)]
    brought: list[GuideCard] = []
    taken: list[GuideCard] = []
    for (value, card), out in zip(ins, out_copies, strict=False):
        if value < out.here + SWAP_MARGIN:
            break
        _add(brought, card.name, card.why)
        _add(taken, out.card.name, out.why)
    return Swaps(brought, _merged(taken))


def _merged(cards: list[GuideCard]) -> list[GuideCard]:
    """One line per card, in the order each first went out."""
    found: dict[str, GuideCard] = {}
    for card in cards:
        seen = found.get(card.name)
        found[card.name] = card if seen is None else seen.model_copy(update={"quantity": seen.quantity + card.quantity})
    return list(found.values())


def _taken(cards: list[GuideCard], room: int) -> list[GuideCard]:
    """The first of ``cards`` that fit ``room`` copies."""
    taken: list[GuideCard] = []
    for card in cards:
        take = min(card.quantity, room)
        if take <= 0:
            break
        taken.append(card.model_copy(update={"quantity": take}))
        room -= take
    return taken


def _copies(cards: Iterable[GuideCard | CardDetail]) -> int:
    return sum(c.quantity for c in cards)


def _held_back(ranked: list[GuideCard], brought: list[GuideCard]) -> list[str]:
    """The cards worth bringing in that found no room."""
    brought_keys = {card_key(b.name) for b in brought}
    return [c.name for c in ranked if card_key(c.name) not in brought_keys]


def _shared_record(brought: list[GuideCard], ranked: list[Ranked]) -> tuple[list[GuideCard], str]:
    """A record that several cards brought in share comes from the same few lists: it is said once, for all of
    them, and not beside each card as if each had its own evidence."""
    records = {r.card.name: r.record for r in ranked if r.record}
    by_record: dict[str, list[str]] = {}
    for card in brought:
        if card.name in records:
            by_record.setdefault(records[card.name], []).append(card.name)
    shared = {record: names for record, names in by_record.items() if len(names) > 1}
    if not shared:
        return brought, ""
    cleaned = [
        c.model_copy(update={"why": _without(c.why, records[c.name])}) if records.get(c.name) in shared else c
        for c in brought
    ]
    words = "; ".join(
        f"lists with {_names(names)} {record.removeprefix('lists with it ')} against them (the same lists: "
        "one record, not one each)"
        for record, names in shared.items()
    )
    return cleaned, words


def _without(why: str, record: str) -> str:
    return why.replace(f"; {record}", "").replace(record, "").strip("; ")


def _names(names: list[str]) -> str:
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]


def sideboard_guide(case: GuideCase) -> SideboardGuide:
    """What to bring in (``IN_RULES``) and take out against one opponent: every sideboard card the in-rules
    bring in is worth more here than the main deck's least card (``swaps``), which goes out with why
    (``OUT_RULES``); a card the rules keep goes out only on its lists' record, and a card whose lists did better
    against them never. Every other sideboard card is listed with why it stays out, and the 75 after it as text
    a client imports."""
    judged = judge_sideboard(case)
    coming = [(r.value, r.card) for r in judged if r.comes_in]
    best_name = next((r.named for r in judged if r.comes_in), "")
    outs = _outs(case, {card_key(c.name) for _, c in coming}, best_name)
    moved = swaps(coming, outs)
    brought, shared = _shared_record(moved.bring_in, judged)
    main, side = post_board(case.main + case.side, brought, moved.take_out)
    return SideboardGuide(
        opponent=case.opponent,
        record=case.base,
        bring_in=brought,
        take_out=moved.take_out,
        held_back=_held_back([c for _, c in coming], brought),
        left_out=[r.card for r in judged if not r.comes_in],
        shared_record=shared,
        mainboard_after=_copies(case.main),
        sideboard_after=_copies(case.side),
        post_board=deck_text(main, side),
    )
