"""Read the phrases of a card's rules text: ``target_filter`` turns the X of an effect ("non-Angel, non-Demon
creature", "spell with mana value 4 or greater", "spell or permanent that's red or green") into a filter, and
``CAST_CONDITIONS`` finds how the card must be cast for an effect to apply ("if kicked", "if {R} was spent")."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from meta_mage.card_rules.facts import CARD_TYPES, SUPERTYPES
from meta_mage.card_rules.filters import Clause, Filter
from meta_mage.card_rules.roles import PAYABLE_CAP

COLOURS = {"white": "W", "blue": "U", "black": "B", "red": "R", "green": "G"}
# Subtypes a filter names without "non-" (the rest are read from "non-<word>").
SUBTYPES = {"equipment", "aura", "vehicle", "saga", "dragon", "angel", "demon", "human", "elf", "goblin", "zombie"}
OUTLAWS = {"assassin", "mercenary", "pirate", "rogue", "warlock"}
SUNBURST_CONDITION = "one per colour spent"  # a number the colours of mana spent set (at most five)
_NUMBER = re.compile(
    r"(?:with |that has |has )?(total power and toughness|power or toughness|mana value|power|toughness) "
    r"(\d+|x)( or less| or greater)?"
)
_VARIABLE = re.compile(r"mana value (?:x or less|less than or equal to|equal to)[^,.]*|its mana value is less than")
_ONE_OR_MORE = re.compile(r"that's one or more colou?rs")
_THATS = re.compile(r"(?:that's|if it's) ((?:white|blue|black|red|green)(?:,? or (?:white|blue|black|red|green))*)")


# Phrases of a property, in the order they are read ("without flying" before "with flying").
_PROPERTY_PHRASES = (
    ("without flying", Clause("property", frozenset({"flying"}), negated=True)),
    ("with flying", Clause("property", frozenset({"flying"}))),
)
_PROPERTY_WORDS = re.compile("|".join(words for words, _ in _PROPERTY_PHRASES))


def _properties(phrase: str) -> list[Clause]:
    return [clause for words, clause in _PROPERTY_PHRASES if words in phrase]


def target_filter(phrase: str, noun: str = "permanent", text: str = "") -> Filter:
    """The filter of a target phrase; ``text`` is the whole card, for the conditions that raise a cap."""
    phrase = phrase.lower().replace(" an opponent controls", "").replace(" you don't control", "")
    clauses: list[Clause] = []
    for match in _NUMBER.finditer(phrase):
        name = {"total power and toughness": "power + toughness"}.get(match.group(1), match.group(1))
        if match.group(2) == "x":
            clauses.append(Clause("number", number=name, raised=PAYABLE_CAP, condition="with X paid"))  # type: ignore[arg-type]
            continue
        compare = {" or less": "or less", " or greater": "or greater"}.get(match.group(3) or "", "exactly")
        raised = re.search(rf"{match.group(1)} (\d+) or less instead", text)
        condition = raising_condition(text)
        clauses.append(
            Clause(
                "number",
                number=name,  # type: ignore[arg-type]
                limit=float(match.group(2)),
                compare=compare,  # type: ignore[arg-type]
                raised=float(raised.group(1)) if raised and compare == "or less" else None,
                condition=condition if raised else "",
            )
        )
    phrase = _NUMBER.sub(" ", phrase)
    if _VARIABLE.search(phrase):
        sunburst = any(w in text for w in ("sunburst", "charge counter", "colors of mana spent"))
        cap, condition = (5, SUNBURST_CONDITION) if sunburst else (PAYABLE_CAP, "with X paid")
        clauses.append(Clause("number", raised=cap, condition=condition))
        phrase = _VARIABLE.sub(" ", phrase)
    if _ONE_OR_MORE.search(phrase):
        clauses.append(Clause("colourless", negated=True))
        phrase = _ONE_OR_MORE.sub(" ", phrase)
    thats = _THATS.search(phrase)
    if thats:
        clauses.append(
            Clause("colour", frozenset(COLOURS[w] for w in re.findall(r"\w+", thats.group(1)) if w in COLOURS))
        )
        phrase = _THATS.sub(" ", phrase)
    clauses += _properties(phrase)
    phrase = _PROPERTY_WORDS.sub(" ", phrase)
    return Filter(tuple(_word_clauses(phrase)) + tuple(clauses), noun)


def raising_condition(text: str) -> str:
    """The condition under which a card's number is raised ("with revolt", "if kicked")."""
    for word in ("revolt", "delirium", "kicked", "bargained", "void", "gift", "threshold", "metalcraft", "coven"):
        if word in text:
            return f"with {word}"
    return condition_of(text)[0] or "with its condition met"  # "if cast from exile" (Delayed Blast Fireball)


@dataclass(frozen=True)
class _WordRule:
    """A plain word of a target phrase (no "non-"): when ``applies`` to the word (singular) and its kind, the
    ``slot`` it fills ("type", "colour", "colourless", "subtype") or the ``clause`` it adds as it is."""

    applies: Callable[[str, str], bool]
    slot: str = ""
    clause: Clause | None = None


_PLAIN_WORDS = (
    _WordRule(lambda word, kind: kind == "type", slot="type"),
    _WordRule(lambda word, kind: kind == "colour", slot="colour"),
    _WordRule(lambda word, kind: word == "colorless", slot="colourless"),
    _WordRule(lambda word, kind: word == "colored", clause=Clause("colourless", negated=True)),
    _WordRule(lambda word, kind: word == "monocolored", clause=Clause("property", frozenset({"monocoloured"}))),
    _WordRule(lambda word, kind: word in SUBTYPES, slot="subtype"),
)
# The clause each filled slot makes, in this order (the words' own clauses follow).
_SLOT_CLAUSES: tuple[tuple[str, Callable[[frozenset[str]], Clause]], ...] = (
    ("non type", lambda values: Clause("type", values, negated=True)),
    ("non subtype", lambda values: Clause("subtype", values, negated=True)),
    ("non colour", lambda values: Clause("colour", values, negated=True)),
    ("supertype", lambda values: Clause("type", values)),  # "legendary creature": both, not either
    ("colour", lambda values: Clause("colour", values)),
    ("colourless", lambda values: Clause("colourless")),
    ("type", lambda values: Clause("type", values)),
    ("subtype", lambda values: Clause("subtype", values)),
)


def _word_clauses(phrase: str) -> list[Clause]:
    slots: dict[str, set[str]] = {}
    extra: list[Clause] = []
    for raw in re.split(r"[,\s]+", phrase):
        word = raw.strip(".;:")
        if not word or word in ("none", "nontoken"):  # cards in a deck are never tokens
            continue
        slot, values, clause = _read_word(word)
        if clause is not None:
            extra.append(clause)
        elif slot:
            slots.setdefault(slot, set()).update(values)
    _split_supertypes(slots)
    return [make(frozenset(slots[slot])) for slot, make in _SLOT_CLAUSES if slots.get(slot)] + extra


def _read_word(word: str) -> tuple[str, set[str], Clause | None]:
    """The slot one word fills and its values ("nonblack": "non colour", {"B"}), or a clause of its own."""
    non = re.match(r"non-?(.+)", word)
    base = _singular(non.group(1) if non else word)
    kind = _word_kind(base)
    if non:
        if kind:
            return f"non {kind}", {COLOURS.get(base, base)}, None
        return "non subtype", OUTLAWS if base == "outlaw" else {base}, None
    for rule in _PLAIN_WORDS:
        if rule.applies(base, kind):
            return rule.slot, {COLOURS.get(base, base)}, rule.clause
    return "", set(), None


def _split_supertypes(slots: dict[str, set[str]]) -> None:
    """ "legendary creature" is a legendary one and a creature, not either: the supertypes go to a clause of
    their own when the phrase also names a card type."""
    types = slots.get("type", set())
    supertypes = types & set(SUPERTYPES)
    if supertypes and types - supertypes:
        slots["supertype"] = supertypes
        slots["type"] = types - supertypes


def _word_kind(word: str) -> str:
    if word in CARD_TYPES or word in SUPERTYPES:
        return "type"
    return "colour" if word in COLOURS else ""


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("s") and word[:-1] in (*CARD_TYPES, *SUPERTYPES, *SUBTYPES, "permanent", "spell"):
        return word[:-1]
    return word


# Conditions on how the card is cast that an effect in the same sentence needs, and the words the coach says.
CAST_CONDITIONS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = tuple(
    (re.compile(pattern), words)
    for pattern, words in (
        (
            r",? ?\bif ((?:\{[wubrg]\})+) was spent to cast (?:this spell|it|this creature),?",
            lambda m: f"if {m.group(1).upper()} was spent",
        ),
        (
            r",? ?\bif at least (\w+) (white|blue|black|red|green) mana was spent to cast (?:this spell|it),?",
            lambda m: f"if at least {m.group(1)} {m.group(2)} mana was spent",
        ),
        (r",? ?\bif (?:it|this spell) was kicked(?: with its [^ ]+ kicker)?,?", lambda m: "if kicked"),
        (r",? ?\bif (?:it|this spell) was bargained,?", lambda m: "if bargained"),
        (r",? ?\bif the gift was promised,?", lambda m: "if the gift was promised"),
        (
            r",? ?\bif (?:it|this spell) was cast from (a graveyard|your graveyard|exile|your hand),?",
            lambda m: f"if cast from {m.group(1)}",
        ),
        (r",? ?\bif (?:it was )?evoked,?", lambda m: "if evoked"),
        (r",? ?\bif you cast it,?", lambda m: "if it was cast"),
    )
)


def condition_of(sentence: str) -> tuple[str, str]:
    """The cast condition a sentence holds in words ("" when none), and the sentence without it."""
    for pattern, words in CAST_CONDITIONS:
        if found := pattern.search(sentence):
            return words(found), (sentence[: found.start()] + " " + sentence[found.end() :]).strip()
    return "", sentence
