"""How to play against an opponent, composed from data: the speed of both decks, their cards that decide
games (by how often they play them) with what of yours answers each, and what an opening hand should hold
(with the chance a random seven holds it)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from math import comb
from typing import Literal

from meta_mage.card_rules.facts import PERMANENT_TYPES, CardFacts
from meta_mage.card_rules.profile import profile_of
from meta_mage.card_rules.reader import roles_of
from meta_mage.decks.cards import COST_REDUCTION, put_in_by
from meta_mage.models.cards import card_key
from meta_mage.models.meta import WinRate
from meta_mage.models.play_plan import Decider, KeepRule, PlayPlan, Speed

DECIDERS = 5  # their cards named, most played first
CURVE_GAP = 0.4  # mana of average curve by which one deck counts as the faster
CHEAT_GAP = 2  # turns sooner a card put onto the battlefield lands for its cheat to count (not Recommission's 1)
HAND = 7
LANDS_KEPT: tuple[tuple[float, tuple[int, int]], ...] = (
    (0.27, (1, 3)),  # 16 lands in 60 or fewer (Affinity's 14 with its Moxen and Urza's Saga): a one-lander keeps
    (1.0, (2, 4)),
)
"""The lands an opening seven keeps on lands alone, by the deck's share of lands: the first row whose share is at
least the deck's."""


@dataclass(frozen=True)
class TheirCard:
    facts: CardFacts
    inclusion_rate: float
    weight: float  # inclusion × copies: how often it shows up
    record_with: WinRate | None = None


@dataclass(frozen=True)
class YourCard:
    facts: CardFacts
    quantity: int


Role = Literal["beatdown", "control", "even", "combo", "against combo", "ramp"]
Answers = Callable[[CardFacts, CardFacts], str]  # (your card, their card) → how it answers, or ""


def _turn(card: CardFacts) -> int:
    return max(1, round(card.mana_value))


def _sooner(card: CardFacts, deck: list[CardFacts]) -> str:
    """How ``card`` comes down before its mana value says, in words, or "": a cost reduction or an alternative
    cost ("its cost reduction", "delve"), or another card of the deck putting it onto the battlefield."""
    cheaper = COST_REDUCTION.search(card.text)
    if cheaper:
        return _reduction(cheaper.group(1))
    cheat = put_in_by(card, deck)
    if cheat is not None and _turn(cheat) + CHEAT_GAP <= _turn(card):
        return f"{cheat.name} putting it onto the battlefield"
    return ""


def _curve(cards: list[tuple[CardFacts, float]]) -> float:
    """The average mana value of the nonland cards, leaving out those that come down sooner than it says (a cost
    reduction: Tolarian Terror, Murktide Regent; a card of the deck putting them onto the battlefield: Parhelion
    II beside Greasefang): their printed mana value says little of when they land."""
    deck = [c for c, _ in cards]
    spells = [(c.mana_value, n) for c, n in cards if not c.is_land and not _sooner(c, deck)]
    total = sum(n for _, n in spells)
    return round(sum(v * n for v, n in spells) / total, 2) if total else 0.0


def at_least_one(copies: int, deck: int, drawn: int = HAND) -> float:
    """Percent of ``drawn``-card hands from ``deck`` cards holding at least one of ``copies`` (hypergeometric)."""
    if deck <= 0 or copies <= 0:
        return 0.0
    return round(100 * (1 - comb(deck - copies, drawn) / comb(deck, drawn)), 1)


def lands_between(lands: int, deck: int, low: int, high: int) -> float:
    """Percent of opening sevens with ``low`` to ``high`` lands."""
    if deck < HAND:
        return 0.0
    hits = sum(comb(lands, k) * comb(deck - lands, HAND - k) for k in range(low, high + 1))
    return round(100 * hits / comb(deck, HAND), 1)


FAST_STRATEGIES = ("aggro", "tempo")
SLOW_STRATEGIES = ("midrange", "control")
STOPS_A_COMBO = {"counter", "discard", "graveyard", "spell_limit", "ability"}  # what a combo deck must get past


@dataclass(frozen=True)
class Sides:
    """What decides the part each deck plays: both archetypes' declared strategies ("unknown" when not
    declared) and both curves."""

    yours: str
    theirs: str
    your_curve: float
    their_curve: float

    @property
    def declared(self) -> bool:
        return "unknown" not in (self.yours, self.theirs)

    @property
    def curves_apart(self) -> bool:
        return bool(self.your_curve and self.their_curve) and abs(self.your_curve - self.their_curve) >= CURVE_GAP


ROLES: tuple[tuple[Role, Callable[[Sides], bool]], ...] = (
    ("combo", lambda s: s.yours == "combo"),
    ("beatdown", lambda s: s.theirs == "combo" and s.yours in FAST_STRATEGIES),
    ("against combo", lambda s: s.theirs == "combo" and s.yours != "combo"),
    ("ramp", lambda s: s.yours == "ramp" and s.theirs != "ramp"),
    ("beatdown", lambda s: s.theirs == "ramp" and s.yours != "ramp"),
    ("beatdown", lambda s: s.declared and s.yours in FAST_STRATEGIES and s.theirs not in FAST_STRATEGIES),
    ("control", lambda s: s.declared and s.theirs in FAST_STRATEGIES and s.yours not in FAST_STRATEGIES),
    ("beatdown", lambda s: s.yours == "midrange" and s.theirs == "control"),
    ("control", lambda s: s.yours == "control" and s.theirs == "midrange"),
    ("beatdown", lambda s: s.curves_apart and s.your_curve < s.their_curve),
    ("control", lambda s: s.curves_apart and s.your_curve > s.their_curve),
    ("even", lambda s: True),
)
"""The part the player's deck plays, from both decks' roles (their playbooks', else their rules' strategies),
the first row that holds: a combo deck races whatever it meets (another combo deck too); a fast deck races a
combo deck, anything else disrupts one; a ramp deck goes over the top of anything but ramp, and anything races
a ramp deck; then the fast deck is the beatdown; midrange beats down on control; then the lower curve by
``CURVE_GAP``."""


def speed_of(theirs: list[TheirCard], yours: list[YourCard], strategies: tuple[str, str] | None = None) -> Speed:
    """Both decks' speed and the player's part; ``strategies``: your archetype's declared strategy and theirs."""
    their_curve = _curve([(c.facts, c.weight) for c in theirs])
    your_curve = _curve([(c.facts, c.quantity) for c in yours])
    their_spells = [_turn(c.facts) for c in theirs if not c.facts.is_land]
    your_spells = [_turn(c.facts) for c in yours if not c.facts.is_land]
    sides = Sides(*(strategies or ("unknown", "unknown")), your_curve, their_curve)
    return Speed(
        their_curve=their_curve,
        your_curve=your_curve,
        their_first_turn=min(their_spells, default=None),
        your_first_turn=min(your_spells, default=None),
        role=next(role for role, holds in ROLES if holds(sides)),
    )


FEW_ANSWERS = 4  # copies: with fewer answers to their first card, a seven rarely holds one (under 40 %)
UNIVERSAL = 90.0  # a card in this share of their lists: its lists' record is the archetype's, not its own


def _reduction(words: str) -> str:
    """How a card comes down sooner, in words: "its cost reduction", "its alternative cost", "delve"."""
    lowered = words.lower()
    if lowered.startswith("cost"):
        return "its cost reduction"
    return "its alternative cost" if lowered.startswith("rather than") else lowered


def _decides(card: TheirCard) -> int:
    """Threats and the spells that cheat them in (reanimation) first, then interaction that stays on the board
    (lock pieces), then the rest: a removal spell is not a card to answer."""
    kind = profile_of(card.facts).kind
    engine = card.facts.puts_onto_battlefield and not card.facts.is_permanent  # Reanimate, Goryo's Vengeance
    lasting = kind == "interaction" and card.facts.is_permanent
    return 0 if kind == "threat" or engine else 1 if lasting else 2


def _stops_your_combo(card: TheirCard) -> int:
    """For a combo deck: what can stop the combo first (counters, discard, graveyard hate, locks), then their
    clock, then the rest."""
    if {r.kind for r in roles_of(card.facts)} & STOPS_A_COMBO:
        return 0
    return 1 if profile_of(card.facts).kind == "threat" else 2


@dataclass(frozen=True)
class Knowledge:
    """What the plan knows of both decks beyond their cards: the cards the player's deck fears (its playbook's
    hosers), their fast mana among their played cards, and what the roles rest on."""

    your_fears: frozenset[str] = frozenset()  # card names
    their_fast_mana: tuple[str, ...] = ()
    rests_on: tuple[str, ...] = ()


FAST_MANA_SHARE = 50.0  # their fast mana counts for the clock when this share of their lists plays it
FREE_WORDS = {"pitch": "a card from hand", "life": "life"}
REDUCED_TURN = 3  # a card with a cost reduction or an alternative cost lands by about this turn, not its mana value
FAST_FROM = 3  # fast mana brings a card of this mana value or more a turn sooner


def arrival(card: CardFacts, deck: list[CardFacts], fast: tuple[str, ...]) -> tuple[int, str]:
    """The turn a card of theirs lands and why it is sooner than its mana value: cast for a card from hand or for
    life (turn 1: Solitude, Force of Negation), another card putting it onto the battlefield (that card's turn),
    a cost reduction or alternative cost (by about ``REDUCED_TURN``), or their fast mana (a turn sooner for a card
    of ``FAST_FROM`` mana or more)."""
    turn = _turn(card)
    free = profile_of(card).casting.free_cast & {"pitch", "life"}
    if free and turn > 1:
        return 1, "cast for free (" + " or ".join(sorted(FREE_WORDS[w] for w in free)) + ")"
    cheat = put_in_by(card, deck) or _cheat_from_hand(card, deck)
    if cheat is not None and _turn(cheat) + CHEAT_GAP <= turn:
        return _turn(cheat), f"{cheat.name} putting it onto the battlefield"
    cheaper = COST_REDUCTION.search(card.text)
    if cheaper:
        return min(turn, REDUCED_TURN), _reduction(cheaper.group(1))
    if fast and turn >= FAST_FROM:
        return turn - 1, f"their fast mana: {' / '.join(fast[:3])}"
    return turn, ""


def _cheat_from_hand(card: CardFacts, deck: list[CardFacts]) -> CardFacts | None:
    """The cheapest card of ``deck`` that puts a card of ``card``'s kind from a hand or a library onto the
    battlefield (Show and Tell: "an artifact, creature, enchantment, or land card"; Sneak Attack, Through the
    Breach, Natural Order), by the card rules' casting facts."""
    kinds = card.types & set(PERMANENT_TYPES)
    cheats = [
        c
        for c in deck
        if c.name != card.name
        and profile_of(c).casting.cheat_from & {"hand", "library"}
        and any(re.search(rf"\b{kind}\b", c.text, re.I) for kind in kinds)
    ]
    return min(cheats, key=lambda c: (c.mana_value, c.name), default=None)


def _feared_first(fears: frozenset[str]) -> Callable[[TheirCard], int]:
    keys = {card_key(name) for name in fears}
    return lambda card: 0 if card_key(card.facts.name) in keys else 1


def deciders(
    theirs: list[TheirCard],
    yours: list[YourCard],
    answers: Answers,
    role: Role = "even",
    knowledge: Knowledge = Knowledge(),
) -> list[Decider]:
    """Their most played threats and interaction (then the rest; for a combo deck, what stops it first), the
    cards your deck fears (its playbook's hosers: Blood Moon against Amulet Titan) before all, each with your
    main-deck cards that answer it; a card's own record only when some of their lists go without it."""
    first = _stops_your_combo if role == "combo" else _decides
    feared = _feared_first(knowledge.your_fears)
    ranked = sorted(
        (c for c in theirs if not c.facts.is_land), key=lambda c: (feared(c), first(c), -c.weight, c.facts.name)
    )
    found = []
    deck = [c.facts for c in theirs]
    for card in ranked[:DECIDERS]:
        ways = [(mine.facts.name, how) for mine in yours if (how := answers(mine.facts, card.facts))]
        turn, sooner = arrival(card.facts, deck, knowledge.their_fast_mana)
        found.append(
            Decider.answered_by(
                ways,
                name=card.facts.name,
                inclusion_rate=card.inclusion_rate,
                turn=turn,
                sooner_by=sooner,
                record_with=card.record_with if card.inclusion_rate < UNIVERSAL else None,
            )
        )
    return found


def _keep(advice: str, cards: list[YourCard], yours: list[YourCard]) -> KeepRule:
    copies = sum(c.quantity for c in cards)
    deck = sum(c.quantity for c in yours)
    return KeepRule(
        advice=advice,
        cards=[c.facts.name for c in cards],
        copies=copies,
        chance=at_least_one(copies, deck) if cards else None,
    )


def _lands_rule(yours: list[YourCard]) -> KeepRule:
    deck = sum(c.quantity for c in yours)
    lands = sum(c.quantity for c in yours if c.facts.is_land)
    low, high = next(kept for share, kept in LANDS_KEPT if lands <= share * deck)
    return KeepRule(
        advice=f"{low} to {high} lands ({lands} in your {deck})",
        copies=lands,
        chance=lands_between(lands, deck, low, high),
    )


def _answer_in_time(speed: Speed, found: list[Decider], yours: list[YourCard]) -> KeepRule:
    """Against a faster deck: an answer in time for their first key cards."""
    first = speed.their_first_turn
    early = [d for d in found if first is not None and d.turn <= first + 1]
    early = [d for d in early if d.your_answers] or early  # named only where the deck has an answer to hold
    turn = max((d.turn for d in early), default=2)
    answering = _answering(early)
    cards = [c for c in yours if c.facts.name in answering and _turn(c.facts) <= turn and not c.facts.is_land]
    return _keep(f"an answer that comes down by turn {turn} for {' / '.join(d.name for d in early)}", cards, yours)


def _early_threat(speed: Speed, found: list[Decider], yours: list[YourCard]) -> KeepRule:
    """As the faster deck: a threat by turn 2."""
    threats = [c for c in yours if _is_threat(c.facts) and _turn(c.facts) <= 2]
    return _keep("a threat by turn 2: you are the faster deck, make them answer you", threats, yours)


# what a seven should also hold, by the player's role in the matchup
ROLE_RULES: dict[str, Callable[[Speed, list[Decider], list[YourCard]], KeepRule]] = {
    "control": _answer_in_time,
    "against combo": _answer_in_time,
    "beatdown": _early_threat,
}


def _top_answer_rule(found: list[Decider], yours: list[YourCard], role: Role) -> KeepRule | None:
    """One of your answers to the card they play most, or the words that you have none (a combo deck plays
    around what stops it; others race it)."""
    if not found:
        return None
    top = found[0]
    if not top.your_answers:
        instead = "play around it" if role == "combo" else "race it"
        return KeepRule(advice=f"nothing in your main deck answers {top.name}; {instead} or board in")
    cards = [c for c in yours if c.facts.name in _answering([top])]
    if sum(c.quantity for c in cards) < FEW_ANSWERS:  # a keep rule most sevens fail is no rule
        names = " / ".join(c.facts.name for c in cards)
        return KeepRule(advice=f"only {names} answers {top.name}: do not wait for it; race it or board in more")
    return _keep(f"an answer to {top.name}, the first of their cards above", cards, yours)


def keep_rules(speed: Speed, found: list[Decider], yours: list[YourCard]) -> list[KeepRule]:
    """What a seven should hold: 2-4 lands; against a faster deck an answer in time for their first key cards;
    as the faster deck, a threat by turn 2; and one of your answers to the card they play most."""
    rules = [_lands_rule(yours)]
    if speed.role in ROLE_RULES:
        rules.append(ROLE_RULES[speed.role](speed, found, yours))
    if (top := _top_answer_rule(found, yours, speed.role)) is not None:
        rules.append(top)
    return rules


def _answering(found: list[Decider]) -> set[str]:
    return {name for d in found for name in d.answering}


def _is_threat(card: CardFacts) -> bool:
    return bool(card.types & {"creature", "planeswalker"}) or "create" in card.text.lower()


def play_plan(
    theirs: list[TheirCard],
    yours: list[YourCard],
    answers: Answers,
    strategies: tuple[str, str] | None = None,
    knowledge: Knowledge = Knowledge(),
) -> PlayPlan:
    speed = speed_of(theirs, yours, strategies).model_copy(update={"rests_on": list(knowledge.rests_on)})
    found = deciders(theirs, yours, answers, speed.role, knowledge)
    return PlayPlan(speed=speed, deciders=found, keep=keep_rules(speed, found, yours))
