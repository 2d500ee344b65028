"""Sideboard guides: what comes in against one opponent (``IN_RULES``) and what goes out (``OUT_RULES``), each
a declared table of rules over one card's typed evidence in the matchup."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import cached_property

from meta_mage.archetypes.classifier import ArchetypeClassifier
from meta_mage.card_rules.facts import CardFacts
from meta_mage.card_rules.profile import profile_of
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
    CORE_INCLUSION,
    ArchetypeEvidence,
    did_better,
    evidence_gap,
)
from meta_mage.decks.matchup import TRICK, Matchup, answers, group_ways, their_choice
from meta_mage.decks.post_board import deck_text, post_board
from meta_mage.models.cards import card_key
from meta_mage.models.decks import CardDetail, GuideCard, SideboardGuide
from meta_mage.models.meta import WinRate

GUIDE_MAX_IN = 7  # cards brought in against one opponent, at most
GUIDE_MAX_TRIMS = 3  # four-ofs cut down to three to make room, at most
ENGINE_INCLUSION = 90.0  # an engine piece: in this share of the archetype's lists or more...
ENGINE_COPIES = 3.0  # ...at this many copies or more, and not interaction: never out on the rules alone
COPIES_ROUNDING = 0.05  # an average of 2.97 copies is a three-of that a few lists trimmed
CORE_GUARD = 90.0  # a card in this share of the archetype's lists (or named by its rule) goes out only on evidence
WORTH_CAP = 3.0  # the most a card's worth in a matchup counts, however many of their cards it reaches
OUTCLASSED_BY = 1.5  # a card the rules may cut makes room for a sideboard card worth this many times more here
LAND_PLAN = 1.0  # their key lands that tap for more or carry a plan weigh this much: land hate is worth more
WEAK_BY = 2.0  # an answer spell makes room for a sideboard card worth this many times more in the matchup
HATE_KINDS = {"graveyard", "spell_limit", "ability", "land"}  # what a noncreature hate permanent does
_CHEAPER_VS_COLOUR = re.compile(r"costs? \{(\d+)\} less to cast if it targets an? (white|blue|black|red|green)")
_FACE = re.compile(r"damage to (?:any target|target player|each opponent|target opponent)", re.I)


def _land_hate(how: dict[str, str], lands: dict[str, CardFacts], weights: dict[str, float]) -> float:
    """Their key lands a card hits, as worth: their mana base counts as one card, unless the lands hit are their
    plan (lands that tap for more, sagas, manlands weighing ``LAND_PLAN``)."""
    hit = [name for name in how if name in lands]
    plan = sum(weights.get(n, 0.5) for n in hit if lands[n].taps_for_more or Matchup.land_plan(lands[n]))
    return min(WORTH_CAP if plan >= LAND_PLAN else 1.0, sum(weights.get(name, 0.5) for name in hit))


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


def core_cards(
    classifier: ArchetypeClassifier, fmt: str, evidence: ArchetypeEvidence, deck: list[CardDetail]
) -> dict[str, str]:
    """The archetype's core cards (normalised), each "defining" (the player's ``deck`` would no longer meet
    the archetype's rule without it, or the archetype's name names it: what the deck is) or "common" (in
    ``CORE_GUARD`` % of its lists)."""
    rows = evidence.rows("mainboard").items()
    core = {card_key(c): "common" for c, row in rows if evidence.inclusion(row) >= CORE_GUARD}
    counts = [{k: c.quantity for k, c in section_of(deck, part).items()} for part in ("mainboard", "sideboard")]
    named = [card_key(c.name) for c in deck if c.section == "mainboard" and names_card(evidence.name, c.name)]
    defining = [*classifier.defining_cards(fmt, evidence.name, *counts), *named]
    return core | dict.fromkeys(defining, "defining")


def names_card(archetype: str, card: str) -> bool:
    """Whether the archetype's name holds the card's short name ("Dragonstorm Omniscience" and Omniscience,
    "Greasefang" and Greasefang, Okiba Boss, "Yawgmoth Samwise" and Yawgmoth, Thran Physician): the card the
    deck is named for, never a flex slot however many lists go without it."""
    short = card.split(" // ")[0].split(",")[0].strip()
    return bool(short) and re.search(rf"(?<!\w){re.escape(short)}(?!\w)", archetype, re.I) is not None


@dataclass(frozen=True)
class GuideCase:
    """One deck against one opponent, as a guide reads it: the opponent, the archetype's record against it,
    the player's sideboard and main deck, the kind of matchup, the archetype's evidence and its core cards."""

    opponent: str
    base: WinRate | None
    side: list[CardDetail]
    main: list[CardDetail]
    matchup: Matchup
    own: ArchetypeEvidence
    core: dict[str, str]

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
    def value(self) -> float:
        """Its worth here, and 2 more when its lists did better against them."""
        return self.worth + 2 * self.better

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
    InRule(0, lambda c: bool(c.full_cost), lambda c: c.full_cost.strip(" ()"), comes_in=False),
    InRule(1, _no_graveyard_plan, _graveyard_words, comes_in=False),
    InRule(2, lambda c: not c.how and c.matchup.moon_misses(c.facts), _moon_words, comes_in=False),
    InRule(3, lambda c: bool(c.how), lambda c: group_ways(c.how, limit=2)),
    # its lists did better against them; an answer with nothing to hit stays out whatever they did (Pyroblast
    # against a deck with no blue card)
    InRule(4, lambda c: c.better and not c.interaction, lambda _: ""),
    InRule(
        5,
        lambda c: c.their_choice,
        lambda _: "they choose what it takes: no answer to any one key card",
        comes_in=False,
    ),
    InRule(6, lambda c: c.interaction, lambda _: "answers none of their key cards", comes_in=False),
    # a card the main deck's wish fetches is part of the plan from the sideboard (Past in Flames for Wish)
    InRule(7, lambda c: bool(c.wished_by), lambda c: f"for {c.wished_by} to fetch", comes_in=False),
    InRule(8, lambda _: True, lambda _: "no answer to their key cards, and no record against them", comes_in=False),
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
        ranked.append(Ranked(order, candidate.value, candidate.worth, guide_card, comes_in, evidence))
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
    """What a guide knows of one main-deck card in one matchup: what it answers, how the archetype plays it,
    and the record of the lists that play it against this opponent."""

    card: CardDetail
    facts: CardFacts
    how: dict[str, str]  # their key cards it answers, with how
    worth: float
    share: float  # % of the archetype's lists that play it
    copies: float  # average copies in those lists
    core: str | None  # "defining" (the archetype's rule names it), "common", or None
    in_lists: WinRate | None
    gap: float | None  # points by which lists with it did better (negative: worse) against this opponent
    slow: str  # why it is among the weakest in this kind of matchup, or ""
    trick: bool = False  # a combat trick in a deck whose creatures do not trigger when targeted
    best_worth: float = 0.0  # the worth here of the best card coming in, its lists' record left aside
    plan: bool = False  # a ramp deck's mana source, or a big creature of a deck that cheats creatures in
    their_choice: bool = False  # it reaches their key cards only as they choose (an edict): live, not an answer

    @classmethod
    def of(
        cls,
        card: CardDetail,
        how: dict[str, str],
        matchup: Matchup,
        share: float,
        copies: float,
        core: str | None,
        in_lists: WinRate | None,
        base: WinRate | None,
    ) -> OutCandidate:
        facts = facts_of_detail(card)
        value = worth(card, how, matchup.targets, matchup.weights)[0]
        slow = "" if how else matchup.slow_here(facts)
        trick = bool(TRICK.search(facts.text)) and not matchup.tricks_matter
        gap = evidence_gap(in_lists, base)
        chosen = not how and their_choice(card, matchup)
        plan = _plan(facts, matchup)
        return cls(
            card, facts, how, value, share, copies, core, in_lists, gap, slow, trick, plan=plan, their_choice=chosen
        )

    @property
    def spell(self) -> bool:
        return bool(self.facts.types & {"instant", "sorcery"})

    @property
    def reaches_face(self) -> bool:
        """Burn that can go to the face is never idle."""
        return self.spell and _FACE.search(self.facts.text) is not None

    @property
    def interaction(self) -> bool:
        return bool(answer_kinds(self.facts))

    @property
    def engine(self) -> bool:
        """A piece of what the deck does: in ``ENGINE_INCLUSION`` % of the lists at ``ENGINE_COPIES`` or more
        copies, and neither interaction nor a combat trick (Manamorphose in Ruby Storm, a madness deck's discard
        outlets; a heroic deck's tricks are its engine); or a piece of the deck's plan however few lists play it
        (``_plan``)."""
        played = self.share >= ENGINE_INCLUSION and self.copies >= ENGINE_COPIES - COPIES_ROUNDING
        return (played and not self.interaction and not self.trick) or self.plan

    @property
    def by_rules(self) -> bool:
        """Whether the rules alone may take it out: not a card the archetype's rule names, not an engine piece."""
        return self.core != "defining" and not self.engine

    @property
    def dead(self) -> bool:
        """Interaction with nothing to hit among their key cards (an edict against a creature deck has: they
        choose what)."""
        kinds = answer_kinds(self.facts)
        hate = bool(kinds) and kinds <= HATE_KINDS and not self.facts.types & {"creature", "planeswalker"}
        nothing = not self.how and not self.their_choice and not self.reaches_face
        return nothing and ((self.spell and bool(kinds)) or hate)

    def weak(self, best_in: float) -> bool:
        """An answer spell that reaches little of what they play, against a much better card coming in."""
        answer_spell = bool(self.how) and self.spell and not self.reaches_face
        return answer_spell and self.by_rules and best_in >= WEAK_BY * self.worth

    def outclassed(self, best_in: float) -> bool:
        """Interaction the rules may take out (not an engine piece, a staple, nor named by the archetype's rule)
        that does not reach their face and is worth ``OUTCLASSED_BY`` times less here than the best card coming
        in: the main deck's weakest slot in this matchup, even when most lists play it. Worth against worth: the
        record of the lists that play the card coming in does not make a card answering their threats
        outclassed."""
        cuttable = self.interaction and self.by_rules and not self.staple and not self.reaches_face
        return cuttable and best_in > 0 and OUTCLASSED_BY * self.worth <= self.best_worth

    @property
    def clock(self) -> bool:
        """A threat (a creature, a planeswalker, a saga that makes one: the card profile's kind) the player plays
        as a three- or four-of (Delver of Secrets in Izzet Tempo, Fable of the Mirror-Breaker in Domain Zoo): the
        deck's clock, never a flex slot, however many lists chose another threat; only its lists' record against
        the opponent takes it out."""
        return profile_of(self.facts).kind == "threat" and self.card.quantity >= ENGINE_COPIES

    @property
    def staple(self) -> bool:
        """A playset-like card of nearly every list (``ENGINE_INCLUSION`` %, ``ENGINE_COPIES`` or more), threat or
        answer: the rules alone never call it the deck's weakest slot."""
        return self.share >= ENGINE_INCLUSION and self.copies >= ENGINE_COPIES - COPIES_ROUNDING

    def outclassed_words(self, best_name: str) -> str:
        reach = f"answers only {' / '.join(self.how)} here" if self.how else "answers none of their key cards"
        if self.their_choice:
            reach = "takes only what they choose to lose"
        return f"{reach}; {best_name} answers more of what they play"

    def answers_enough(self, best_in: float) -> bool:
        return bool(self.how) and not self.weak(best_in) and not self.outclassed(best_in)

    @property
    def note(self) -> str:
        return " (a core card, out on the rules)" if self.core else ""


@dataclass(frozen=True)
class OutRule:
    """One reason a main-deck card goes out: its ``rank`` (lower goes first), the test, the words; ``trim``
    takes one copy only. Changing the guide's policy is a row of ``OUT_RULES`` and its test."""

    rank: int
    test: Callable[[OutCandidate, float], bool]
    words: Callable[[OutCandidate, str], str]
    trim: bool = False

    def holds(self, candidate: OutCandidate, best_in: float) -> bool:
        return self.test(candidate, best_in)

    def reason(self, candidate: OutCandidate, best_in_name: str) -> str:
        return self.words(candidate, best_in_name)


def _worse_here(c: OutCandidate, _: float) -> bool:
    return c.gap is not None and c.gap <= -BETTER_BY and c.in_lists is not None


# Never out: a card whose lists did better against this opponent
STAYS: tuple[Callable[[OutCandidate], bool], ...] = (lambda c: c.gap is not None and c.gap >= BETTER_BY,)
OUT_RULES: tuple[OutRule, ...] = (
    OutRule(0, lambda c, _: c.dead and c.by_rules, lambda c, _: "nothing to hit among their key cards" + c.note),
    OutRule(
        1,
        lambda c, best: c.weak(best),
        lambda c, best: f"answers only {' / '.join(c.how)} here; {best} answers more of what they play" + c.note,
    ),
    OutRule(2, lambda c, _: bool(c.slow) and c.by_rules, lambda c, _: c.slow + c.note),
    OutRule(
        3,
        _worse_here,
        lambda c, _: (
            f"lists with it went {c.in_lists.wins}-{c.in_lists.losses} here, below the archetype's record"  # type: ignore[union-attr]
            + (" (a core card, out on that evidence)" if c.core else "")
        ),
    ),
    OutRule(
        4,
        lambda c, _: c.core is None and not c.engine and not c.clock and c.share < CORE_INCLUSION,
        lambda c, _: f"a flex slot (in {c.share:g}% of the lists): the first to go when nothing misses in a matchup",
    ),
    OutRule(5, lambda c, best: c.outclassed(best), lambda c, best: c.outclassed_words(best) + c.note),
    OutRule(
        6,
        lambda c, _: c.core is None and not c.engine and c.card.quantity >= 4,
        lambda c, _: f"one copy of a four-of (in {c.share:g}% of the lists), trimmed when nothing misses in a matchup",
        trim=True,
    ),
)


@dataclass(frozen=True)
class Out:
    """A card that can go out, by the first out-rule that holds: the rule's rank, the card's share of the
    lists, the matchup's tie rule, the card (one copy when trimmed) and why."""

    rank: int
    share: float
    tie: tuple[float, ...]
    card: CardDetail
    why: str

    @property
    def order(self) -> tuple[int, float, tuple[float, ...], str]:
        return (self.rank, self.share, self.tie, self.card.name)

    @property
    def guide_card(self) -> GuideCard:
        return GuideCard(name=self.card.name, quantity=self.card.quantity, why=self.why)


def _out_candidate(card: CardDetail, case: GuideCase) -> OutCandidate:
    key = card_key(card.name)
    share, copies = case.own.main_usage.get(key, (0.0, 0.0))
    in_lists = case.own.with_card(card.name, case.opponent, "mainboard")
    how = answers(card, case.matchup, case.main)
    return OutCandidate.of(card, how, case.matchup, share, copies, case.core.get(key), in_lists, case.base)


def _outs(case: GuideCase, coming: set[str], best_in: float, best_name: str, best_worth: float) -> list[Out]:
    """The main-deck cards that can go out (lands, cards coming in and unknown cards are not judged), and one
    copy of up to ``GUIDE_MAX_TRIMS`` four-ofs."""
    tie = case.matchup.tie_rule()
    outs: list[Out] = []
    trims: list[Out] = []
    for card in case.main:
        if is_land(card) or card_key(card.name) in coming or card.unknown:
            continue
        candidate = replace(_out_candidate(card, case), best_worth=best_worth)
        if candidate.answers_enough(best_in) or any(rule(candidate) for rule in STAYS):
            continue
        rule = next((r for r in OUT_RULES if r.holds(candidate, best_in)), None)
        if rule is None:
            continue
        why = rule.reason(candidate, best_name)
        if rule.trim:
            trims.append(Out(rule.rank, candidate.share, tie(card), card.model_copy(update={"quantity": 1}), why))
        else:
            outs.append(Out(rule.rank, candidate.share, tie(card), card, why))
    return outs + sorted(trims, key=lambda t: (t.share, t.tie))[:GUIDE_MAX_TRIMS]


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
    """What to bring in (``IN_RULES``) and as many cards to take out against one opponent: out by the first of
    ``OUT_RULES`` that holds, never a card ``STAYS`` keeps or one that answers enough of theirs; equal cards by
    ``Matchup.tie_rule``. Every other sideboard card is listed with why it stays out, and the 75 after it as
    text a client imports."""
    judged = judge_sideboard(case)
    ranked = [r.card for r in judged if r.comes_in]
    best_in, best_name = (judged[0].value, ranked[0].name) if ranked else (0.0, "")
    best_worth = max((r.worth for r in judged if r.comes_in), default=0.0)
    coming = {card_key(c.name) for c in ranked}
    outs = sorted(_outs(case, coming, best_in, best_name, best_worth), key=lambda o: o.order)
    brought = _taken(ranked, min(GUIDE_MAX_IN, _copies(o.card for o in outs)))
    taken_out = _taken([o.guide_card for o in outs], _copies(brought))
    moved = _copies(brought) - _copies(taken_out)
    brought, shared = _shared_record(brought, judged)
    main, side = post_board(case.main + case.side, brought, taken_out)
    return SideboardGuide(
        opponent=case.opponent,
        record=case.base,
        bring_in=brought,
        take_out=taken_out,
        held_back=_held_back(ranked, brought),
        left_out=[r.card for r in judged if not r.comes_in],
        shared_record=shared,
        mainboard_after=_copies(case.main) + moved,
        sideboard_after=_copies(case.side) - moved,
        post_board=deck_text(main, side),
    )
