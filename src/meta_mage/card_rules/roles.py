"""A role is one thing a card does, to what (a filter), and how much; ``answer`` evaluates a role on a card.

"X answers Y" is the filter of one of X's roles evaluated on Y's facts, with every restriction applied: the
zone (a counter meets Y as a spell, removal as a permanent, discard as a card in hand), who chooses (an edict
or "target opponent discards" is the opponent's choice: ``choice``, never an answer on its own), the numbers
(damage against toughness or loyalty, mana value caps set by X, sunburst, revolt or delirium) and what the
text says it cannot reach. The words of every verdict come from the same role and filter.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from meta_mage.card_rules.facts import (
    CHOSEN_PLAYER,
    COLOURED_SPELLS,
    EVERYTHING,
    MONOCOLOURED,
    MULTICOLOURED,
    CardFacts,
)
from meta_mage.card_rules.filters import COLOUR_WORDS, Filter

Kind = Literal[
    "counter",
    "removal",
    "sweeper",
    "edict",
    "discard",
    "graveyard",
    "land",
    "ability",
    "spell_limit",
    "lifegain",
    "protection",
]
Outcome = Literal["yes", "if", "choice", "no"]
Lock = Literal[
    "",
    "activated",
    "activated nonmana",
    "named",
    "enters",
    "enters or dies",
    "all",
    "many mana",
    "graveyard cast",
    "uncast creatures",
    "your turn",
]
PAYABLE_CAP = 6  # the most an X (or energy, or charge counters) is counted on to reach in a real game
# How much of the opponents' graveyards a graveyard role takes: a whole graveyard at once, chosen cards, or it keeps
# cards from being used while it is out ("" for a role of another kind).
GraveyardReach = Literal["", "all", "some", "ongoing"]


@dataclass(frozen=True)
class Amount:
    """Damage or -N/-N: ``n`` (None for X), and ``raised`` with ``condition`` met (Unholy Heat's delirium)."""

    n: int | None
    raised: int | None = None
    condition: str = ""

    def words(self) -> str:
        base = "X" if self.n is None else str(self.n)
        return f"{base} ({self.raised} {self.condition})" if self.raised else base


@dataclass(frozen=True)
class Role:
    """One thing a card does: its ``kind``, the ``effect`` verb, the ``filter`` of what it reaches, and more."""

    kind: Kind
    effect: str  # "counters", "destroys", "exiles", "returns to hand", "deals damage to", "gives -N/-N to"...
    filter: Filter = field(default_factory=Filter)
    amount: Amount | None = None
    abilities: frozenset[str] = frozenset()  # a counter of "activated" / "triggered" abilities
    chooser: Literal["you", "them"] = "you"
    soft: str = ""  # "unless they pay {3}"
    lock: Lock = ""
    colours: frozenset[str] = frozenset()  # protection from these colours
    source: frozenset[str] = frozenset()  # the colours of the card the role is on (protection stops them)
    spell: bool = False  # the effect of a spell (an instant or sorcery), not an ability of a permanent
    condition: str = ""  # how it must be cast for the effect to happen: "if {R} was spent", "if kicked"...
    reach: GraveyardReach = ""  # a graveyard role's reach

    def describe(self) -> str:
        """The role in words, printed from its fields ("destroys nonartifact, nonblack creatures")."""
        return self._plain_words() + (f" ({self.condition})" if self.condition else "")

    def _plain_words(self) -> str:
        if self._effect_only():
            return self.effect
        if self.kind == "ability":
            return f"{self.effect} {self.filter.describe()}"
        reach = self._reach()
        text = self._effect_words(reach) if self.amount is None else _amount_words(self.amount, self, reach)
        return text + (f" ({self.soft})" if self.soft else "")

    def _effect_only(self) -> bool:
        """Its effect words say it all: a kind of role with no filter (a spell limit with one prints it: Gaddock
        Teeg), or a lock whose words name what it stops."""
        if self.kind == "ability":
            return self.lock in _EFFECT_ONLY_LOCKS
        return self.kind in _EFFECT_ONLY_KINDS and not self.filter.clauses

    def _reach(self) -> str:
        """What it reaches in words, the abilities it counters first ("triggered abilities and colorless spells")."""
        reach = self.filter.describe()
        if not self.abilities:
            return reach
        kinds = " or ".join(sorted(self.abilities)) + " abilities"
        return kinds if not self.filter.clauses and self.filter.noun == "ability" else f"{kinds} and {reach}"

    def _effect_words(self, reach: str) -> str:
        for row in _PHRASINGS:
            if row.applies(self):
                return row.template.format(effect=self.effect, reach=reach)
        return self.effect.format(reach) if "{}" in self.effect else f"{self.effect} {reach}"


def _amount_words(amount: Amount, role: Role, reach: str) -> str:
    """ "deals 3 damage to creatures", "gives -2/-2 to all creatures", "gives +2/-2 to creatures"."""
    n = amount.words()
    what = role.effect.replace("-N", f"-{n}") if role.effect.startswith("gives") else f"deals {n} damage to"
    return f"{what} {'all ' if role.kind == 'sweeper' else ''}{reach}"


# Roles whose effect words say it all (no filter printed after them).
_EFFECT_ONLY_KINDS = frozenset({"graveyard", "spell_limit", "lifegain", "land", "protection"})
_EFFECT_ONLY_LOCKS = frozenset(
    {"named", "many mana", "enters", "enters or dies", "all", "uncast creatures", "your turn"}
)


@dataclass(frozen=True)
class _Phrasing:
    """A role the effect and reach are printed around: when it ``applies``, the ``template`` it reads as."""

    applies: Callable[[Role], bool]
    template: str  # with {effect} and {reach}


_PHRASINGS = (
    _Phrasing(lambda role: role.kind == "sweeper" and "{}" not in role.effect, "{effect} all {reach}"),
    _Phrasing(lambda role: role.kind == "edict", "{effect} {reach} (their choice)"),
    _Phrasing(lambda role: role.kind == "discard" and role.chooser == "them", "{effect} (their choice)"),
)


@dataclass(frozen=True)
class Verdict:
    """How one role meets one card: ``outcome`` and the words (``way`` for the role, ``detail`` for the card)."""

    outcome: Outcome
    way: str
    detail: str = ""

    def __bool__(self) -> bool:
        return self.outcome in ("yes", "if")

    def words(self) -> str:
        """What the coach says: the role, and the condition it needs for this card."""
        needed = self.outcome == "if" and self.detail and self.detail not in self.way
        return f"{self.way}, {self.detail}" if needed else self.way


def answer(role: Role, target: CardFacts, deck_colours: frozenset[str] | None = None) -> Verdict:
    """Whether ``role`` deals with ``target`` by the rules, and why (or why not) in words.

    A role with a condition on how its card is cast (Firespout's "if {R} was spent") answers only "if" it is met;
    given the colours the player's deck makes (``deck_colours``, letters), a condition on a colour spent is resolved:
    it holds when the deck makes that colour, and the role answers nothing when it does not."""
    way = role.describe()
    outcome, detail = _evaluate(role, target)
    if role.condition and outcome in ("yes", "if"):
        outcome, detail = _conditioned(role.condition, outcome, detail, deck_colours)
    return Verdict(outcome, way, detail)


_SPENT = re.compile(r"\{([WUBRG])\}|\b(white|blue|black|red|green) mana\b")


def spent_colours(condition: str) -> frozenset[str]:
    """The colours a condition needs spent ("if {R} was spent": R; "if at least three red mana was spent": R)."""
    found = {letter or _LETTERS[word] for letter, word in _SPENT.findall(condition)}
    return frozenset(found) if "spent" in condition else frozenset()


_LETTERS = {word: letter for letter, word in COLOUR_WORDS.items()}


def condition_holds(condition: str, deck_colours: frozenset[str] | None) -> bool | None:
    """Whether a deck that makes ``deck_colours`` meets ``condition``: True or False for a colour spent, None when the
    deck cannot say (kicker, a gift, how it is cast: the player's choice in the game)."""
    needed = spent_colours(condition)
    if not needed or deck_colours is None:
        return None
    return needed <= deck_colours


def _conditioned(
    condition: str, outcome: Outcome, detail: str, deck_colours: frozenset[str] | None
) -> tuple[Outcome, str]:
    holds = condition_holds(condition, deck_colours)
    if holds is None:
        return "if", ", ".join(d for d in (detail, condition) if d)
    if holds:
        return outcome, detail
    missing = "".join(c for c in "WUBRG" if c in spent_colours(condition) - (deck_colours or frozenset()))
    return "no", f"your deck makes no {' or '.join(COLOUR_WORDS[c] for c in missing)} mana ({condition})"


def _evaluate(role: Role, target: CardFacts) -> tuple[Outcome, str]:
    if target.exiled_for_mana and role.kind not in _REACH_A_SPIRIT_GUIDE:
        return "no", "it is exiled from hand for mana, never cast nor on the battlefield"
    return _EVALUATORS.get(role.kind, _kind_check)(role, target)


# Simian and Elvish Spirit Guide are only ever in the hand: discard reaches them there (a counter says why not).
_REACH_A_SPIRIT_GUIDE = frozenset({"discard", "counter"})


def _discard(role: Role, target: CardFacts) -> tuple[Outcome, str]:
    if role.chooser == "them":
        return "choice", "they choose what to discard"
    return role.filter.check(target)


def _protection_role(role: Role, target: CardFacts) -> tuple[Outcome, str]:
    return ("yes", "") if role.colours & target.colours else ("no", "not of that colour")


def _spell_limit(role: Role, target: CardFacts) -> tuple[Outcome, str]:
    """Casting many spells in a turn (Deafening Silence), or the spells its filter names (Gaddock Teeg)."""
    if not role.filter.clauses:
        return _kind_check(role, target)
    for blocked in (_never_cast_land, _exiled_for_mana):
        if why := blocked(role, target):
            return "no", why
    return role.filter.check(target)


def _kind_check(role: Role, target: CardFacts) -> tuple[Outcome, str]:
    hit, why = _KIND_CHECKS["graveyard cast" if role.lock == "graveyard cast" else role.kind]
    return ("yes", "") if hit(target) else ("no", why)


def _counter(role: Role, target: CardFacts) -> tuple[Outcome, str]:
    if "triggered" in role.abilities and target.value_trigger and target.is_permanent:
        return "yes", "its triggered ability"
    if "activated" in role.abilities and target.activated:
        return "yes", "its activated ability"
    if role.filter.noun == "ability" and not role.filter.clauses:
        return "no", "it has no such ability"
    for blocked in _COUNTER_BLOCKS:
        if why := blocked(role, target):
            return "no", why
    outcome, detail = role.filter.check(target)
    if outcome == "yes" and role.soft:
        detail = role.soft
    return outcome, detail


def _never_cast_land(role: Role, target: CardFacts) -> str:
    return "a land is never cast" if target.is_land else ""


def _exiled_for_mana(role: Role, target: CardFacts) -> str:
    return "it is exiled from hand for mana, not cast" if target.exiled_for_mana else ""


def _uncounterable(role: Role, target: CardFacts) -> str:
    return "it can't be countered" if target.uncounterable and role.effect == "counters" else ""


# Why a counter cannot meet a card as a spell at all, in the order the words are given ("" when it can).
_COUNTER_BLOCKS: tuple[Callable[[Role, CardFacts], str], ...] = (_never_cast_land, _exiled_for_mana, _uncounterable)


def _removal(role: Role, target: CardFacts) -> tuple[Outcome, str]:
    for blocked in _REMOVAL_BLOCKS:
        if why := blocked(role, target):
            return "no", why
    outcome: Outcome
    outcome, detail = role.filter.check(target)
    if outcome == "no":
        return outcome, detail
    if role.amount is not None:
        outcome, detail = _damage(role.amount, target, outcome, detail)
    if outcome == "no":
        return outcome, detail
    if role.chooser == "them":
        return "choice", "they choose what to sacrifice"
    if role.kind == "removal" and target.ward:
        return "if", f"paying its ward ({target.ward})"
    return outcome, detail


def _not_permanent(role: Role, target: CardFacts) -> str:
    return "" if target.is_permanent else "not a permanent"


def _fetchland(role: Role, target: CardFacts) -> str:
    return "a fetchland is sacrificed in response" if target.fetchland and role.kind != "sweeper" else ""


def _indestructible(role: Role, target: CardFacts) -> str:
    destroys = role.effect in ("destroys", "deals damage to")
    return "it is indestructible" if target.indestructible and destroys else ""


def _shielded(role: Role, target: CardFacts) -> str:
    """A targeted removal spell (yours to aim) against hexproof, shroud or protection."""
    return _untargetable(role, target) if role.kind == "removal" and role.chooser == "you" else ""


def _damage_prevented(role: Role, target: CardFacts) -> str:
    """Damage to each creature (Anger of the Gods) from a source it has protection from is prevented (702.16e)."""
    if role.effect != "deals damage to" or not (words := _protected_from(role, target)):
        return ""
    return f"its protection from {words} prevents the damage"


# Why removal cannot reach a card at all, in the order the words are given ("" when it can).
_REMOVAL_BLOCKS: tuple[Callable[[Role, CardFacts], str], ...] = (
    _not_permanent,
    _fetchland,
    _indestructible,
    _shielded,
    _damage_prevented,
)


def _untargetable(role: Role, target: CardFacts) -> str:
    """Why a targeted spell or ability of ``role``'s source cannot target ``target`` (hexproof, shroud,
    protection), or ""."""
    if target.hexproof:
        return "it has hexproof"
    if words := _protected_from(role, target):
        return f"it has protection from {words}"
    return ""


# A protection (CardFacts.protection_from) and whether it stops a role by the role's source: its colours and whether
# it is a spell. A colour letter stops a source of that colour. True-Name Nemesis's chosen player is the opponent of
# its controller, the coach's user: nothing the user controls can target or damage it.
_PROTECTION_STOPS: dict[str, Callable[[Role], bool]] = {
    EVERYTHING: lambda role: True,
    MULTICOLOURED: lambda role: len(role.source) > 1,
    MONOCOLOURED: lambda role: len(role.source) == 1,
    COLOURED_SPELLS: lambda role: role.spell and bool(role.source),
    CHOSEN_PLAYER: lambda role: True,
}


def _protection_stops(protection: str, role: Role) -> bool:
    stops = _PROTECTION_STOPS.get(protection)
    return stops(role) if stops else protection in role.source


def _protected_from(role: Role, target: CardFacts) -> str:
    """The protections of ``target`` that stop ``role``'s source, in words ("black and red", "multicolored"), or ""
    (everything says it alone). Colour letters sort first."""
    if EVERYTHING in target.protection_from:
        return EVERYTHING
    stops = sorted(p for p in target.protection_from if _protection_stops(p, role))
    return " and ".join(_PROTECTION_WORDS.get(p, p) for p in stops)


_PROTECTION_WORDS = {**COLOUR_WORDS, CHOSEN_PLAYER: "the chosen player (you)"}


def _damage(amount: Amount, target: CardFacts, outcome: Outcome, detail: str) -> tuple[Outcome, str]:
    """Damage (or -N/-N) against toughness, or damage against a planeswalker's loyalty."""
    if "creature" in target.types:
        size, what = target.number("toughness"), "toughness"
    elif "planeswalker" in target.types:
        size, what = target.number("loyalty"), "loyalty"
    else:
        return "no", "damage does not destroy it"
    if size is None:
        return "if", f"if its {what} is low enough"
    if amount.n is not None and size <= amount.n:
        return outcome, detail
    if amount.n is None and size <= PAYABLE_CAP:
        return "if", f"with X = {size}"
    if amount.raised is not None and size <= amount.raised:
        return "if", amount.condition
    return "no", f"{what} {size}"


def _lock(role: Role, target: CardFacts) -> tuple[Outcome, str]:
    if role.lock in ("activated", "activated nonmana"):  # of the permanents its filter names
        if not target.is_permanent:
            return "no", "not a permanent"
        outcome, why = role.filter.check(target)
        if outcome == "no":
            return "no", why
    hit, why = _LOCK_CHECKS.get(role.lock, (lambda card: False, "no lock"))
    return ("yes", "") if hit(target) else ("no", why)


Check = tuple[Callable[[CardFacts], bool], str]  # whether a card is reached, and why not in words
_KIND_CHECKS: dict[str, Check] = {
    "graveyard": (lambda card: card.uses_graveyard, "it does not use the graveyard"),
    "graveyard cast": (
        lambda card: card.graveyard_cast_or_reanimate,
        "it neither casts from nor returns from a graveyard",
    ),
    "land": (lambda card: card.is_land and "basic" not in card.types, "not a nonbasic land"),
    "spell_limit": (lambda card: card.casts_many, "it does not need many spells in a turn"),
    "lifegain": (lambda card: False, "gaining life does not stop it"),
}
_LOCK_CHECKS: dict[str, Check] = {
    "activated": (lambda card: card.any_activated, "it has no activated ability"),
    "activated nonmana": (lambda card: card.activated, "it has no activated ability but mana abilities"),
    "named": (lambda card: card.is_permanent and card.activated, "it has no activated ability but mana abilities"),
    "enters": (lambda card: "creature" in card.types and card.enters_trigger, "it has no enters trigger"),
    "enters or dies": (
        lambda card: "creature" in card.types and (card.enters_trigger or card.dies_trigger),
        "it has no enters or dies trigger",
    ),
    "all": (
        lambda card: "creature" in card.types and (card.triggered or card.any_activated),
        "nothing to lose",
    ),
    "many mana": (lambda card: card.taps_for_more, "it does not tap for two or more mana"),
    "uncast creatures": (lambda card: card.puts_onto_battlefield, "it puts nothing onto the battlefield uncast"),
    "your turn": (lambda card: "instant" in card.types or card.has_flash, "it is not cast at instant speed"),
}
# How each kind of role meets a card (the rest: a check of the card alone, ``_KIND_CHECKS``).
_EVALUATORS: dict[str, Callable[[Role, CardFacts], tuple[Outcome, str]]] = {
    "counter": _counter,
    "removal": _removal,
    "sweeper": _removal,
    "edict": _removal,
    "discard": _discard,
    "ability": _lock,
    "protection": _protection_role,
    "spell_limit": _spell_limit,
}
