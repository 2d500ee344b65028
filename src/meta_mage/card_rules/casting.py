"""How a card is cast and what it does with mana and graveyards, read from its rules text.

Seven facts, each a set of words from a declared table (word -> pattern, and for a few words a test of the card's
types or mana cost): what its effect depends on (``cast_condition``: colour spent, an optional cost paid, a cast
trigger, where or whether it was cast), how it is cast for no mana (``free_cast``), what it does to opponents'
graveyards (``graveyard_hate``: a whole graveyard, chosen cards, or a lock while it is out) and with its own
(``graveyard_use``), the mana it makes faster than a land a turn (``fast_mana``), where it puts nonland cards onto
the battlefield from without casting them (``cheat_from``) and how its cost is lowered or replaced (``cost``).
The text read is the card's own, lower case, without reminder text nor abilities in quotes it grants.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from meta_mage.card_rules.facts import COLOUR_NAMES, CardFacts

SPENT = tuple(f"spent:{c}" for c in "WUBRG")
CAST_CONDITIONS = (*SPENT, "kicked", "cast_trigger", "how_cast")
FREE_CASTS = ("pitch", "life", "condition")
GRAVEYARD_HATE = ("all", "some", "ongoing")
GRAVEYARD_USES = ("cast", "reanimate", "regrow", "fuel", "fill")
FAST_MANA = ("ritual", "land", "rock", "dork", "extra_land")
CHEAT_FROM = ("hand", "library", "graveyard", "exile")
COSTS = ("self", "others", "alt")
# Each column's words in the order the table lists them.
COLUMNS: dict[str, tuple[str, ...]] = {
    "cast_condition": CAST_CONDITIONS,
    "free_cast": FREE_CASTS,
    "graveyard_hate": GRAVEYARD_HATE,
    "graveyard_use": GRAVEYARD_USES,
    "fast_mana": FAST_MANA,
    "cheat_from": CHEAT_FROM,
    "cost": COSTS,
}


@dataclass(frozen=True)
class CastingFacts:
    """The seven facts, each a set of the words of its column (empty when none holds)."""

    cast_condition: frozenset[str] = frozenset()
    free_cast: frozenset[str] = frozenset()
    graveyard_hate: frozenset[str] = frozenset()
    graveyard_use: frozenset[str] = frozenset()
    fast_mana: frozenset[str] = frozenset()
    cheat_from: frozenset[str] = frozenset()
    cost: frozenset[str] = frozenset()

    def column(self, name: str) -> frozenset[str]:
        """One column by its name (a key of ``COLUMNS``)."""
        value: frozenset[str] = getattr(self, name)
        return value


@dataclass(frozen=True)
class Sign:
    """One word of a column: the ``pattern`` its text holds (multi-line, lower case) and, where the words alone do
    not decide, a test of the card (``holds``: its types, mana value or mana cost)."""

    word: str
    pattern: re.Pattern[str] | None
    holds: Callable[[CardFacts], bool] = lambda facts: True

    def found(self, facts: CardFacts, text: str) -> bool:
        return self.holds(facts) and (self.pattern is None or self.pattern.search(text) is not None)


def _sign(word: str, *alternatives: str, holds: Callable[[CardFacts], bool] | None = None) -> Sign:
    """A sign whose pattern is any of ``alternatives`` (none: ``holds`` alone decides)."""
    compiled = re.compile("|".join(f"(?:{a})" for a in alternatives), re.M) if alternatives else None
    return Sign(word, compiled, holds) if holds else Sign(word, compiled)


# ---- cast_condition -------------------------------------------------------------------------------------------------

_COLOUR_WORD = {letter: word for word, letter in COLOUR_NAMES.items()}


def _spent(letter: str) -> tuple[str, str]:
    """ "if {R} was spent to cast this spell", "if {R}{R} was spent", adamant "if at least three red mana was spent"."""
    symbol = rf"\{{{letter.lower()}\}}"
    return (
        rf"\b(?:if|unless) (?:at least \w+ )?(?:{symbol})+ (?:was|were) spent",
        rf"\bat least \w+ {_COLOUR_WORD[letter]} mana was spent",
    )


# Optional additional costs whose payment changes what the spell does (kicker, gift, bargain, spree...).
_OPTIONAL_COSTS = (
    r"kicker|multikicker|bargain|entwine|buyback|offspring|casualty|squad|replicate|conspire|spree|tiered|gift \w+"
)
CAST_CONDITION_SIGNS = (
    *(_sign(f"spent:{c}", *_spent(c)) for c in "WUBRG"),
    _sign(
        "kicked",
        rf"^(?:[\w ]+, )*(?:{_OPTIONAL_COSTS})\b",
        r"gift was promised|was (?:kicked|bargained)",
        r"as an additional cost to cast this spell, you may (?![^\n]*costs? \{\d+\} less)",
    ),
    _sign(
        "cast_trigger",
        r"\bwhen(?:ever)? you cast this (?:spell|card|creature)\b",
        r"^(?:[\w ]+, )*(?:cascade|storm|gravestorm|demonstrate|replicate)\b",
    ),
    _sign(
        "how_cast",
        r"\b(?:if|unless) (?:you cast (?:it|this spell)|it (?:was|wasn't) cast(?! this way)|it was evoked)\b",
        r"\b(?:if|unless) (?:(?:it|this creature) escaped|you cast it from)\b",
        r"\bwas cast from\b|\bif (?:it was )?evoked\b|^(?:rebound|cleave)\b",
        r"\bwhen this creature enters from your (?:hand|graveyard)|\bif its \w+ cost was paid",
    ),
)

# ---- free_cast ------------------------------------------------------------------------------------------------------

_RATHER = r"rather than pay (?:this spell's|its) mana cost"
_PHYREXIAN_ONLY = re.compile(r"^(?:\{[wubrg]/p\})+$", re.I)
FREE_CAST_SIGNS = (
    _sign(
        "pitch",
        rf"(?:exile|discard) (?:an?|one|two|three) [^.]*?cards?[^.]*? from your hand [^.]*?{_RATHER}",
        rf"discard [^.]*?cards? {_RATHER}",
        r"^evoke—(?:exile|discard) an? [^.]*?card",
    ),
    _sign("life", rf"you may pay \d+ life {_RATHER}"),
    _sign("life", holds=lambda facts: bool(_PHYREXIAN_ONLY.match((facts.mana_cost or "").split(" // ")[0]))),
    _sign(
        "condition",
        rf"^(?![^.\n]*(?:from your hand|pay \d+ life|pay \{{[1-9x]|discard))[^.\n]*{_RATHER}",
        rf"{_RATHER}, you may",
        r"you may cast (?:this spell|it) without paying its mana cost",
        r"^flashback—(?!\{)|^madness \{0\}",
    ),
)

# ---- graveyard_hate (read with the abilities a land or creature gives itself in quotes: Hive of the Eye Tyrant) -----

_THEIR_GRAVEYARD = (
    r"(?:target player's|each opponent's|that player's|target opponent's|each player's|all|any number of "
    r"target players') graveyards?"
)
GRAVEYARD_HATE_SIGNS = (
    _sign(
        "all",
        rf"exiles? (?:all [\w ]*?cards from )?{_THEIR_GRAVEYARD}",
        r"exile all graveyards|and their graveyard\b|exile [^.]*?all cards [^.]*?from all graveyards",
        r"puts all the cards from their graveyard on the bottom|each player shuffles their hand and graveyard into",
    ),
    _sign(
        "some",
        r"exile (?:up to (?:[\w ]+?) )?target (?:[\w/-]+ )*?cards? from "
        r"(?:a |an opponent's |a single |target player's |defending player's )?graveyards?",
        r"exiles? a card from (?:their|a|an opponent's) graveyard|target card in a graveyard",
        r"(?:choose|exile) (?:an?|one|up to \w+) [^.]*?cards? from (?:their|an opponent's) graveyard",
        r"shuffles up to \w+ target cards from their graveyard|put target card from a graveyard",
        r"search (?:target opponent's|its owner's|target player's|its controller's) graveyard",
        r"cards from that player's hand and graveyard|card in a graveyard[^.]*\.\s*when you do, exile that card",
    ),
    _sign(
        "ongoing",
        r"would be put into (?:an opponent's|a) graveyard from anywhere, (?:instead )?exile",
        r"would die, exile it instead|(?<!that spell )would be put into a graveyard, exile it instead",
        r"cards in graveyards can't|cards in graveyards [^.]*can't enter|can't cast spells from graveyards",
        r"cards in (?:graveyards|your opponents' graveyards) lose all abilities",
        r"creature an opponent controls would die, instead exile",
    ),
)

# ---- graveyard_use --------------------------------------------------------------------------------------------------

_FROM_GRAVEYARD = r"(?:from|of) (?:your|a|their|an opponent's) (?:hand and/or )?graveyards?"
# Permanent cards put onto the battlefield from a graveyard (the cheat leaves out lands: those are extra lands).
_REANIMATE = (
    rf"(?:return|put)s? [^.]*?{_FROM_GRAVEYARD}[^.]*? (?:on)?to the battlefield",
    r"(?:return|put)s? [^.]*?(?:on)?to the battlefield[^.]*? from (?:your|a) graveyard",
    r"^(?:unearth|undying|persist)\b",
    r"put into your graveyard from [^,]*, (?:you may )?(?:put|return) it onto the battlefield",
    r"\bdies, (?:if [^,]*, )?return it to the battlefield|return enchanted creature card to the battlefield",
    r"if this card is in your graveyard, [^\n]*?return (?:this card|it) to the battlefield",
    r"search your library and/or graveyard for [^.]*?onto the battlefield",
    r"card in (?:your|that player's|a) graveyard[^\n]*returns? the [\w ]*card to the battlefield",
    r"cards? from (?:their|your) graveyards?[^.]*? onto the battlefield",
    r"card put into a graveyard this way to the battlefield",
)
# "discard a card" by the card's controller, not an opponent's or a player's discard, nor a payoff for discarding.
_FILL_DISCARD = (
    r"(?<!they )(?<!cycle or )(?<!n't )(?<!ward—)(?<!whenever you )(?<!each )"
    r"\bdiscard (?:a|an|one|two|three|up to \w+|x|that many|any number of) (?:[\w ]*?)cards?\b"
)
_GRANTED_CAST = r"retrace|flashback|escape|harmonize|jump-start"
GRAVEYARD_USE_SIGNS = (
    _sign(
        "cast",
        r"^(?:flashback|escape|retrace|jump-start|aftermath|disturb|harmonize|mayhem)\b",
        r"\bmay cast [^.]*?from (?:your |a |their |an opponent's )?graveyards?",
        r"\byou may cast (?:this card|it|them) from (?:your|a) graveyard",
        r"cast target [^.]*? from that player's graveyard",
        r"play lands? [^.]*?from your graveyard|cast spells from your graveyard",
        rf"cards? in your graveyard (?:has|have|gains?) (?:{_GRANTED_CAST})|\b(?:gains?|has) (?:{_GRANTED_CAST})\b",
        r"cards? [^.]*?(?:in|from) your graveyard[^.]*\.\s*(?:copy it, then )?you may cast (?:that card|it|the copy)",
    ),
    _sign("reanimate", *_REANIMATE),
    _sign(
        "regrow",
        r"(?:return|put)s? [^.]*?(?:from|in) (?:your|a) graveyard (?:to|into|on top of|on the bottom of) "
        r"(?:your|its owner's) (?:hand|library)",
        r"^dredge \d",
        r"(?:each|target) player shuffles (?:up to \w+ target cards from )?their (?:hand and )?graveyard into their",
        r"search your library and/or graveyard for [^.]*?into your hand",
        r"cards? in your graveyard[^.]*\.\s*return (?:it|that card|them) to your hand",
        r"if this card is in your graveyard, [^\n]*?return it to your hand",
        r"shuffle [^.]*? from your graveyard into your library",
    ),
    _sign(
        "fuel",
        r"^(?:[\w ]+, )*(?:delve|scavenge|encore|embalm|eternalize)\b|^escape—|\bforage\b|collect evidence|^craft with",
        r"^(?:threshold|delirium|descend \d+|spell mastery|fathomless descent)\b|\bdescended this turn",
        r"for each [^.]*? in (?:your|each|all) graveyards?|among cards in (?:your|all) graveyards",
        r"number of [^.]*? in (?:your|all) graveyards?|there are [^.]*? in your graveyard",
        r"as a card in your graveyard|cards of your graveyard",
        r"exile (?!that card|all )(?:\w+ )?(?:other )?(?:[\w ]+ )?cards? from your graveyard",
        r"exile [^.]*? and \w+ cards [^.]*?from your graveyard|exile this (?:card|creature) from your graveyard",
    ),
    _sign(
        "fill",
        r"(?<!opponent )(?<!target player )(?<!they )(?<!each )\bmills? (?:\w+|that many) cards?\b",
        r"target player mills [^\n]*?(?:\.\s*draw a card|you (?:draw|return))",
        r"\beach player [^.]*?discards|target player draws [^\n]*?discards?",
        r"\bsurveil \d|^dredge \d|\bconnives?\b|manifest dread|^learn\b|^retrace\b",
        r"(?<!be )\bput (?:that card|the chosen cards|it|them|[^.]*?the rest) into your graveyard",
        r"\bputs? (?:all )?(?:the )?(?:other |rest|those)[^.]*? into (?:your|their) graveyard",
        r"all other cards revealed this way into",
        _FILL_DISCARD,
        r"discard your hand|discard the rest",
    ),
)

# ---- fast_mana ------------------------------------------------------------------------------------------------------

_ADDS = re.compile(r"\badds? (?:[\w'-]+ ){0,4}?(?:mana\b(?! value)|\{)")
_ADD_SYMBOLS = re.compile(r"\badd ((?:\{[^}]+\})+)")
_ADD_WORDS = re.compile(r"\badd (one|two|three|four|five|six|seven) (?:mana|\{)")
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_MANA_SYMBOL = re.compile(r"\{(?:[1-9]\d*|[wubrgcx]|[wubrg]/[wubrgp])\}")  # {0} costs nothing
_ABILITY = re.compile(r"^(?:[^\n:—]*— )?(?P<cost>[^\n:\"]*\{t\}[^\n:\"]*): (?P<effect>[^\n]*)", re.M)
_GROWS = re.compile(r"\badd [^.]*?\b(?:for each|equal to)\b|\badd an amount of")


def _own_text(facts: CardFacts) -> str:
    return facts.own_text.lower()


def _made(effect: str) -> int:
    """The most mana one "Add ..." of ``effect`` makes ("{C}{C}": 2, "six {G}": 6, "three mana": 3)."""
    made = [symbol.count("{") for symbol in _ADD_SYMBOLS.findall(effect)]
    made += [_NUMBERS[word] for word in _ADD_WORDS.findall(effect)]
    return max(made, default=0)


def _ritual(facts: CardFacts) -> bool:
    """A one-shot spell that adds more mana than it costs (Dark Ritual; not Manamorphose), or that makes mana with
    each land or life paid for a turn (High Tide, Channel)."""
    if not facts.types & {"instant", "sorcery"}:
        return False
    text = _own_text(facts)
    if re.search(r"adds an additional \{|pay \d+ life\. if you do, add", text):
        return True
    return _made(text) > facts.mana_value


def _many_mana_land(facts: CardFacts) -> bool:
    """A land with a tap ability that makes more mana than the mana it costs plus one (Ancient Tomb, the karoos,
    Castle Garenbrig's six for four, Nykthos's devotion; not Arena of Glory's {R}{R} for {R})."""
    if not facts.is_land:
        return False
    for ability in _ABILITY.finditer(_own_text(facts)):
        paid = len(_MANA_SYMBOL.findall(ability.group("cost")))
        effect = ability.group("effect")
        if _GROWS.search(effect) or _made(effect) >= paid + 2:
            return True
    return False


def _free_mana(text: str) -> bool:
    """It adds mana without paying mana for it (a filter such as Arcum's Astrolabe's "{1}, {T}: Add" is not fast)."""
    for line in text.split("\n"):
        if "whenever an opponent" in line:  # Waste Not: mana when an opponent discards, not a source of one's own
            continue
        cost, colon, effect = line.partition(":")
        source = effect if colon and "add" not in cost else line
        if _ADDS.search(source) and not (colon and _MANA_SYMBOL.search(cost) and "add" not in cost):
            return True
    return False


def _rock(facts: CardFacts) -> bool:
    """A noncreature, nonland permanent of mana value 2 or less that adds mana (Sol Ring, the Moxen, Petal)."""
    permanent = facts.is_permanent and not facts.types & {"creature", "land"}
    return permanent and facts.mana_value <= 2 and _free_mana(_own_text(facts))


def _dork(facts: CardFacts) -> bool:
    """A creature card (not a land) that adds mana: Llanowar Elves, Burning-Tree Emissary, the Spirit Guides, or
    untaps a land for it (Arbor Elf)."""
    if "creature" not in facts.types or facts.is_land:
        return False
    text = _own_text(facts)
    return _free_mana(text) or re.search(r"^\{t\}: untap target (?:forest|land)", text, re.M) is not None


# Lands put onto the battlefield beside the land drop; one land sacrificed for another is no extra land.
_LAND_CARD = r"\b(?:land|forest|plains|island|swamp|mountain) cards?\b"
_ONE_FOR_ONE = re.compile(
    r"(?<!cycling—)sacrifice (?:a|an|this) [\w ]*?(?:land|forest|plains|island|swamp|mountain|desert)\b|"
    r"sacrifice it\. when you do|"
    r"put into a graveyard from the battlefield"
)
FAST_MANA_SIGNS = (
    _sign("ritual", holds=_ritual),
    _sign("land", holds=_many_mana_land),
    _sign("rock", holds=_rock),
    _sign("dork", holds=_dork),
    _sign(
        "extra_land",
        rf"search your library for [^.]*?{_LAND_CARD}[^.]*?onto the battlefield",
        holds=lambda facts: _ONE_FOR_ONE.search(_own_text(facts)) is None,
    ),
    _sign(
        "extra_land",
        r"put (?:a|all|up to \w+) land cards? [^.]*?onto the battlefield",
        r"play (?:an|two|three) additional lands?|create [^.]*?\bland token",
        r"if it's a land card, put it onto the battlefield|put it onto the battlefield [^.]*?if it's a land card",
        rf"return [^.]*?{_LAND_CARD} from your graveyard to the battlefield",
    ),
    _sign("extra_land", r"begin the game with [^.]* on the battlefield", holds=lambda facts: facts.is_land),
)

# ---- cheat_from -----------------------------------------------------------------------------------------------------

_LANDS = r"(?:land|plains|island|swamp|mountain|forest|basic)"
_ONTO = r"put (?:it|that card|them|those cards) onto the battlefield"
# Lands returned from a graveyard are extra lands; a card that dies and returns transformed may come back as a land.
_LAND_OR_TRANSFORMED = re.compile(
    r"land cards? from (?:your|a) (?:hand and/or )?graveyard (?:on)?to the battlefield|"
    r"dies, return it to the battlefield [^.]*?transformed"
)
_PERMANENT_CARD = r"(?:creature|artifact|enchantment|permanent|nonland)"
CHEAT_FROM_SIGNS = (
    _sign(
        "hand",
        r"^ninjutsu\b|^commander ninjutsu\b|begin the game with it on the battlefield",
        rf"put (?!(?:a|an|up to \w+) {_LANDS} cards?\b)(?!this card)[^.]*? from (?:your|their) hand onto the "
        r"battlefield",
        holds=lambda facts: not facts.is_land,
    ),
    _sign(
        "library",
        rf"search (?:your|target opponent's|target player's) library (?:and/or graveyard )?for "
        rf"(?![^.,]*\b{_LANDS}\b)[^.]*?cards?[^.]*?(?:,? (?:then |and )?|\.\s*(?:[^.]*?, )?){_ONTO}",
        r"reveal an? (?:creature|artifact|permanent)[^.]* card [^.]*?from among them\.\s*you may put it onto the "
        r"battlefield",
        rf"put [^.]*?{_PERMANENT_CARD}[^.]*? cards? [^.]*?from among (?:them|those cards) onto the battlefield",
        r"reveals? cards from the top of [^.]* until [^.]*? (?:creature|artifact|permanent) card\. "
        r"[^.]*?puts? that card onto the battlefield",
    ),
    _sign(
        "graveyard",
        *_REANIMATE,
        r"put into that graveyard this way, [^.]*?put one of them onto the battlefield",
        holds=lambda facts: not _LAND_OR_TRANSFORMED.search(_own_text(facts)),
    ),
    _sign(
        "exile",
        r"put [^.]*?cards? [^.]*?from exile onto the battlefield|put [^.]*?exiled with [^.]*? onto the battlefield",
        r"exiled with [^.]*\.\s*then put those cards onto the battlefield",
        r"if this card is exiled, put it onto the battlefield",
    ),
)

# ---- cost -----------------------------------------------------------------------------------------------------------

_ALT_KEYWORDS = (
    r"evoke|madness|dash|emerge|surge|spectacle|blitz|prowl|ninjutsu|foretell|plot|miracle|warp|mayhem|"
    r"web-slinging|impending \d+—|commander ninjutsu"
)
_SYMBOLS = r"(?:\{[^}]*\})*"
COST_SIGNS = (
    _sign(
        "self",
        r"this spell costs (?:\{[^}]+\})+ less",
        r"^(?:[\w ]+, )*(?:affinity for [\w ]+|convoke|improvise|delve)\b",
    ),
    _sign(
        "others",
        r"\bspells? (?:[^.]*? )?cost (?:\{[^}]+\})+ less to cast|rather than pay the mana cost for a spell",
        r"(?:rather than pay|without paying) its mana cost(?=[^.]*\bspells? you cast)",
        r"spells? you cast (?:have|has) (?:emerge|convoke|improvise|affinity|delve)",
        r"from your hand\. if you do, it becomes plotted",
        r"you may cast a spell from your hand [^.]*?without paying its mana cost",
        r"cast spells [^.]*?without paying their mana costs|(?<!this )spells? [^.]*?rather than pay its mana cost",
    ),
    _sign(
        "alt",
        rf"^(?:[\w ]+, )*(?:{_ALT_KEYWORDS})\s*(?:—\s*)?\{{|^suspend \d+—\{{",
        rf"you may pay {_SYMBOLS}\{{[1-9x][^}}]*\}}{_SYMBOLS} {_RATHER}",
        r"you may pay (?:\{[^}]+\})+ to cast this spell",
    ),
)

SIGNS: dict[str, tuple[Sign, ...]] = {
    "cast_condition": CAST_CONDITION_SIGNS,
    "free_cast": FREE_CAST_SIGNS,
    "graveyard_hate": GRAVEYARD_HATE_SIGNS,
    "graveyard_use": GRAVEYARD_USE_SIGNS,
    "fast_mana": FAST_MANA_SIGNS,
    "cheat_from": CHEAT_FROM_SIGNS,
    "cost": COST_SIGNS,
}


# Columns read with the abilities in quotes: a land or creature that grants itself graveyard hate when animated.
_WHOLE = frozenset({"graveyard_hate"})


@lru_cache(maxsize=8192)
def casting_of(facts: CardFacts) -> CastingFacts:
    """The card's seven facts, each the words of its column's table whose sign its own text shows."""
    own, whole = _own_text(facts), facts.text.lower()
    found = {
        column: frozenset(sign.word for sign in signs if sign.found(facts, whole if column in _WHOLE else own))
        for column, signs in SIGNS.items()
    }
    return CastingFacts(**found)


def puts_into_play_early(casting: CastingFacts) -> bool:
    """Whether the card gets mana or permanents onto the table before the land count says (fast mana, a cheat, or
    a lower cost): a clock by mana value alone is too slow for it."""
    return bool(casting.fast_mana or casting.cheat_from or casting.cost & {"self", "others"})


def uses_graveyard(casting: CastingFacts) -> bool:
    """Whether the card gets value from its own graveyard (casts, returns or counts cards there)."""
    return bool(casting.graveyard_use & {"cast", "reanimate", "regrow", "fuel"})


def fills_graveyard(casting: CastingFacts) -> bool:
    """Whether the card puts its own cards into its graveyard (mill, surveil, looting, discard as a cost)."""
    return "fill" in casting.graveyard_use


def takes_whole_graveyard(casting: CastingFacts) -> bool:
    """Whether the card removes a whole graveyard at once (Bojuka Bog, Relic of Progenitus, Tormod's Crypt): what a
    guide prefers against dredge and reanimator, where one card left behind is enough for them."""
    return "all" in casting.graveyard_hate
