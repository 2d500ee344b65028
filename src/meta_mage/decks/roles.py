"""What a card does to what, read from its rules text: the roles behind "X answers Y".

``roles_of`` reads a card's oracle text into roles (a counterspell and which spells or abilities it
counters, removal and the permanent types, mana values, colours or toughness it can reach, sweepers,
graveyard hate, land hate, ability hate, spell-count limits, discard, lifegain, protection).
``answers`` says whether one role of a card reaches another card, by that card's types, colours, mana
value, toughness and abilities, and says how in words. Nothing is matched by keyword alone: Consign to
Memory counters triggered abilities and colourless spells, so it answers an Ocelot Pride trigger or an
artifact, never an Ephemerate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Literal

from meta_mage.models.cards import Card, mana_colors, mana_value

Kind = Literal[
    "counter",
    "removal",
    "sweeper",
    "graveyard",
    "land",
    "ability",
    "spell_limit",
    "discard",
    "lifegain",
    "protection",
]

PAYABLE_CAP = 6  # the highest mana value a cap set when cast (X, energy, converge) is counted on to reach
COLOURS = {"white": "W", "blue": "U", "black": "B", "red": "R", "green": "G"}
PERMANENT_TYPES = ("creature", "artifact", "enchantment", "planeswalker", "land", "battle")
_REMINDER = re.compile(r"\([^)]*\)")
_COST_WORDS = re.compile(r"^(?:sacrifice|discard|exile|pay|remove|tap|untap|\[|[+−-]\d)", re.I)
_TRIGGERED = re.compile(r"\b(when|whenever|at the beginning of)\b", re.I)
_GRAVEYARD_USE = re.compile(
    r"from (?:your|their) graveyards?|in your graveyard|cards? in (?:your )?graveyards?|\b(flashback|escape|unearth|"
    r"delve|dredge|embalm|eternalize|disturb|retrace|jump-start|aftermath|scavenge|encore)\b|"
    r"mill|return target [^.]*card from",
    re.I,
)
_CASTS_MANY = re.compile(
    r"\b(storm|cascade)\b|second spell|spells? (?:you've|you have) cast this turn|for each (?:other )?spell cast|"
    r"copy it for each spell",
    re.I,
)
_DAMAGES_PLAYERS = re.compile(r"damage to (?:any target|target player|each opponent|target opponent|each player)", re.I)


@dataclass(frozen=True)
class CardFacts:
    """What a role is checked against: a card's types, colours, mana value, toughness and text."""

    name: str
    type_line: str = ""
    oracle_text: str = ""
    mana_cost: str | None = None
    toughness: str | None = None
    power: str | None = None
    cmc: float | None = None

    @cached_property
    def types(self) -> set[str]:
        return {w.lower() for w in self.type_line.split("—")[0].split()}

    @property
    def colours(self) -> set[str]:
        return set(mana_colors(self.mana_cost))

    @property
    def mana_value(self) -> float:
        return self.cmc if self.cmc is not None else mana_value(self.mana_cost)

    @cached_property
    def text(self) -> str:
        return _REMINDER.sub("", self.oracle_text or "")

    @property
    def is_land(self) -> bool:
        return "land" in self.types

    @property
    def is_permanent(self) -> bool:
        return bool(self.types & set(PERMANENT_TYPES))

    @property
    def triggered(self) -> bool:
        return _TRIGGERED.search(self.text) is not None

    @classmethod
    def of(cls, card: Card) -> CardFacts:
        """The facts of a stored card."""
        return cls(
            card.name, card.type_line, card.oracle_text or "", card.mana_cost, card.toughness, card.power, card.cmc
        )

    def _abilities(self) -> list[tuple[str, str]]:
        """(cost, effect) of each activated ability: a line "<cost>: <effect>" whose cost has a mana
        symbol or starts with a cost verb (a channel or equip word before a dash is dropped)."""
        found = []
        for line in self.text.split("\n"):
            cost, colon, effect = line.partition(":")
            cost = cost.split("—")[-1].strip()
            if colon and '"' not in cost and len(cost) < 80 and ("{" in cost or _COST_WORDS.match(cost)):
                found.append((cost, effect.strip()))
        return found

    @property
    def activated(self) -> bool:
        """Activated abilities other than mana abilities (a planeswalker's loyalty abilities count)."""
        if "planeswalker" in self.types:
            return True
        return any(not effect.lower().startswith("add") for _, effect in self._abilities())

    @property
    def any_activated(self) -> bool:
        return "planeswalker" in self.types or bool(self._abilities())

    @property
    def uses_graveyard(self) -> bool:
        return _GRAVEYARD_USE.search(self.text) is not None

    @property
    def casts_many(self) -> bool:
        return _CASTS_MANY.search(self.text) is not None

    @property
    def damages_players(self) -> bool:
        return _DAMAGES_PLAYERS.search(self.text) is not None

    def toughness_value(self) -> int | None:
        """The printed toughness; None for "*" or 0 (a creature that grows as it enters, like Walking Ballista)."""
        value = int(self.toughness) if self.toughness and self.toughness.isdigit() else None
        return value or None


@dataclass(frozen=True)
class Role:
    """One thing a card does, and to what: ``hits`` names spells ("spell", "noncreature spell",
    "instant", "colorless spell", "triggered ability", "activated ability") or permanents ("creature",
    "artifact", "nonland permanent", "nonbasic land", ...)."""

    kind: Kind
    hits: frozenset[str] = frozenset()
    colours: frozenset[str] = frozenset()  # only cards of these colours
    max_mana_value: float | None = None  # a fixed cap
    variable_cap: bool = False  # a cap chosen when it is cast (X, energy, converge, charge counters)
    damage: int | None = None  # damage (or -N/-N) to a creature; None when it destroys or exiles
    boosted_cap: float | None = None  # the mana-value cap with its condition met (revolt: Fatal Push)
    boosted_damage: int | None = None  # the damage with its condition met (delirium: Unholy Heat)
    verb: str = "kills it"  # what it does to what it hits: "destroys it", "exiles it", "sweeps it away"
    their_choice: bool = False  # an edict: the opponent picks what goes
    soft: str = ""  # "unless they pay {3}"
    max_power_or_toughness: int | None = None  # Stern Scolding
    detail: str = field(default="", compare=False)


def _colours_in(phrase: str) -> frozenset[str]:
    return frozenset(code for word, code in COLOURS.items() if re.search(rf"\b{word}\b", phrase))


def _cap(phrase: str) -> tuple[float | None, bool]:
    fixed = re.search(r"mana value (\d+) or less", phrase)
    if fixed:
        return float(fixed.group(1)), False
    if re.search(r"mana value (?:x or less|less than or equal to|equal to)|its mana value is less than", phrase):
        return None, True
    return None, False


_SPELL_KINDS = {"instant", "sorcery", "noncreature", "creature", "colorless", "artifact", "enchantment", "planeswalker"}


def _spell_hits(phrase: str) -> frozenset[str]:
    """ "triggered ability or colorless spell" → {"triggered ability", "colorless spell"}."""
    hits: set[str] = set()
    if "ability" in phrase or "abilities" in phrase:
        hits |= {f"{kind} ability" for kind in ("activated", "triggered") if kind in phrase}
    spell_part = re.sub(r"(?:activated|triggered)(?: or (?:activated|triggered))? abilit(?:y|ies)", " ", phrase)
    if "spell" not in spell_part:
        return frozenset(hits)
    for part in re.split(r",\s*|\s+or\s+", spell_part):
        skip = {"target", "spell", "spells", "a", "an", "legendary"}
        words = [w for w in part.split() if w not in COLOURS and w not in skip]
        head = words[0] if words else ""
        if head in _SPELL_KINDS:
            hits.add(head if head in {"instant", "sorcery"} else f"{head} spell")
        elif "spell" in part:
            hits.add("spell")
    return frozenset(hits)


def _permanent_hits(phrase: str) -> frozenset[str]:
    """ "artifact, enchantment, or nonbasic land" → {"artifact", "enchantment", "nonbasic land"}."""
    hits: set[str] = set()
    if "nonland permanent" in phrase:
        hits.add("nonland permanent")
    if "nonbasic land" in phrase:
        hits.add("nonbasic land")
    for kind in PERMANENT_TYPES:
        if re.search(rf"\b{kind}s?\b", phrase) and not (
            kind == "land" and ("nonbasic land" in hits or "nonland" in phrase)
        ):
            hits.add(kind)
    if not hits and re.search(r"\bpermanents?\b", phrase):
        hits.add("permanent")
    return frozenset(hits)


def _sentences(text: str) -> list[str]:
    parts = re.split(r"\n|•|(?<=\.)\s+", text.lower())
    return [p.strip(" .—") for p in parts if p.strip(" .—")]


@lru_cache(maxsize=8192)  # cards repeat across every pairing of a tool call; CardFacts is frozen
def roles_of(card: CardFacts) -> tuple[Role, ...]:
    """Every role the card's rules text gives it (an empty list for a card that interacts with nothing)."""
    text = card.text.lower()
    found: list[Role] = []
    for sentence in _sentences(text):
        found += _counter_roles(sentence) + _removal_roles(sentence, text) + _other_roles(sentence)
    subtle = re.search(r"target ([^.]*spell[^.]*)\. its owner puts it", text)
    if subtle:
        found.append(Role("counter", _spell_hits(subtle.group(1)), detail="puts a creature or planeswalker spell back"))
    if re.search(r"^lifelink$", text, re.M):
        found.append(Role("lifegain", detail="lifelink"))
    return tuple(dict.fromkeys(found))


def _counter_roles(sentence: str) -> list[Role]:
    roles: list[Role] = []
    for match in re.finditer(r"counter target ([^.]+?)(?: unless (its controller pays \{\d+\}))?(?:$|\.)", sentence):
        phrase = match.group(1)
        colour = re.search(r"if it'?s (white|blue|black|red|green)", phrase)
        colours = frozenset({COLOURS[colour.group(1)]}) if colour else _colours_in(phrase.split(" with ")[0])
        phrase = re.sub(r"\s*if it'?s \w+", "", phrase)
        cap, variable = _cap(phrase)
        pt = re.search(r"power or toughness (\d+) or less", phrase)
        hits = _spell_hits(phrase.split(" with ")[0])
        soft = f"unless they pay {match.group(2).split('pays ')[1]}" if match.group(2) else ""
        named = " and ".join(sorted(hits)).replace("colorless spell", "colourless spell")
        colour_words = " or ".join(w for w, c in COLOURS.items() if c in colours)
        detail = f"counters {colour_words + ' ' if colour_words else ''}{named}" + (f" {soft}" if soft else "")
        roles.append(
            Role(
                "counter",
                hits,
                colours,
                cap,
                variable,
                max_power_or_toughness=int(pt.group(1)) if pt else None,
                soft=soft,
                detail=detail,
            )
        )
    if re.search(r"whenever a player casts a spell with mana value equal to .*counter that spell", sentence):
        roles.append(
            Role("counter", frozenset({"spell"}), variable_cap=True, detail="counters spells of one mana value")
        )
    if re.search(r"if no colored mana was spent to cast it, counter that spell", sentence):
        roles.append(
            Role("counter", frozenset({"colorless spell"}), detail="counters spells cast without coloured mana")
        )
    return roles


def _limit(cap: float | None, variable: bool) -> str:
    if variable:
        return " (mana value set when cast)"
    return f" with mana value {cap:g} or less" if cap is not None else ""


def _removal_roles(sentence: str, text: str) -> list[Role]:
    roles: list[Role] = []
    for match in re.finditer(
        r"(destroy|exile) (?:up to (?:one|two) )?(?:other )?target ([^.]+?)"
        r"(?:$|\.|,? then|,? until| if | its controller)",
        sentence,
    ):
        phrase = match.group(2).replace(" an opponent controls", "").replace(" you don't control", "")
        if re.search(r"you control|card from|card in|graveyard", phrase):
            continue
        tail = sentence[match.end(2) :]
        cap, variable = _cap(phrase + " " + tail)
        boosted = re.search(r"mana value (\d+) or less instead", text)
        colour = re.search(r"if it'?s (white|blue|black|red|green)", tail)
        colours = frozenset({COLOURS[colour.group(1)]}) if colour else _colours_in(phrase)
        hits = _permanent_hits(phrase)
        if hits:
            roles.append(
                Role(
                    "removal",
                    hits,
                    colours,
                    cap,
                    variable,
                    boosted_cap=float(boosted.group(1)) if boosted and cap else None,
                    verb=f"{match.group(1)}s it",
                    detail=f"{match.group(1)}s target {phrase}",
                )
            )
    for match in re.finditer(r"(destroy|exile) (?:all|each) ([^.]+?)(?:$|\.)", sentence):
        phrase = match.group(2)
        if "graveyard" in phrase or "card" in phrase:
            continue
        cap, variable = _cap(phrase)
        hits = _permanent_hits(phrase)
        if hits:
            roles.append(
                Role(
                    "sweeper",
                    hits,
                    _colours_in(phrase),
                    cap,
                    variable,
                    detail=f"{match.group(1)}s every {', '.join(sorted(hits))}" + _limit(cap, variable),
                )
            )
    damage = re.search(
        r"deals (\d+|x|that much) damage (?:divided as you choose among any number of |to )([^.]+)", sentence
    )
    if damage:
        amount = int(damage.group(1)) if damage.group(1).isdigit() else None
        boosted = re.search(r"deals (\d+) damage instead", text)
        phrase = damage.group(2)
        if damage.group(1) == "that much":
            chosen = re.search(r"choose target ([^.]+?)(?:\.|$)", text)
            phrase = chosen.group(1) if chosen else phrase
        kind: Kind = "sweeper" if re.search(r"\beach\b", phrase) else "removal"
        hits = _permanent_hits(phrase) | ({"creature", "planeswalker"} if "any target" in phrase else set())
        if hits & {"creature", "planeswalker"}:
            roles.append(
                Role(
                    kind,
                    frozenset(hits & {"creature", "planeswalker", "battle"}),
                    damage=amount,
                    boosted_damage=int(boosted.group(1)) if boosted else None,
                    variable_cap=amount is None,
                    detail=f"deals {damage.group(1)} damage to {phrase}",
                )
            )
    shrink = re.search(r"(target creature|creatures your opponents control) gets? -(\d+)/-(\d+)", sentence)
    if shrink:
        kind = "sweeper" if shrink.group(1).startswith("creatures") else "removal"
        roles.append(
            Role(
                kind,
                frozenset({"creature"}),
                damage=int(shrink.group(3)),
                detail=f"gives -{shrink.group(2)}/-{shrink.group(3)}",
            )
        )
    edict = re.search(r"(?:each opponent|target player|target opponent) sacrifices an? (nontoken )?([a-z]+)", sentence)
    if edict and edict.group(2) in PERMANENT_TYPES:
        roles.append(
            Role(
                "removal",
                frozenset({edict.group(2)}),
                their_choice=True,
                detail=f"makes them sacrifice a {edict.group(2)}",
            )
        )
    return roles


def _other_roles(sentence: str) -> list[Role]:
    roles: list[Role] = []
    if re.search(
        r"exile (?:target player's|each opponent's|that player's|all|target card from a) graveyards?"
        r"|exile all graveyards|exiles? a card from their graveyard|choose target card in a graveyard"
        r"|would be put into (?:an opponent's|a) graveyard from anywhere, exile it instead|cards in graveyards can't"
        r"|can't cast spells from graveyards"
        r"|creature cards in graveyards [^.]*can't enter|puts all the cards from their graveyard on the bottom",
        sentence,
    ):
        roles.append(Role("graveyard", detail="graveyard hate"))
    if re.search(
        r"search its owner's graveyard, hand, and library for any number of cards with the same name", sentence
    ):
        roles.append(
            Role("graveyard", frozenset({"named card"}), detail="exiles every copy of a card from the graveyard")
        )
    if re.search(
        r"nonbasic lands are \w+|lands your opponents control with the chosen name lose all land types", sentence
    ):
        roles.append(Role("land", frozenset({"nonbasic land"}), detail="turns off nonbasic lands"))
    ability = re.search(
        r"activated abilities of ([^.]+?) can't be activated( unless they're mana abilities)?", sentence
    )
    if ability:
        phrase = ability.group(1)
        hits = frozenset({"named card"}) if "chosen name" in phrase else _permanent_hits(phrase)
        roles.append(
            Role(
                "ability",
                hits,
                soft="mana abilities still work" if ability.group(2) else "",
                detail=f"stops activated abilities of {phrase}",
            )
        )
    if re.search(r"creatures lose all abilities", sentence):
        roles.append(
            Role("ability", frozenset({"creature", "triggered", "static"}), detail="creatures lose all abilities")
        )
    if re.search(
        r"can't cast more than one (?:noncreature )?spell each turn|costs \{1\} more to cast for each other spell"
        r"|can't cast (?:noncreature )?spells this turn",
        sentence,
    ):
        roles.append(Role("spell_limit", detail="limits how many spells they cast in a turn"))
    if re.search(r"reveals (?:their|his or her) hand[^.]*|target (?:player|opponent) discards", sentence):
        roles.append(Role("discard", detail="takes a card from their hand"))
    if re.search(r"you (?:may )?gain (\d+|x) life", sentence) and not re.search(r"its controller gains", sentence):
        roles.append(Role("lifegain", detail="gains life"))
    protection = re.search(r"protection from (white|blue|black|red|green)", sentence)
    if protection:
        roles.append(
            Role(
                "protection",
                colours=frozenset({COLOURS[protection.group(1)]}),
                detail=f"protection from {protection.group(1)}",
            )
        )
    hexproof = re.search(r"hexproof from (white|blue|black|red|green) and from (white|blue|black|red|green)", sentence)
    if hexproof:
        roles.append(
            Role(
                "protection",
                colours=frozenset({COLOURS[hexproof.group(1)], COLOURS[hexproof.group(2)]}),
                detail="hexproof from " + " and ".join(hexproof.groups()),
            )
        )
    return roles


def answers(role: Role, target: CardFacts) -> str | None:
    """How ``role`` deals with ``target``, in words, or None when it cannot by the rules."""
    if (
        role.colours
        and not (role.colours & target.colours)
        and role.kind in {"counter", "removal", "sweeper", "protection"}
    ):
        return None
    if role.kind == "counter":
        return _counters(role, target)
    if role.kind in {"removal", "sweeper"}:
        return _removes(role, target)
    if role.kind == "graveyard":
        return "exiles what it uses from the graveyard" if target.uses_graveyard else None
    if role.kind == "land":
        return "turns it into a basic Mountain" if target.is_land and "basic" not in target.types else None
    if role.kind == "ability":
        return _stops_abilities(role, target)
    if role.kind == "spell_limit":
        return "stops the many-spells turn it needs" if target.casts_many else None
    if role.kind == "discard":
        return "can take it from their hand before it is cast" if not target.is_land else None
    if role.kind == "lifegain":
        return "gains back the life it takes" if target.damages_players else None
    if role.kind == "protection":
        return "its damage and targeting do not reach a protected creature" if role.colours & target.colours else None
    return None


def _counters(role: Role, target: CardFacts) -> str | None:
    how = f" ({role.soft})" if role.soft else ""
    if "triggered ability" in role.hits and target.triggered and target.is_permanent:
        return f"counters its triggered ability{how}"
    if "activated ability" in role.hits and target.activated:
        return f"counters its activated ability{how}"
    if target.is_land:
        return None
    if role.max_mana_value is not None and target.mana_value > role.max_mana_value:
        return None
    if role.max_power_or_toughness is not None:
        sizes = [int(v) for v in (target.power, target.toughness) if v and v.isdigit()]
        if not any(v <= role.max_power_or_toughness for v in sizes):
            return None
    types = target.types
    spell = (
        "spell" in role.hits
        or ("noncreature spell" in role.hits and "creature" not in types)
        or ("creature spell" in role.hits and "creature" in types)
        or ("instant" in role.hits and "instant" in types)
        or ("sorcery" in role.hits and "sorcery" in types)
        or ("artifact spell" in role.hits and "artifact" in types)
        or ("enchantment spell" in role.hits and "enchantment" in types)
        or ("planeswalker spell" in role.hits and "planeswalker" in types)
        or ("colorless spell" in role.hits and not target.colours)
    )
    if not spell:
        return None
    cap = " if its mana value is low enough" if role.variable_cap else ""
    return f"counters it{cap}{how}"


def _removes(role: Role, target: CardFacts) -> str | None:
    types = target.types
    if not target.is_permanent:
        return None
    hit = (
        bool(role.hits & types)
        or ("permanent" in role.hits)
        or ("nonland permanent" in role.hits and not target.is_land)
        or ("nonbasic land" in role.hits and target.is_land and "basic" not in types)
    )
    if not hit:
        return None
    verb = "sweeps it away" if role.kind == "sweeper" else role.verb
    if role.their_choice:
        return "makes them sacrifice one (their choice)"
    if role.max_mana_value is not None and target.mana_value > role.max_mana_value:
        if role.boosted_cap and target.mana_value <= role.boosted_cap:
            return f"{verb} once its condition is met (mana value {target.mana_value:g})"
        return None
    if role.damage is not None and "creature" in types:
        toughness = target.toughness_value()
        if toughness is not None and toughness > role.damage:
            if role.boosted_damage and toughness <= role.boosted_damage:
                return f"{verb} only with its bigger damage ({role.boosted_damage} against toughness {toughness})"
            return None
        if toughness is None:
            return f"{verb} if its toughness is {role.damage} or less (it varies)"
        return f"{verb} ({role.damage} damage against toughness {toughness})"
    if role.variable_cap:
        if target.mana_value > PAYABLE_CAP:  # X = 12 for a domain-discounted Scion of Draco is no plan
            return None
        return f"{verb} if enough is paid (mana value {target.mana_value:g})"
    return verb


def _stops_abilities(role: Role, target: CardFacts) -> str | None:
    if "named card" in role.hits:
        return "names it and shuts off its activated abilities" if target.activated and target.is_permanent else None
    if "triggered" in role.hits:  # creatures lose all abilities
        return (
            "switches off its abilities"
            if "creature" in target.types and (target.triggered or target.activated)
            else None
        )
    if role.hits & target.types and target.any_activated:
        return "stops its activated abilities"
    return None


def answered_by(answer: CardFacts, target: CardFacts, own_creatures_from: float | None = None) -> list[str]:
    """Every way ``answer`` deals with ``target`` (roles in text order, one line each).

    ``own_creatures_from``: the lowest mana value among the user's own creatures when the deck relies on
    them. A sweeper that would kill those too only counts when its mana value is chosen (Wrath of the
    Skies, Meltdown) and the target's is below it, so the user's board survives."""
    ways = []
    for role in roles_of(answer):
        how = answers(role, target)
        if how and role.kind == "sweeper" and own_creatures_from is not None and "creature" in role.hits:
            if not role.variable_cap or target.mana_value >= own_creatures_from:
                continue
            how = f"sweeps it away at mana value {target.mana_value:g}, under your own creatures"
        if how:
            ways.append(how)
    return list(dict.fromkeys(ways))


def role_labels(card: CardFacts) -> list[str]:
    """The card's roles in a few words each ("counters triggered ability and colorless spell")."""
    return list(dict.fromkeys(role.detail or role.kind for role in roles_of(card)))
