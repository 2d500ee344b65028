"""What a card's effect can reach, as data: a filter of clauses over a card's facts.

A clause is one restriction of the rules text ("nonartifact", "non-Angel", "red or green", "mana value 2 or
less (4 with revolt)", "total power and toughness 5 or less", "with an enters trigger"). A filter checks every
clause on a card and says "yes", "if" (only with a condition the caster can meet) or "no" with the clause
that failed; its description is printed from the same clauses, so the reason and the check cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from meta_mage.card_rules.facts import CardFacts

Outcome = Literal["yes", "if", "no"]
NumberName = Literal["mana value", "power", "toughness", "power + toughness", "power or toughness"]
COLOUR_WORDS = {"W": "white", "U": "blue", "B": "black", "R": "red", "G": "green"}
# A card property a clause can ask for, with its words.
PROPERTIES = {
    "activated": "an activated ability",
    "enters": "an enters trigger",
    "many mana": "a mana ability that makes two or more",
    "flying": "flying",
    "monocoloured": "exactly one colour",
    "hurts itself": "power at least its toughness (twice with flying, any with deathtouch)",
    "x cost": "{X} in the mana cost",
}


@dataclass(frozen=True)
class Clause:
    """One restriction: ``kind`` says what is compared and the fields say with what."""

    kind: Literal["type", "subtype", "colour", "colourless", "number", "property"]
    values: frozenset[str] = frozenset()  # type, subtype, colour letters or property names (any of them)
    negated: bool = False  # "non-": none of them
    number: NumberName = "mana value"
    limit: float | None = None  # at most this (None: only with the condition)
    compare: Literal["or less", "exactly", "or greater"] = "or less"
    raised: float | None = None  # at most this with the condition met
    condition: str = ""  # "with revolt", "with X paid", "one per colour spent"

    def value_of(self, card: CardFacts) -> float | None:
        if self.number == "mana value":
            return card.mana_value
        power, toughness = card.number("power"), card.number("toughness")
        if self.number == "power":
            return power
        if self.number == "toughness":
            return toughness
        if power is None or toughness is None:
            return None
        return power + toughness if self.number == "power + toughness" else min(power, toughness)

    def test(self, card: CardFacts) -> Outcome:
        if self.kind == "number":
            value = self.value_of(card)
            if value is None:  # "*" or X on the card: the rules read 0 outside the battlefield; be generous
                return "if"
            if self.limit is not None and self.compare != "or less":
                hit = value == self.limit if self.compare == "exactly" else value >= self.limit
                return "yes" if hit else "no"
            if self.limit is not None and value <= self.limit:
                return "yes"
            return "if" if self.raised is not None and value <= self.raised else "no"
        found = {
            "type": lambda: bool(self.values & card.types),
            "subtype": lambda: bool(self.values & card.subtypes),
            "colour": lambda: bool(self.values & card.colours),
            "colourless": lambda: not card.colours,
            "property": lambda: any(_has(card, p) for p in self.values),
        }[self.kind]()
        return "yes" if found != self.negated else "no"

    def words(self) -> str:
        """The clause in words, as the card would say it."""
        if self.kind == "number":
            return self._number_words()
        if self.kind == "colourless":
            return "coloured" if self.negated else "colourless"
        names = _names(self.kind, self.values)
        if self.negated and self.kind == "property":  # "without flying"
            return "without " + " or ".join(names)
        if self.negated:
            prefix = "non-" if self.kind == "subtype" else "non"
            return ", ".join(prefix + n for n in names)
        return " or ".join(names)

    def _number_words(self) -> str:
        """ "mana value 2 or less (4 with revolt)", "power 4 or greater", "mana value up to 5 (one per ...)"."""
        if self.limit is not None and self.compare != "or less":
            return f"{self.number} {self.limit:g}" + (" or greater" if self.compare == "or greater" else "")
        if self.limit is None:
            base = f"{self.number} up to"
            return base if self.raised is None else f"{base} {self.raised:g} ({self.condition})"
        base = f"{self.number} {self.limit:g} or less"
        return base if self.raised is None else f"{base} ({self.raised:g} {self.condition})"

    def miss(self, card: CardFacts) -> str:
        """Why ``card`` fails this clause, in words ("total 12", "it is black", "a land")."""
        return _MISSES[self.kind](self, card)


# How a clause's values read: colour letters as words (sorted by the word), property names as phrases,
# subtypes capitalised (sorted by the name); anything else as it is, sorted.
_NAME_WORDS: dict[str, Callable[[str], str]] = {
    "property": lambda name: PROPERTIES.get(name, name),
    "subtype": str.title,
}


def _names(kind: str, values: frozenset[str]) -> list[str]:
    if kind == "colour":
        return sorted(COLOUR_WORDS.get(v, v) for v in values)
    words = _NAME_WORDS.get(kind, str)  # as it is
    return [words(v) for v in sorted(values)]


def _number_miss(clause: Clause, card: CardFacts) -> str:
    value = clause.value_of(card)
    label = "total" if clause.number == "power + toughness" else clause.number
    return f"{label} {value:g}" if value is not None else f"no printed {clause.number}"


def _colour_miss(clause: Clause, card: CardFacts) -> str:
    letters = "".join(sorted(card.colours))
    return f"it is {' and '.join(COLOUR_WORDS.get(c, c) for c in letters)}" if letters else "it is colourless"


def _colourless_miss(clause: Clause, card: CardFacts) -> str:
    return "it is colourless" if clause.negated else "it has a colour"


def _property_miss(clause: Clause, card: CardFacts) -> str:
    return f"it has {clause.words().removeprefix('without ')}" if clause.negated else f"it has no {clause.words()}"


def _type_miss(clause: Clause, card: CardFacts) -> str:
    """A type or subtype clause: the excluded type it has ("it is a land"), or the type it lacks."""
    if not clause.negated:
        return f"not {_article(clause.words())} {clause.words()}"
    hit = sorted(clause.values & (card.types if clause.kind == "type" else card.subtypes))
    if not hit:
        return "excluded"
    word = hit[0].title() if clause.kind == "subtype" else hit[0]
    return f"it is {_article(word, 'aeiouAEIOU')} {word}"


def _article(word: str, vowels: str = "aeiou") -> str:
    return "an" if word[:1] in vowels else "a"


_MISSES: dict[str, Callable[[Clause, CardFacts], str]] = {
    "number": _number_miss,
    "colour": _colour_miss,
    "colourless": _colourless_miss,
    "property": _property_miss,
    "type": _type_miss,
    "subtype": _type_miss,
}


def _has(card: CardFacts, prop: str) -> bool:
    return {
        "activated": lambda: card.activated,
        "enters": lambda: card.enters_trigger,
        "many mana": lambda: card.taps_for_more,
        "flying": lambda: card.flying,
        "monocoloured": lambda: len(card.colours) == 1,
        "hurts itself": lambda: _hurts_itself(card),
        "x cost": lambda: card.x_in_cost,
    }[prop]()


def _hurts_itself(card: CardFacts) -> bool:
    """Cut Propulsion: the creature deals damage to itself equal to its power (twice that with flying)."""
    power, toughness = card.number("power"), card.number("toughness")
    if power is None or toughness is None:
        return False
    return (card.deathtouch and power > 0) or power * (2 if card.flying else 1) >= toughness


@dataclass(frozen=True)
class Filter:
    """Every clause must hold. ``noun`` names what it reaches when no type clause does ("permanent", "spell")."""

    clauses: tuple[Clause, ...] = ()
    noun: str = "permanent"

    def check(self, card: CardFacts) -> tuple[Outcome, str]:
        """("yes", ""), ("if", the conditions needed) or ("no", why not), clause by clause."""
        conditions = []
        for clause in self.clauses:
            outcome = clause.test(card)
            if outcome == "no":
                return "no", clause.miss(card)
            if outcome == "if":
                conditions.append(clause.condition or f"if its {clause.number} is low enough")
        return ("if", ", ".join(conditions)) if conditions else ("yes", "")

    def types(self) -> frozenset[str]:
        """The card types it names (any of them); empty when it names none."""
        return frozenset().union(*(c.values for c in self.clauses if c.kind == "type" and not c.negated))

    def describe(self) -> str:
        """The filter in words: "nonartifact, nonblack creatures", "creatures with mana value 2 or less"."""
        before = [c.words() for c in self.clauses if _before_noun(c)]
        after = [c.words() for c in self.clauses if c.kind == "number" or (c.kind == "property" and not c.negated)]
        without = [c.words() for c in self.clauses if c.kind == "property" and c.negated]
        text = ", ".join(before) + (" " if before else "") + self._head()
        return text + (" with " + " and ".join(after) if after else "") + "".join(f" {w}" for w in without)

    def _head(self) -> str:
        """The noun: "creatures or planeswalkers", "artifact or enchantment spells", or ``noun`` in plural."""
        nouns = [c.words() for c in self.clauses if not c.negated and c.kind in ("type", "subtype")]
        if not nouns:
            return plural(self.noun)
        if self.noun == "spell":  # "artifact or enchantment spells"
            return " ".join(nouns) + " spells"
        return " or ".join(plural(n) for n in nouns)


def _before_noun(clause: Clause) -> bool:
    """Colours and exclusions come before the noun ("nonartifact, nonblack creatures")."""
    return clause.kind in ("colour", "colourless") or (clause.negated and clause.kind != "property")


def plural(words: str) -> str:
    """ "artifact or enchantment" → "artifacts or enchantments"."""
    return " or ".join(_one_plural(part) for part in words.split(" or "))


def _one_plural(word: str) -> str:
    if word.lower() == "equipment":
        return word
    if word.endswith("y") and not word.endswith("ay"):
        return word[:-1] + "ies"
    if word.endswith(("s", "h")):
        return word + "es"
    return word + "s"
