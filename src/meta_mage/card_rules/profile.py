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
from dataclasses import dataclass, field, replace
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
    reading = Reading(facts, text, answers, _stops(text, roles), casting_of(facts), _granted_text(facts))
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
    granted: str = ""  # the abilities it grants in quotes to its controller's permanents (``_granted_text``)


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


# Stops no role reads, in the words of the rules: the opponents' triggers kept from triggering or countered unless
# paid for, activated abilities (mana ones too unless excepted) kept from being activated, a land made a basic type.
_ACTIVATED_AND_MANA = frozenset({"activated", "mana"})
_STOPS_WORDS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (
        re.compile(r"\bdon't cause abilities of permanents your opponents control to trigger\b"),
        frozenset({"triggered"}),
    ),
    (re.compile(r"\bcounter that ability unless its controller pays\b"), frozenset({"triggered"})),
    (
        re.compile(r"\bits activated abilities can't be activated unless they're mana abilities\b"),
        frozenset({"activated"}),
    ),
    (re.compile(r"\bits activated abilities can't be activated(?! unless)"), _ACTIVATED_AND_MANA),
    (re.compile(r"\b(?:detain|your opponents can't cast spells or activate abilities)\b"), _ACTIVATED_AND_MANA),
    (
        re.compile(r"\bcan't pay life to cast spells or to activate abilities that aren't mana"),
        frozenset({"activated"}),
    ),
    (re.compile(r"\benchanted land is an? (?:island|plains|swamp|mountain|forest)\b"), frozenset({"static"})),
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
    for pattern, stopped in _STOPS_WORDS:
        if pattern.search(text):
            found |= stopped
    if any(r.lock == "named" for r in roles) and "unless they're mana abilities" not in text:
        found.add("mana")  # Phyrexian Revoker names a card with no mana exception (Pithing Needle has one)
    return frozenset(found)


def _others(what: str) -> bool:
    """Whether the thing that loses its abilities can be an opponent's ("target creature", not "target creature
    you control" nor "creature card")."""
    return "you control" not in what and not re.search(r"\bcards?\b", what)


# ---- kind: a declared table, first row that applies -----------------------------------------------------------------

_ADDS_MANA = re.compile(r"\badds? (?:[\w'-]+ ){0,4}?(?:mana\b(?! value)|\{)")
_THREAT_TYPES = frozenset({"creature", "planeswalker", "battle"})
_THREAT_SUBTYPES = frozenset({"vehicle", "spacecraft"})  # a creature once crewed or stationed
# Tokens that are no plan of their own: 0/1 Eldrazi Spawn and Scion, made to be sacrificed for mana, and a token
# a pump spell leaves only if its creature dies this turn (Felonious Rage, Turn Inside Out).
_RIDER_TOKENS = re.compile(
    r"\bcreates? [^.]*?\b0/1 colorless eldrazi (?:spawn|scion) creature tokens?\b"
    r"|\bwhen (?:that creature|it) dies this turn, [^.]*"
)
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
    r"|\bany player may have [^.]*\bdeal \d+ damage to them\b"  # a punisher (Book Burning)
)
# "draw a card", "draws two cards", "draw that many cards"; not an opponent's draw, nor "whenever you draw your
# second card" or "if you would draw a card" (what happens on a draw, not a draw).
_DRAWS = re.compile(r"(?<!opponent )(?<!would )(?<!whenever you )\bdraws? (?:[\w-]+ ){0,3}?cards?\b")
_TOP_CARDS = re.compile(
    r"\b(?:look at|looks at|reveal|reveals|exile|exiles) the top (?:[\w-]+ )?cards? of your library"
    r"|\b(?:scry|surveil) (?:\d+|x)\b"  # look at the top cards, keep some
    r"|\bmay reveal cards from the top of (?:your|their) library until\b"  # Oath of Druids
)
_SEARCH = re.compile(r"\bsearch(?:es)? your library(?: and(?:/or)? graveyard)? for (?P<what>[^.]*?)\bcards?\b")
_NONLAND_TYPES = re.compile(r"\b(?:nonland|creature|artifact|enchantment|instant|sorcery|planeswalker)\b")
_LAND_WORDS = re.compile(
    r"\b(?:land|plains|island|swamp|mountain|forest|desert|gate|cave|locus|sphere|lair|town|urza's)s?\b"
)


def _searches_nonland(text: str) -> bool:
    """Searches the library for a card that can be a nonland one (Demonic Tutor, not a fetchland)."""
    for match in _SEARCH.finditer(text):
        what = match.group("what")
        if _NONLAND_TYPES.search(what) or not _LAND_WORDS.search(what):
            return True
    return False


# Keywords whose creature token is only in their reminder text (which the text read here leaves out): living weapon
# (Nettlecyst's Germ), job select (Black Mage's Rod's Hero), For Mirrodin! (a Rebel), amass (an Army).
_TOKEN_KEYWORDS = re.compile(r"^(?:living weapon|job select|for mirrodin!)|\bamass\b", re.M)


def _is_threat(reading: Reading) -> bool:
    facts = reading.facts
    if facts.types & _THREAT_TYPES or facts.subtypes & _THREAT_SUBTYPES:
        return True
    text = _RIDER_TOKENS.sub("", reading.text)
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
    r"\bmay (?:look at and )?play (?:those|that) cards?|\bput that card into your hand|\bmay cast the exiled card\b"
    r"|\bput [^.]*\bfrom among (?:the )?(?:cards )?milled\b[^.]*\binto your hand"
)


def _flows_cards(reading: Reading) -> bool:
    """Draws, digs, tutors or regrows to hand; a tutor or a dig that puts the card onto the battlefield (Natural
    Order, Collected Company: ``cheat_from`` says so) is card flow too."""
    text = reading.text
    return bool(_DRAWS.search(text) or _TOP_CARDS.search(text) or _searches_nonland(text) or _TO_HAND.search(text))


# Interaction no role reads (it answers no card in particular) but that holds opponents back all the same, each
# a phrase of the rules: locks on casting, drawing, attacking and untapping; stun counters (not a plain tap); damage
# prevented or redirected; -N/-N to a group; edicts everyone makes; what is tucked, phased out, discarded,
# exiled from a library or hand; control exchanged; the opponents' triggers stopped.
_HOLDS_BACK = re.compile(
    "|".join(
        (
            r"(?<!\byou )\bcan't cast (?:additional |more than )?[^.]*?\bspells\b",
            r"\bspells with the chosen name can't be cast\b",
            r"\bcan't draw more than one card\b|\bif (?:an opponent|a player) would draw a card except the first\b",
            r"\byour opponents control enter tapped\b",
            r"\bdon't untap during their controllers' untap steps?\b",
            r"\bdoesn't untap during its controller's (?:next )?untap step\b",
            r"\bput (?:a|one|two|three) stun counters? on\b",
            r"\bprevent all (?:combat )?damage (?:that would be dealt (?:this turn|by)|target [\w ]+ would deal)",
            r"\bwould deal damage to you\b[^.]*\bprevent that damage\b",
            r"\bchange the target of target\b|\bmust choose at least one flagbearer\b",
            r"\b(?:creatures|target creature)\b(?:(?!you control)[^.])*? can't attack\b",
            r"\bskips (?:their|his or her) next combat phase\b",
            r"(?<!this )\b(?:creatures?|tokens|it)\b(?:(?!you control)[^.])*?\bgets? -[1-9]/-[1-9]",
            r"-\d/-\d counters? (?:on|among) [^.]*\btarget creatures?\b",
            r"\bsacrifices (?:the rest|all other)\b|\btarget player sacrifices an? (?:attacking|blocking)\b",
            r"\bdestroy (?:the creature with the (?:least|greatest) power|those lands|one of them)\b",
            r"\bdestroy all (?:islands|plains|swamps|mountains|forests)\b",
            r"\beach player returns a creature\b|\breturn all [^.]*\btarget player owns to their hand\b",
            r"\bthe owner of target nonland permanent puts it\b",
            r"\bchoose target [^.]*\. its owner shuffles it into their library\b",
            r"\bput (?:up to one )?target [\w ]*?(?:creature|permanent)\b[^.]* (?:on top of|into) its owner's"
            r" library\b",
            r"\bshuffle each nonland permanent they control into\b",
            r"\b(?:any number of target players each|each opponent) discards?\b",
            r"\bdeals combat damage to a player, that player discards\b",
            r"\btarget player reveals their hand and discards\b|\btarget opponent exiles a card from their hand\b",
            r"\bexile an? [\w ]*card they revealed\b",
            r"\bsearch target player's library for [^.]* and exile\b|\bwhile an opponent is searching their library\b",
            r"\bexchange control of [^.]*\btarget creature an opponent controls\b",
            r"\bdon't cause abilities of permanents your opponents control to trigger\b",
            r"\bcounter that ability unless its controller pays\b|\bits activated abilities can't be activated\b",
            r"\bwhen enchanted creature [^.]*, destroy it\b",
            r"\bwhenever an opponent casts a spell\b[^\n]*\bcounter that spell\b",
            r"\bdeals? damage to any target\b",
            r"\bdamage divided as you choose among (?:one or two|up to \w+) (?:target|targets)\b",
            r"\btarget creature deals \d+ damage to itself\b",
            r"\bloses \d+ life unless that player sacrifices\b",
            r"\byour opponents control lose (?:hexproof|indestructible)\b",
            r"\beach spell that would cost less than \w+ mana to cast costs\b",
            r"\btarget [\w ]*spell, then return it to its owner's hand\b",
            r"\btarget (?:artifact|creature|permanent|nonland permanent)s? phases? out\b",
            r"\bremove all counters from target\b|\btarget opponent loses all counters\b",
            r"\benchanted land is an? (?:island|plains|swamp|mountain|forest)\b",
            r"\bwould enter and it wasn't cast, exile it instead\b",
        )
    )
)
# An upkeep cost given to every artifact (Energy Flux): a quoted ability, read on the whole text.
_GIVES_UPKEEP = re.compile(r"\ball (?:artifacts|creatures|lands) have \"[^\"]*\bsacrifice this\b")
# An ability granted in quotes to one's own permanent (equipped or enchanted, a creature it targets, lands,
# Eldrazi or creature tokens one controls, a token it makes by name): read as the card's own for its kind.
_GRANTED = re.compile(
    r"\b(?:equipped creature|enchanted (?:creature|land|permanent)|target (?:attacking )?creature|it"
    r"|[\w-]+(?: tokens)? you control)\b[^.\"]*?\b(?:has|have|gains?)\b[^\"\n]*?"
    r"\"(?P<ability>[^\"]*)\""
    r"|\btoken named [\w ]+ with \"(?P<named>[^\"]*)\""
)


def _granted_text(facts: CardFacts) -> str:
    """The abilities the card grants in quotes to its controller's permanents, one a line."""
    return "\n".join(m.group("ability") or m.group("named") for m in _GRANTED.finditer(facts.text.lower()))


def _holds_back(reading: Reading) -> bool:
    text = reading.text
    return bool(_HOLDS_BACK.search(text) or _GIVES_UPKEEP.search(reading.facts.text.lower()))


def _grants_interaction(reading: Reading) -> bool:
    granted = reading.granted
    return bool(granted) and bool(roles_of(replace(reading.facts, oracle_text=granted)) or _HOLDS_BACK.search(granted))


# Mana: it adds mana, is pitched for mana, makes a land tap for more ("three times as much"), grants an "Add"
# ability to its controller's permanents (a creature that does is a threat), or untaps a land for it (Arbor Elf).
_MORE_MANA = re.compile(r"\bproduces? (?:twice|three times) as much\b")


def _makes_mana(reading: Reading) -> bool:
    facts = reading.facts
    return bool(
        facts.exiled_for_mana
        or _ADDS_MANA.search(reading.text)
        or ("creature" not in facts.types and _ADDS_MANA.search(reading.granted))  # Goldspan Dragon: a threat
        or _MORE_MANA.search(reading.text)
        or "dork" in reading.casting.fast_mana
    )


# Ramp: lands put onto the battlefield, or played, beside the land drop (one land fetched for another too: Crop
# Rotation). Read after the threat rule: a creature that ramps is a threat (Primeval Titan, Golos).
_PUTS_LANDS = re.compile(r"\bsearch your library for [^.]*?\bland cards?\b[^.]*?\bonto the battlefield\b")


def _ramps(reading: Reading) -> bool:
    return "extra_land" in reading.casting.fast_mana or _PUTS_LANDS.search(reading.text) is not None


@dataclass(frozen=True)
class KindRule:
    """One kind of card and the test that gives it."""

    kind: str
    applies: Callable[[Reading], bool]


KIND_RULES = (
    KindRule("land", lambda reading: reading.facts.is_land),  # the front face's type line
    KindRule("interaction", lambda reading: bool(reading.answer_kinds or reading.stops)),
    KindRule("interaction", _taxes_or_locks),  # interaction by what it does to opponents, answering no card
    KindRule("interaction", _holds_back),
    KindRule("interaction", _grants_interaction),  # Viridian Longbow: "Equipped creature has ..."
    KindRule("mana", _makes_mana),
    KindRule("threat", _is_threat),
    KindRule("mana", _ramps),  # after threat: a creature that ramps is a threat
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
