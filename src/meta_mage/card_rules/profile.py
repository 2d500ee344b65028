"""A card's profile, read once from its rules: what kind of card it is, which abilities of the opponent's
cards it stops, what sets its X, and the kinds of answer it is.

Everything the roles already know (what a card counters, destroys, locks or hates) comes from ``roles_of``,
so a profile and the answers the coach gives cannot disagree; the rest (mana, tokens, card flow, losing all
abilities, sunburst) is a short table of rules-text tests. Each kind is a row of a declared table, taken in
order: the first that applies is the card's kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from meta_mage.card_rules.casting import CastingFacts, casting_of
from meta_mage.card_rules.facts import CardFacts
from meta_mage.card_rules.reader import roles_of
from meta_mage.card_rules.roles import Role

KINDS = ("land", "interaction", "mana", "threat", "card_flow", "other")
STOPS = ("triggered", "activated", "static", "mana")
X_RULES = ("sunburst", "converge", "x", "")
NOT_ANSWERS = frozenset({"lifegain", "protection"})  # role kinds that reach nothing of an opponent's


@dataclass(frozen=True)
class CardProfile:
    """What a card is to the coach, read once from its rules text."""

    kind: str  # one of KINDS
    stops: frozenset[str]  # of STOPS: the abilities of opponents' cards it stops
    x_rule: str  # one of X_RULES: what sets the number it reaches ("" when nothing does)
    answer_kinds: frozenset[str]  # the kinds of its roles that reach an opponent (Role.kind)
    # how it is cast, its mana and its graveyards (read beside the roles, so left out of a profile's equality)
    casting: CastingFacts = field(default_factory=CastingFacts, compare=False)


@lru_cache(maxsize=8192)  # cards repeat across a whole meta; CardFacts is frozen
def profile_of(facts: CardFacts) -> CardProfile:
    """The card's profile: its ``kind`` (the first of KINDS that applies), ``stops``, ``x_rule``,
    ``answer_kinds`` and ``casting`` (``casting.casting_of``)."""
    roles, text = roles_of(facts), facts.own_text.lower()
    answers = frozenset(r.kind for r in roles) - NOT_ANSWERS
    reading = Reading(facts, text, answers, _stops(text, roles), casting_of(facts))
    kind = next(row.kind for row in KIND_RULES if row.applies(reading))
    return CardProfile(kind, reading.stops, _x_rule(facts, reading.text), reading.answer_kinds, reading.casting)


@dataclass(frozen=True)
class Reading:
    """What the kind rules look at: the card, its own text (lower case), and what its roles reach."""

    facts: CardFacts
    text: str
    answer_kinds: frozenset[str]
    stops: frozenset[str]
    casting: CastingFacts


# ---- stops: the roles' locks and counters of abilities, and "loses all abilities" -----------------------------------

# A lock role (Role.lock) and the abilities it stops: Null Rod and Collector Ouphe stop mana abilities too; a named
# card (Pithing Needle, Sorcerous Spyglass) keeps its mana abilities.
_LOCK_STOPS: dict[str, frozenset[str]] = {
    "activated": frozenset({"activated", "mana"}),
    "activated nonmana": frozenset({"activated"}),
    "named": frozenset({"activated"}),
    "enters": frozenset({"triggered"}),  # Torpor Orb
    "enters or dies": frozenset({"triggered"}),  # Hushbringer
    "all": frozenset({"static"}),  # Dress Down; an Aura whose creature loses all abilities
}
# Tishana's Tidebinder ("that permanent loses all abilities"), Turn to Frog, Kenrith's Transformation: a permanent not
# the card's own, and not one of the caster's, loses all abilities.
_LOSES_ALL = re.compile(
    r"\b(?:target|each|all|enchanted|that|another) (?P<what>[^.]*?)\blos(?:e|es) all (?:other )?abilities"
)


def _stops(text: str, roles: tuple[Role, ...]) -> frozenset[str]:
    found: set[str] = set()
    for role in roles:
        if role.kind == "counter":  # countering an ability never reaches a mana ability
            found |= role.abilities & {"activated", "triggered"}
        found |= _LOCK_STOPS.get(role.lock, frozenset()) if role.kind == "ability" else set()
        found |= {"static"} if role.kind == "land" else set()  # Blood Moon: the lands lose their abilities (305.7)
    if any(_others(m.group("what")) for m in _LOSES_ALL.finditer(text)):
        found.add("static")
    return frozenset(found)


def _others(what: str) -> bool:
    """Whether the thing that loses its abilities can be an opponent's ("target creature", not "target creature
    you control" nor "creature card")."""
    return "you control" not in what and not re.search(r"\bcards?\b", what)


# ---- kind: a declared table, first row that applies -----------------------------------------------------------------

_ADDS_MANA = re.compile(r"\badds? (?:[\w'-]+ ){0,4}?(?:mana\b(?! value)|\{)")
_THREAT_TYPES = frozenset({"creature", "planeswalker", "battle"})
_CREATURE_TOKENS = re.compile(
    r"\bcreates? [^.]*?\bcreature tokens?\b|\bcreates? [^.]*?\btokens? that's a copy of [^.]*?\bcreature\b"
    r"|\bcreates? [^.]*?\btokens that are copies of\b|\bmanifest dread\b|\bcloak the top\b"
)
# Life loss as the plan: "each opponent loses 2 life", "target opponent loses 3 life" (Bump in the Night).
_DRAINS = re.compile(r"\b(?:each|target) opponent loses (?:\d+|x|two times x) life\b")
# Damage to a player: "to target player or planeswalker", "to each opponent", "to any target" (not combat damage,
# which the creatures it rides on deal).
_DAMAGES_PLAYER = re.compile(
    r"\bdeals? (?:[^.]*? )?(?<!combat )damage to (?:any target|[^.]*?\b(?:player|opponent)s?\b)"
)
# "draw a card", "draws two cards", "draw that many cards"; not an opponent's draw, nor "whenever you draw your
# second card" or "if you would draw a card" (what happens on a draw, not a draw).
_DRAWS = re.compile(r"(?<!opponent )(?<!would )(?<!whenever you )\bdraws? (?:[\w-]+ ){0,3}?cards?\b")
_TOP_CARDS = re.compile(
    r"\b(?:look at|looks at|reveal|reveals|exile|exiles) the top (?:[\w-]+ )?cards? of your library"
    r"|\b(?:scry|surveil) (?:\d+|x)\b"  # look at the top cards, keep some
)
_SEARCH = re.compile(r"\bsearch(?:es)? your library(?: and/or graveyard)? for (?P<what>[^.]*?)\bcards?\b")
_LAND_WORDS = re.compile(
    r"\b(?:land|plains|island|swamp|mountain|forest|desert|gate|cave|locus|sphere|lair|town|urza's)s?\b"
)


def _searches_nonland(text: str) -> bool:
    """Searches the library for a card that can be a nonland one (Demonic Tutor, not a fetchland)."""
    for match in _SEARCH.finditer(text):
        what = match.group("what")
        if "nonland" in what or not _LAND_WORDS.search(what):
            return True
    return False


# Keywords whose creature token is only in their reminder text (which the text read here leaves out): living weapon
# (Nettlecyst's Germ), job select (Black Mage's Rod's Hero), For Mirrodin! (a Rebel), amass (an Army).
_TOKEN_KEYWORDS = re.compile(r"^(?:living weapon|job select|for mirrodin!)|\bamass\b", re.M)


def _is_threat(reading: Reading) -> bool:
    facts = reading.facts
    if facts.types & _THREAT_TYPES or "vehicle" in facts.subtypes:
        return True
    text = reading.text
    return bool(_CREATURE_TOKENS.search(text) or _TOKEN_KEYWORDS.search(text) or _DAMAGES_PLAYER.search(text))


# Hate that answers no card and stops no ability but holds opponents back all the same: a tax on their spells or
# abilities (Thalia, Sphere of Resistance, Anointed Peacekeeper; not "this spell costs", a cost the caster pays,
# nor a tax only on spells that target it), or a lock on their life (Sunspine Lynx: "Players can't gain life").
_TAXES_OR_LOCKS = re.compile(
    r"^(?![^.]*\b(?:this spell|this ability|you cast|that target|cast this way|to cast it\b))[^.]*\b(?:"
    r"spells? (?:[^.]*? )?costs? (?:\{[^}]+\})+ more to cast"
    r"|activated abilities (?:[^.]*? )?cost (?:\{[^}]+\})+ more to activate"
    r"|(?:players|your opponents|each opponent|enchanted player|that player|they) can't gain life)",
    re.M,
)


def _taxes_or_locks(reading: Reading) -> bool:
    return any(_TAXES_OR_LOCKS.search(sentence) for sentence in re.split(r"(?<=\.)\s+|\n", reading.text))


# Cards to hand from elsewhere than the library's top: a graveyard, outside the game, cards exiled to play.
_TO_HAND = re.compile(
    r"\bfrom (?:your|a) graveyard to (?:your|its owner's) hand|from outside the game|"
    r"\bmay (?:look at and )?play (?:those|that) cards?|\bput that card into your hand"
)


def _flows_cards(reading: Reading) -> bool:
    """Draws, digs, tutors or regrows to hand; a search that puts the card onto the battlefield (Natural Order,
    Tinker) is a cheat, not card flow."""
    text = reading.text
    tutors = _searches_nonland(text) and "library" not in reading.casting.cheat_from
    return bool(_DRAWS.search(text) or _TOP_CARDS.search(text) or tutors or _TO_HAND.search(text))


@dataclass(frozen=True)
class KindRule:
    """One kind of card and the test that gives it."""

    kind: str
    applies: Callable[[Reading], bool]


KIND_RULES = (
    KindRule("land", lambda reading: reading.facts.is_land),  # the front face's type line
    KindRule("interaction", lambda reading: bool(reading.answer_kinds or reading.stops)),
    KindRule("interaction", _taxes_or_locks),  # interaction by what it does to opponents, answering no card
    KindRule("mana", lambda reading: reading.facts.exiled_for_mana or _ADDS_MANA.search(reading.text) is not None),
    KindRule("threat", _is_threat),
    KindRule("card_flow", _flows_cards),
    KindRule("threat", lambda reading: _DRAINS.search(reading.text) is not None),  # after its card flow: Monument
    KindRule("other", lambda reading: True),
)


# ---- x_rule ---------------------------------------------------------------------------------------------------------

_X_WORDS = re.compile(r"\b(sunburst|converge)\b")


def _x_rule(facts: CardFacts, text: str) -> str:
    """ "sunburst" or "converge" by the keyword or ability word, else "x" for an {X} in the front face's cost."""
    if found := _X_WORDS.search(text):
        return found.group(1)
    return "x" if "{X}" in (facts.mana_cost or "").split("//")[0].upper() else ""
