"""What the card rules look at on a card: types, subtypes, colours, numbers and the abilities its text gives it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from meta_mage.models.cards import Card, mana_colors, mana_value

CARD_TYPES = ("creature", "artifact", "enchantment", "planeswalker", "land", "battle", "instant", "sorcery", "kindred")
PERMANENT_TYPES = ("creature", "artifact", "enchantment", "planeswalker", "land", "battle")
SUPERTYPES = ("legendary", "basic", "snow", "world")
_REMINDER = re.compile(r"\([^)]*\)")
_QUOTED = re.compile(r"\"[^\"]*\"")  # abilities granted to something else (a token, an emblem)
_COST_WORDS = re.compile(r"^(?:sacrifice|discard|exile|pay|remove|tap|untap|\[|[+−-]\d)", re.I)
_KEYWORD_COSTS = re.compile(r"^(?:equip|crew|reconfigure|fortify)\b", re.I | re.M)
_TRIGGERED = re.compile(r"\b(when|whenever|at the beginning of)\b", re.I)
_GRAVEYARD_USE = re.compile(
    r"from (?:your|their) graveyards?|in your graveyard|cards? in (?:your )?graveyards?|\b(flashback|escape|unearth|"
    r"delve|dredge|embalm|eternalize|disturb|retrace|jump-start|aftermath|scavenge|encore)\b|"
    r"mill|return target [^.]*card from|target [^.]*card in a graveyard",
    re.I,
)
_CASTS_MANY = re.compile(
    r"\b(storm|cascade)\b|second spell|spells? (?:you've|you have) cast this turn|for each (?:other )?spell cast|"
    r"copy it for each spell|whenever you cast an instant or sorcery spell|gains flashback until end of turn"
    r"|add \{r\}\{r\}\{r\}|add \{b\}\{b\}\{b\}",
    re.I,
)
# "{T}: Add {R}{G}", "Add {C}{C}", "Add three mana", "add {C}{C}{C} instead" (Tron)
_MANY_MANA = re.compile(r"\badd (?:\{[^}]+\}){2,}|\badd (?:two|three|four|x) mana\b", re.I)
_GRAVEYARD_CAST = re.compile(
    r"\b(flashback|escape|jump-start|retrace|aftermath|disturb|unearth|embalm|eternalize|encore)\b|"
    r"cast [^.]* from (?:your|a) graveyard",
    re.I,
)
_REANIMATES = re.compile(
    r"(?:return|put)s? [^.]*from (?:your|a|their|an opponent's) graveyards? (?:to|onto) the battlefield", re.I
)
_CHEATS_IN = re.compile(r"(?:return|put)s? [^.]*(?:to|onto) the battlefield", re.I)
_FETCH = re.compile(r"sacrifice [^:.]*:\s*search your library for an? [^.]*\bcard", re.I)
_LEVELS = re.compile(r"^LEVEL \d", re.M)  # a leveler's later abilities are not there from the start
# "Protection from black and from red", "First strike, protection from multicolored", "Flying, protection from spells
# that are one or more colors, annihilator 6", "This creature has protection from the chosen player": the qualities
# up to the end of the keyword (a comma not followed by another "from").
_KEYWORD_LIST = r"(?:[\w'-]+(?: [\w'-]+){0,2}, )*"
_PROTECTION = re.compile(
    rf"^(?:{_KEYWORD_LIST}|this \w+ has )protection from ([^.\n(,;]+(?:,? (?:and )?from [^.\n(,;]+)*)", re.I | re.M
)
_QUALITY_SPLIT = re.compile(r",? (?:and )?from ")
_WARD = re.compile("^" + _KEYWORD_LIST + r"ward\s*(?:(\{[^\n]*?\})|[—-]\s*([^.\n]+))", re.I | re.M)
COLOUR_NAMES = {"white": "W", "blue": "U", "black": "B", "red": "R", "green": "G"}
# What a protection is from, beside a colour (its letter): the words the rules give it (and the table spells).
EVERYTHING = "everything"
MULTICOLOURED = "multicolored"  # no multicoloured source can target, damage, enchant or block it
MONOCOLOURED = "monocolored"
COLOURED_SPELLS = "spells that are one or more colors"  # Emrakul, the Aeons Torn: spells only, not abilities
CHOSEN_PLAYER = "the chosen player"  # True-Name Nemesis: its controller chooses an opponent, the coach's user
_QUALITIES: dict[str, frozenset[str]] = {
    **{name: frozenset({letter}) for name, letter in COLOUR_NAMES.items()},
    "each color": frozenset(COLOUR_NAMES.values()),
    "all colors": frozenset(COLOUR_NAMES.values()),
    **{word: frozenset({word}) for word in (EVERYTHING, MULTICOLOURED, MONOCOLOURED, COLOURED_SPELLS, CHOSEN_PLAYER)},
}
_SYMBOL = re.compile(r"\{([^}]+)\}")
# Simian and Elvish Spirit Guide: pitched from hand for mana, practically never cast.
_EXILED_FOR_MANA = re.compile(r"^exile this (?:card|creature) from your hand: add\b", re.I | re.M)


def _text_matches(pattern: re.Pattern[str]) -> cached_property[bool]:
    """A flag of the card: whether its rules text (without reminder text) matches ``pattern``."""
    return cached_property(lambda facts: pattern.search(facts.text) is not None)


def _keyword(word: str) -> cached_property[bool]:
    """A flag of the card: whether it has the keyword ``word`` (on a line of keywords)."""
    return _text_matches(re.compile(rf"^(?:[\w ]+, )*{word}\b", re.I | re.M))


@dataclass(frozen=True)
class CardFacts:
    """A card as the rules see it: its type line, colours, mana value, power, toughness, loyalty and text."""

    name: str
    type_line: str = ""
    oracle_text: str = ""
    mana_cost: str | None = None
    toughness: str | None = None
    power: str | None = None
    cmc: float | None = None
    loyalty: str | None = None
    colors: tuple[str, ...] | None = None  # the card's colours when known (else read from its mana cost)

    @classmethod
    def of(cls, card: Card) -> CardFacts:
        """The facts of a stored card."""
        return cls(
            card.name,
            card.type_line,
            card.oracle_text or "",
            card.mana_cost,
            card.toughness,
            card.power,
            card.cmc,
            card.loyalty,
            tuple(card.colors),
        )

    @cached_property
    def _type_words(self) -> tuple[set[str], set[str]]:
        before, _, after = self.type_line.split("//")[0].partition("—")
        return {w.lower() for w in before.split()}, {w.lower() for w in after.split()}

    @property
    def types(self) -> set[str]:
        """Card types and supertypes, lower case ("legendary", "creature")."""
        return self._type_words[0]

    @property
    def subtypes(self) -> set[str]:
        return self._type_words[1]

    @property
    def colours(self) -> set[str]:
        """Its colours by the rules: none for Devoid (702.114a), else the stored colours or its mana cost's."""
        if self.devoid:
            return set()
        return set(self.colors) if self.colors is not None else set(mana_colors(self.mana_cost))

    def castable_with(self, colours: set[str]) -> bool:
        """Whether mana of only ``colours`` (and colourless) pays its mana cost: a hybrid symbol needs one of its
        colours, a Phyrexian one can be paid with life, a "{2/W}" with two generic."""
        return not self.unpaid_symbols(colours)

    def unpaid_symbols(self, colours: set[str]) -> list[set[str]]:
        """The colours of each symbol of its mana cost that mana of only ``colours`` cannot pay."""
        unpaid = []
        for symbol in _SYMBOL.findall(self.mana_cost or ""):
            parts = set(symbol.upper().split("/"))
            coloured = parts & set(COLOUR_NAMES.values())
            if coloured and not coloured & colours and not parts & {"P", "2"}:
                unpaid.append(coloured)
        return unpaid

    devoid = _keyword("devoid")

    @cached_property
    def _static_text(self) -> str:
        """The text it has from the start (a leveler's levels cut off)."""
        return _LEVELS.split(self.text)[0]

    def _static_keyword(self, word: str) -> bool:
        found = rf"^(?:[\w ]+, )*{word}\b(?! from)(?![^\n]*\bas long as\b)"  # not Syr Ginger's "as long as"
        return re.search(found, self._static_text, re.I | re.M) is not None

    @property
    def hexproof(self) -> bool:
        """Hexproof or shroud, unconditional: no spell of an opponent can target it."""
        return self._static_keyword("hexproof") or self._static_keyword("shroud")

    @cached_property
    def protection_from(self) -> frozenset[str]:
        """What it has protection from, unconditionally: colour letters, ``EVERYTHING``, ``MULTICOLOURED``,
        ``MONOCOLOURED``, ``COLOURED_SPELLS`` or ``CHOSEN_PLAYER`` (other qualities, such as a card type or a
        creature type, are not read)."""
        found: set[str] = set()
        for match in _PROTECTION.finditer(self._static_text):
            for quality in _QUALITY_SPLIT.split(match.group(1).lower()):
                found |= _QUALITIES.get(quality.strip(), frozenset())
        return frozenset(found)

    @property
    def ward(self) -> str | None:
        """Its ward cost as printed ("{2}", "Pay 3 life"), or None."""
        match = _WARD.search(self._static_text)
        return (match.group(1) or match.group(2)).strip() if match else None

    @property
    def mana_value(self) -> float:
        return self.cmc if self.cmc is not None else mana_value(self.mana_cost)

    @cached_property
    def text(self) -> str:
        return _REMINDER.sub("", self.oracle_text or "")

    @cached_property
    def own_text(self) -> str:
        """The text without the abilities it grants to other objects (in quotes: tokens, emblems)."""
        return _QUOTED.sub("", self.text)

    indestructible = _keyword("indestructible")
    uncounterable = _text_matches(re.compile(r"(?:this spell|it) can't be countered", re.I))

    @property
    def graveyard_cast_or_reanimate(self) -> bool:
        """Casts itself from a graveyard or returns cards from a graveyard to the battlefield (what Grafdigger's
        Cage stops), not exiling them first as Living End does."""
        return bool(_GRAVEYARD_CAST.search(self.text) or _REANIMATES.search(self.text))

    puts_onto_battlefield = _text_matches(_CHEATS_IN)  # without casting them: reanimation, blink, Aether Vial

    @property
    def exiled_for_mana(self) -> bool:
        """Exiled from hand for mana ("Exile this card from your hand: Add {R}"): played that way, never cast."""
        return _EXILED_FOR_MANA.search(self.text) is not None

    @property
    def is_land(self) -> bool:
        return "land" in self.types

    @property
    def is_permanent(self) -> bool:
        return bool(self.types & set(PERMANENT_TYPES))

    triggered = _text_matches(_TRIGGERED)

    @property
    def enters_trigger(self) -> bool:
        """A triggered ability of its own entering ("When Solitude enters, ..."), which Torpor Orb stops."""
        return self._own_trigger("enters")

    @property
    def dies_trigger(self) -> bool:
        """A triggered ability of its own dying ("When this creature dies, ..."), which Hushbringer stops too."""
        return self._own_trigger("dies")

    def _own_trigger(self, event: str) -> bool:
        own = rf"(?:{re.escape(self.name.split(' // ')[0])}|this creature|{re.escape(self.name.split(',')[0])})"
        return re.search(rf"\bwhen(?:ever)? {own} {event}\b", self.text, re.I) is not None

    @property
    def x_in_cost(self) -> bool:
        """An {X} in its (front face's) mana cost."""
        return "{X}" in (self.mana_cost or "").split("//")[0].upper()

    @property
    def value_trigger(self) -> bool:
        """A trigger that carries the card's value, so countering it answers the card: its own entering, dying or
        leaving (Solitude, Fury, Phlage), a saga's chapters, or a trigger at the beginning of a step (Ocelot Pride,
        Bloodghast's kin); not one of many small triggers (Dragon's Rage Channeler's surveil, Murktide Regent's
        counters)."""
        own = rf"(?:{re.escape(self.name.split(' // ')[0])}|this creature|{re.escape(self.name.split(',')[0])})"
        once = rf"\bwhen(?:ever)? {own} (?:enters|dies|leaves|is put into)\b|^at the beginning of\b"
        return "saga" in self.subtypes or re.search(once, self.text, re.I | re.M) is not None

    def _abilities(self) -> list[tuple[str, str]]:
        """(cost, effect) of each activated ability: a line "<cost>: <effect>" whose cost has a mana
        symbol or starts with a cost verb (a channel or equip word before a dash is dropped)."""
        found = []
        for line in self.text.split("\n"):
            cost, colon, effect = line.partition(":")
            cost = cost.split("—")[-1].strip()
            if colon and '"' not in cost and len(cost) < 80 and ("{" in cost or _COST_WORDS.match(cost)):
                found.append((cost, effect.strip()))
        found += [(match.group(0), "keyword") for match in _KEYWORD_COSTS.finditer(self.text)]
        own = re.escape(self.name.split(" // ")[0])
        for granted in re.findall(
            rf"(?:{own}|this (?:land|saga|artifact|creature)) gains \"([^\"]+)\"", self.text, re.I
        ):
            cost, colon, effect = granted.partition(":")
            if colon and ("{" in cost or _COST_WORDS.match(cost.strip())):
                found.append((cost.strip(), effect.strip()))
        return found

    @property
    def activated(self) -> bool:
        """Activated abilities other than mana abilities (loyalty abilities and equip count)."""
        if "planeswalker" in self.types:
            return True
        return any(not effect.lower().startswith("add") for _, effect in self._abilities())

    @property
    def any_activated(self) -> bool:
        """Any activated ability, mana abilities included."""
        return "planeswalker" in self.types or bool(self._abilities())

    @property
    def taps_for_more(self) -> bool:
        """A land that can tap for two or more mana (Gruul Turf, Lotus Field, Eldrazi Temple, the Tron lands)."""
        return self.is_land and _MANY_MANA.search(self.text) is not None

    @property
    def fetchland(self) -> bool:
        """A land that sacrifices itself to search for another: cracked in response to any answer."""
        return self.is_land and _FETCH.search(self.text) is not None

    uses_graveyard = _text_matches(_GRAVEYARD_USE)
    casts_many = _text_matches(_CASTS_MANY)
    flying = _keyword("flying")
    has_flash = _keyword("flash")
    deathtouch = _keyword("deathtouch")

    def number(self, name: str) -> int | None:
        """A printed number ("power", "toughness", "loyalty"); None for "*", "X" or missing."""
        value = {"power": self.power, "toughness": self.toughness, "loyalty": self.loyalty}[name]
        return int(value) if value and value.isdigit() else None
