"""What a card's effect can reach, as data: a filter of clauses over a card's facts.

A clause is one restriction of the rules text ("nonartifact", "non-Angel", "red or green", "mana value 2 or
less (4 with revolt)", "total power and toughness 5 or less", "with an enters trigger"). A filter checks every
clause on a card and says "yes", "if" (only with a condition the caster can meet) or "no" with the clause
that failed; its description is printed from the same clauses, so the reason and the check cannot disagree.
"""

from __future__ import annotations

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
            if self.limit is not None and self.compare != "or less":
                return f"{self.number} {self.limit:g}" + (" or greater" if self.compare == "or greater" else "")
            base = f"{self.number} {self.limit:g} or less" if self.limit is not None else f"{self.number} up to"
            if self.raised is None:
                return base
            return (
                f"{base} ({self.raised:g} {self.condition})"
                if self.limit is not None
                else f"{base} {self.raised:g} ({self.condition})"
            )
        if self.kind == "colourless":
            return "coloured" if self.negated else "colourless"
        names = sorted(COLOUR_WORDS.get(v, v) for v in self.values) if self.kind == "colour" else sorted(self.values)
        if self.kind == "property":
            names = [PROPERTIES.get(n, n) for n in names]
        if self.kind == "subtype":
            names = [n.title() for n in names]
        if self.negated:
            return ", ".join(f"non-{n}" if self.kind == "subtype" else f"non{n}" for n in names)
        return " or ".join(names)

    def miss(self, card: CardFacts) -> str:
        """Why ``card`` fails this clause, in words ("total 12", "it is black", "a land")."""
        if self.kind == "number":
            value = self.value_of(card)
            label = "total" if self.number == "power + toughness" else self.number
            return f"{label} {value:g}" if value is not None else f"no printed {self.number}"
        if self.kind == "colour":
            mine = "".join(sorted(card.colours)) or "colourless"
            return f"it is {' and '.join(COLOUR_WORDS.get(c, c) for c in mine) if card.colours else mine}"
        if self.kind == "colourless":
            return "it is colourless" if self.negated else "it has a colour"
        if self.kind == "property":
            return f"it has no {self.words()}" if not self.negated else f"it has {self.words()[3:]}"
        if self.negated:
            hit = sorted(self.values & (card.types if self.kind == "type" else card.subtypes))
            if not hit:
                return "excluded"
            word = hit[0].title() if self.kind == "subtype" else hit[0]
            return f"it is {'an' if word[0] in 'aeiouAEIOU' else 'a'} {word}"
        article = "an" if self.words()[:1] in "aeiou" else "a"
        return f"not {article} {self.words()}"


def _has(card: CardFacts, prop: str) -> bool:
    return {
        "activated": lambda: card.activated,
        "enters": lambda: card.enters_trigger,
        "many mana": lambda: card.taps_for_more,
        "flying": lambda: card.flying,
        "monocoloured": lambda: len(card.colours) == 1,
        "hurts itself": lambda: _hurts_itself(card),
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
        before = [
            c.words()
            for c in self.clauses
            if c.kind in ("colour", "colourless") or (c.negated and c.kind != "property")
        ]
        nouns = [c for c in self.clauses if not c.negated and c.kind in ("type", "subtype")]
        if nouns and self.noun == "spell":  # "artifact or enchantment spells"
            head = " ".join(c.words() for c in nouns) + " spells"
        else:
            head = " or ".join(plural(c.words()) for c in nouns) if nouns else plural(self.noun)
        after = [c.words() for c in self.clauses if c.kind in ("number", "property")]
        text = ", ".join(before) + (" " if before else "") + head
        return text + (" with " + " and ".join(after) if after else "")


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
