"""Sideboard guides: what comes in against one opponent (``IN_RULES``, a declared table of rules over one
card's typed evidence in the matchup), and the guide that swaps it for what goes out (``decks.outs``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from meta_mage.archetypes.classifier import ArchetypeClassifier
from meta_mage.card_rules.facts import CardFacts
from meta_mage.decks.cards import answer_kinds, facts_of_detail, section_of, wished_by
from meta_mage.decks.evidence import did_better
from meta_mage.decks.guide_case import WORTH_CAP, GuideCase, feared_by, worth
from meta_mage.decks.matchup import Matchup, answers, group_ways, their_choice
from meta_mage.decks.outs import Out, judge_main_deck
from meta_mage.decks.post_board import deck_text, post_board
from meta_mage.models.cards import card_key
from meta_mage.models.decks import CardDetail, GuideCard, SideboardGuide
from meta_mage.models.meta import WinRate

FEARED_WORTH = WORTH_CAP + 1.0  # a card their playbook fears beats any one answer: it beats their plan
SWAP_MARGIN = 0.25  # a sideboard card comes in for a main-deck card worth at least a quarter of a card less here


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
    outs = judge_main_deck(case, {card_key(c.name) for _, c in coming}, best_name)
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
