"""The effects a sentence of rules text can hold: ``EFFECTS`` pairs each effect pattern ("destroy target X",
"counter target X unless ...", "deals N damage to X", "target opponent sacrifices a X", "you choose a X card
from it", the static locks) with the maker of the role it gives."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from meta_mage.card_rules.filters import Clause, Filter
from meta_mage.card_rules.phrases import COLOURS, raising_condition, target_filter
from meta_mage.card_rules.roles import PAYABLE_CAP, Amount, Role

Maker = Callable[[re.Match[str], str], list[Role]]

_HOW_MANY = r"(?:up to (?:one|two|three) |one |two |three |x |any number of )?(?:other |another )?"
_TARGET_END = r"(?:$|\.|,? then|,? until| its controller)"


def _counter(match: re.Match[str], text: str) -> list[Role]:
    phrase = match.group(1)
    abilities = frozenset(k for k in ("activated", "triggered") if re.search(rf"{k}(?: or \w+)? abilit", phrase))
    spells = re.sub(r"(?:activated|triggered)(?: or (?:activated|triggered))? abilit(?:y|ies)(?: or)?", " ", phrase)
    has_spell = "spell" in spells
    soft = f"unless they pay {match.group(2)}" if match.group(2) else ""
    spell_filter = target_filter(spells.replace("spell", " ").replace("permanent", " "), "spell", text)
    if not has_spell:
        spell_filter = Filter((), "ability")
    return [Role("counter", "counters", spell_filter, abilities=abilities, soft=soft)]


def _targeted(effect: str) -> Maker:
    def make(match: re.Match[str], text: str) -> list[Role]:
        phrase = match.group(1)
        if _BLINK.match(match.string, match.end(1)):  # Flicker of Fate: it comes back at once
            return []
        head = re.split(r" with | if | that", phrase)[0]
        if re.search(r"you (?:control|own)|\bcards?\b|graveyard", head):
            return []
        roles = []
        names_spell = re.search(r"\bspells?\b", re.split(r" if | with | that", phrase)[0]) is not None
        phrase = phrase.replace("cast this spell", "cast it")
        target = target_filter(phrase.replace("spell or ", "").replace(" or spell", ""), "permanent", text)
        if not names_spell or "permanent" in phrase:
            roles.append(Role("removal", effect, target))
        if names_spell:
            spell = target_filter(phrase.replace("permanent", " ").replace("spell", " "), "spell", text)
            roles.append(Role("counter", effect, spell))
        return roles

    return make


_BLINK = re.compile(r",? then return (?:it|that card|them|those cards) to the battlefield")


def _steal(match: re.Match[str], text: str) -> list[Role]:
    """ "Gain control of target artifact" (Dack Fayden), "... noncreature spell" (Commandeer); not for a turn only
    (Vengeful Possession's is a steal to attack with)."""
    if "until end of turn" in match.group(0):
        return []
    return _targeted("gains control of")(match, text)


def _owner_puts_it(match: re.Match[str], text: str) -> list[Role]:
    """Aether Gust: "Choose target spell or permanent that's red or green. Its owner puts it on the top or
    bottom of their library." (the effect is the next sentence)."""
    if "its owner puts it on" not in text:
        return []
    return _targeted("puts {} on the top or bottom of their library")(match, text)


def _sweep(effect: str) -> Maker:
    def make(match: re.Match[str], text: str) -> list[Role]:
        phrase = match.group(1)
        if "graveyard" in phrase or re.search(r"\bcards?\b", phrase) or "you control" in phrase:
            return []
        target = target_filter(phrase, "permanent", text)
        if not target.types() and "permanent" not in phrase:
            return []
        return [Role("sweeper", effect, target)]

    return make


def _damage(match: re.Match[str], text: str) -> list[Role]:
    """ "deals 3 damage to any target", "deals that much damage to any other target" (Screaming Nemesis), "deals
    damage equal to ... to any target" (Goblin Charbelcher: X), "deals damage to target creature equal to" (Skred)."""
    amount_word, phrase = match.group("amount") or "x", match.group("what")
    if _AT_A_PLAYER.match(phrase):  # "to target opponent for each creature card in your graveyard" (Lotleth Giant)
        return []
    if amount_word == "that much":
        chosen = re.search(r"choose target ([^.]+?)(?:\.|$)", text)
        phrase = chosen.group(1) if chosen else phrase
    if "you control" in re.split(r",| and | where ", phrase)[0]:  # its own creatures are no answer
        return []
    phrase = _ANY_TARGET.sub("creature or planeswalker", phrase)
    target = target_filter(phrase, "permanent", text)
    reached = target.types() & {"creature", "planeswalker", "battle"}
    if not reached:
        return []
    if target.types() - reached:
        kept = tuple(c for c in target.clauses if c.kind != "type")
        target = replace(target, clauses=(*kept, Clause("type", frozenset(reached))))
    amount = _amount(amount_word, text)
    kind = "sweeper" if re.search(r"\beach\b", match.group("what")) else "removal"
    return [Role(kind, "deals damage to", target, amount)]  # type: ignore[arg-type]


_ANY_TARGET = re.compile(r"\bany (?:other )?target\b")
_AT_A_PLAYER = re.compile(r"(?:target|each) (?:opponent|player)\b(?! or| and)")


def _amount(word: str, text: str) -> Amount:
    """How much damage: the printed number, X, or more with a condition (kicker, delirium, bargain), with
    flashback (cast twice), or pinged again and again (Walking Ballista: X counters, X at most 3)."""
    n = int(word) if word.isdigit() else None
    raised = re.search(r"deals (\d+) damage instead|instead (?:it )?deals (\d+) damage", text)
    if raised:
        return Amount(n, int(raised.group(1) or raised.group(2)), raising_condition(text))
    if n is not None and re.search(r"remove a \+1/\+1 counter from [^:]*: it deals 1 damage", text):
        return Amount(n, PAYABLE_CAP // 2, "with X counters, one ping each")
    if n is not None and "flashback" in text:
        return Amount(n, 2 * n, "cast again with flashback")
    return Amount(n)


def _shrink(match: re.Match[str], text: str) -> list[Role]:
    """-N/-N, or +N/-N (Flowstone Infusion: the toughness it loses is what kills)."""
    if match.group(4) == "0":  # "-2/-0", "-1/-0" (Animate Dead): a toughness it keeps kills nothing
        return []
    sweeping = not match.group(1).startswith(("target", "enchanted"))  # an Aura's -N/-N is on one creature
    target = Filter((Clause("type", frozenset({"creature"})),))
    size = int(match.group(4)) if match.group(4).isdigit() else None
    raised = re.search(r"gets -\d+/-(\d+)(?: until end of turn)? instead", text)
    amount = Amount(size, int(raised.group(1)), raising_condition(text)) if raised else Amount(size)
    effect = "gives -N/-N to" if match.group(2) == "-" else f"gives +{match.group(3)}/-N to"
    return [Role("sweeper" if sweeping else "removal", effect, target, amount)]


def _tap_and_stun(match: re.Match[str], text: str) -> list[Role]:
    """Kaito, Bane of Nightmares: "Tap target creature. Put two stun counters on it." (kept tapped for turns)."""
    stun = re.search(r"put (\w+) stun counters? on (?:it|them)", text)
    if stun is None or "you control" in match.group(1):
        return []
    target = target_filter(match.group(1), "permanent", text)
    counters = "a stun counter" if stun.group(1) in ("a", "one") else f"{stun.group(1)} stun counters"
    return [Role("removal", f"taps {{}} and puts {counters} on them", target)]


def _sacrifice_all(match: re.Match[str], text: str) -> list[Role]:
    """ "each player ... sacrifices all creatures they control" (Living End), "... all permanents they control that
    are one or more colors" (All Is Dust): a sweeper no indestructible creature survives."""
    if "chooses" in match.group(0):  # Slaughter the Strong: each keeps what it chooses
        return []
    phrase = match.group(1) + (" that's one or more colors" if match.group(2) else "")
    target = target_filter(phrase, "permanent", text)
    if not target.types() and "permanent" not in phrase:
        return []
    return [Role("sweeper", "makes them sacrifice", target)]


def _annihilator(match: re.Match[str], text: str) -> list[Role]:
    """ "Annihilator N": whenever it attacks, the defending player sacrifices N permanents (their choice)."""
    return [Role("edict", f"makes them sacrifice {match.group(1)} of their", Filter(), chooser="them")]


def _cannot_be_cast(match: re.Match[str], text: str) -> list[Role]:
    """Gaddock Teeg: "Noncreature spells with mana value 4 or greater can't be cast", "Noncreature spells with {X}
    in their mana costs can't be cast"."""
    phrase = match.group(1)
    x_cost = re.search(r"with \{x\} in their mana costs?", phrase)
    target = target_filter(phrase[: x_cost.start()] if x_cost else phrase, "spell", text)
    if x_cost:
        target = replace(target, clauses=(*target.clauses, Clause("property", frozenset({"x cost"}))))
    return [Role("spell_limit", "stops {} being cast", target)] if target.clauses else []


def _hurts_itself(match: re.Match[str], text: str) -> list[Role]:
    target = Filter((Clause("type", frozenset({"creature"})), Clause("property", frozenset({"hurts itself"}))))
    return [Role("removal", "makes it deal damage to itself:", target)]


def _edict(match: re.Match[str], text: str) -> list[Role]:
    phrase = match.group(1)
    repeat = re.search(r"repeat this process for (?:an? )?([\w ,]+?)(?:\.|$)", text)
    if repeat:
        phrase += " or " + repeat.group(1).replace(" and ", " or ")
    target = target_filter(phrase, "permanent", text)
    target = replace(target, clauses=tuple(c for c in target.clauses if c.kind != "subtype"))  # "creature or Vehicle"
    if not target.types() and "permanent" not in phrase:
        return []
    return [Role("edict", "makes them sacrifice one of their", target, chooser="them")]


def _you_choose(match: re.Match[str], text: str) -> list[Role]:
    tail = re.split(r" until | then |, ", match.group(2))[0]  # "... until this creature leaves" is not the filter
    return [Role("discard", "takes", target_filter(match.group(1) + tail, "card", text))]


def _they_discard(match: re.Match[str], text: str) -> list[Role]:
    return [Role("discard", "makes them discard", Filter((), "card"), chooser="them")]


def _lock(lock: str, effect: str) -> Maker:
    def make(match: re.Match[str], text: str) -> list[Role]:
        target = target_filter(match.group(1), "permanent", text) if match.groups() else Filter()
        return [Role("ability", effect, target, lock=lock)]  # type: ignore[arg-type]

    return make


def _always(role: Role) -> Maker:
    """A pattern whose role does not depend on the words it matched."""
    return lambda match, text: [role]


def _counter_of(clause: Clause) -> Maker:
    return _always(Role("counter", "counters", Filter((clause,), "spell")))


def _protection(match: re.Match[str], text: str) -> list[Role]:
    colours = frozenset(COLOURS[w] for w in match.groups() if w)
    return [Role("protection", f"protection from {' and '.join(w for w in match.groups() if w)}", colours=colours)]


EFFECTS: tuple[tuple[re.Pattern[str], Maker], ...] = tuple(
    (re.compile(pattern), maker)
    for pattern, maker in (
        (r"counter (?:up to one )?target ([^.]+?)(?: unless its controller pays (\{\d+\}))?(?:$|\.)", _counter),
        (
            rf"destroy {_HOW_MANY}target ([^.]+?){_TARGET_END}",
            _targeted("destroys"),
        ),
        (
            rf"exile {_HOW_MANY}target ([^.]+?){_TARGET_END}",
            _targeted("exiles"),
        ),
        (
            rf"return {_HOW_MANY}target ([^.]+?) to (?:its|their) owner(?:'s|s') hands?",
            _targeted("returns to hand"),
        ),
        (
            r"put target ([^.]+?) on the (?:top|bottom)[^.]*library",
            _targeted("puts {} on the top or bottom of their library"),
        ),
        (r"choose (?:up to one )?target ([^.]+?)$", _owner_puts_it),
        (r"destroy (?:all|each) ([^.]+?)(?:$|\.)", _sweep("destroys")),
        (r"exile (?:all|each) ([^.]+?)(?:$|\.| until)", _sweep("exiles")),
        (r"return (?:all|each) ([^.]+?) to (?:its|their) owner(?:'s|s'|s)? hands?", _sweep("returns to hand")),
        (
            r"deals (?P<amount>\d+|x|that much) damage (?:divided as you choose among any number of |to )"
            r"(?P<what>[^.]+)",
            _damage,
        ),
        (r"deals damage equal to [^.]*? to (?P<what>any (?:other )?target|[^.]*?\btarget [^.]+)(?P<amount>)", _damage),
        (r"deals damage to (?P<what>[^.]*?\btarget [^.]+?) equal to (?P<amount>)", _damage),
        (
            r"(target creature(?: an opponent controls| you don't control)?|creatures your opponents control"
            r"|all other creatures|all creatures|each creature|each other creature|enchanted creature"
            r"|creatures target player controls|creatures you don't control) gets? ([+-])(\d+|x)/-(\d+|x)",
            _shrink,
        ),
        (r"\btap (?:up to (?:one|two) )?target ([^.]+?)$", _tap_and_stun),
        (r"\bgain control of target ([^.]+?)(?: until end of turn)?(?:$|\.|,| for as long)", _steal),
        (r"\bfights (?:up to one )?target ([^.]+?)(?:$|\.|,? if)", _targeted("fights")),
        (
            r"enchanted (creature|permanent) can't attack or block",
            _always(
                Role("removal", "stops attacking and blocking of", Filter((Clause("type", frozenset({"creature"})),)))
            ),
        ),
        (
            r"put all ([^.]+?) on the bottom of their owners' libraries",
            _sweep("puts all {} on the bottom of their library"),
        ),
        (
            r"(?:each player|each opponent|target player|target opponent) (?:[^.]*?, then )?sacrifices all "
            r"(?:other )?([^.,]+?) they control( that are one or more colou?rs)?",
            _sacrifice_all,
        ),
        (r"\bannihilator (\d+)", _annihilator),
        (r"^((?:\w+ )?spells(?: with (?![^.]*chosen)[^.]+?)?) can't be cast$", _cannot_be_cast),
        (
            r"(?:each opponent|target player|target opponent|each player) sacrifices (?:an?|two|three) "
            r"((?:non\w+ )?\w+(?: or \w+)?)",
            _edict,
        ),
        (r"you (?:choose|may (?:exile|choose)) an? ([^.]+?) card from it([^.]*)", _you_choose),
        (r"(?:target|each) (?:player|opponent) (?:[^.]*?, )?discards (?:a|two|one) cards?", _they_discard),
        (r"target opponent exiles an? ([\w ]+?) they control", _edict),
        (r"target creature deals damage to itself equal to its power", _hurts_itself),
        (r"put target ([^.]+?) into its owner's library", _targeted("puts {} into their library")),
        (
            r"shuffle [^.]*?target ([^.]+?) into (?:its|their) owners?'? librar",
            _targeted("shuffles {} into their library"),
        ),
        (
            r"activated abilities of (?!sources)([^.]+?) can't be activated(?! unless)",
            _lock("activated", "stops activated abilities of"),
        ),
        (
            r"activated abilities of (?!sources)([^.]*?) can't be activated unless they're mana abilities",
            _lock("activated nonmana", "stops activated abilities of"),
        ),
        (
            r"activated abilities of sources with the chosen name can't be activated",
            _lock("named", "names a card and stops its activated abilities"),
        ),
        (
            r"creatures entering (?:the battlefield )?(?:don't|do not) cause abilities to trigger",
            _lock("enters", "stops creatures' enters triggers"),
        ),
        (
            r"creatures entering (?:the battlefield )?or dying (?:don't|do not) cause abilities to trigger",
            _lock("enters or dies", "stops creatures' enters and dies triggers"),
        ),
        (r"creatures lose all abilities", _lock("all", "makes creatures lose all abilities")),
        (r"enchanted creature [^.]*loses all abilities", _lock("all", "makes a creature lose all abilities")),
        (
            r"target player reveals their hand and discards all cards with that name",
            _always(Role("discard", "takes every copy of a named", target_filter("nonland", "card"))),
        ),
        (
            r"counter that spell unless that player pays (\{\d+\})",
            lambda m, t: [Role("counter", "counters", Filter((), "spell"), soft=f"unless they pay {m.group(1)}")],
        ),
        (
            r"your opponents can't cast spells during your turn",
            _lock("your turn", "stops their instants and flash spells on your turn"),
        ),
        (
            r"if a land is tapped for two or more mana, it produces \{c\}",
            _lock("many mana", "makes lands that tap for two or more mana make {C}"),
        ),
        (
            r"nonbasic lands are \w+|lands your opponents control with the chosen name lose all land types",
            _always(Role("land", "turns nonbasic lands into basics")),
        ),
        (
            r"exile (?:target player's|each opponent's|that player's|all) graveyards?|exile all graveyards"
            r"|puts all the cards from their graveyard on the bottom|exile any number of target players' graveyards"
            r"|and their graveyard$",
            _always(Role("graveyard", "exiles a whole graveyard", reach="all")),
        ),
        (
            r"exile target card from a graveyard|exiles? a card from their graveyard"
            r"|exile (?:up to (?:one|two) )?target cards? from (?:a (?:single )?|an opponent's )?graveyards?"
            r"|exile (?:up to one )?target creature card from a graveyard",
            _always(Role("graveyard", "exiles chosen cards from graveyards", reach="some")),
        ),
        (
            r"would be put into (?:an opponent's|a) graveyard from anywhere, exile it instead"
            r"|cards in graveyards can't",
            _always(Role("graveyard", "exiles cards as they go to graveyards", reach="ongoing")),
        ),
        (
            r"search its owner's graveyard, hand, and library for (?:any number of|all) cards"
            r" with th(?:e same|at) name",
            _always(
                Role("graveyard", "exiles every copy of a card from their graveyard, hand and library", reach="some")
            ),
        ),
        (
            r"creature cards in graveyards [^.]*can't enter|can't cast spells from graveyards",
            _always(
                Role(
                    "graveyard",
                    "stops casting from and returning from graveyards",
                    lock="graveyard cast",
                    reach="ongoing",
                )
            ),
        ),
        (
            r"if a nontoken creature would enter and it wasn't cast, exile it instead",
            _lock("uncast creatures", "exiles creatures that enter without being cast"),
        ),
        (
            r"if no mana was spent to cast it, counter that spell",
            _counter_of(Clause("number", limit=0, compare="exactly")),
        ),
        (
            r"can't cast more than one (?:noncreature )?spell each turn|costs \{1\} more to cast for each other spell"
            r"|can't cast (?:noncreature )?spells this turn",
            _always(Role("spell_limit", "limits how many spells they cast in a turn")),
        ),
        (
            r"whenever a player casts a spell with mana value equal to .*counter that spell",
            _counter_of(Clause("number", raised=3, condition="with that many counters")),
        ),
        (
            r"if no colou?red mana was spent to cast it, counter that spell",
            _counter_of(Clause("colourless")),
        ),
        (r"you (?:may )?gain (?:\d+|x) life", _always(Role("lifegain", "gains life"))),
        (r"protection from (white|blue|black|red|green)(?: and from (white|blue|black|red|green))?", _protection),
        (r"hexproof from (white|blue|black|red|green) and from (white|blue|black|red|green)", _protection),
    )
)
