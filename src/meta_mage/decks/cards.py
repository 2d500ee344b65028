"""A player's list and an opponent's key cards as the card rules read them."""

from __future__ import annotations

import re

from meta_mage.card_rules.facts import CardFacts
from meta_mage.card_rules.reader import roles_of
from meta_mage.models.cards import card_key, mana_colors
from meta_mage.models.decks import CardDetail, KeyCard

OWN_CREATURES = 12  # a deck with this many creatures or more loses them to its own sweeper
# a cost reduction or an alternative cost (Force of Will, Daze) that brings a card down sooner than its mana
# value says
COST_REDUCTION = re.compile(
    r"\b(delve|improvise|affinity for \w+|convoke|emerge|evoke|warp|costs? \{\d+\} less"
    r"|rather than pay this spell's mana cost)\b",
    re.I,
)


def facts_of_detail(card: CardDetail | KeyCard) -> CardFacts:
    """The card rules' view of a card of the player's list or an opponent's key card."""
    return CardFacts(
        card.name,
        card.type_line or "",
        card.oracle_text or "",
        card.mana_cost,
        card.toughness,
        card.power,
        card.cmc if isinstance(card, CardDetail) else None,
        card.loyalty if isinstance(card, KeyCard) else None,
        tuple(card.colors) if card.colors is not None else None,
    )


facts_of_key = facts_of_detail


def is_land(card: CardDetail) -> bool:
    return "Land" in (card.type_line or "")


def is_creature(card: CardDetail) -> bool:
    return "Creature" in (card.type_line or "")


def section_of(cards: list[CardDetail], section: str) -> dict[str, CardDetail]:
    """One section of a list by card key, the copies of a card named on several lines added up."""
    out: dict[str, CardDetail] = {}
    for card in cards:
        if card.section != section:
            continue
        key = card_key(card.name)
        if key in out:
            out[key] = out[key].model_copy(update={"quantity": out[key].quantity + card.quantity})
        else:
            out[key] = card
    return out


def own_creatures_from(main: list[CardDetail]) -> float | None:
    """When the deck plays 12 or more creatures, the mana value from which a sweeper whose reach is chosen when
    cast (Wrath of the Skies, Engineered Explosives) would kill half of them by copies: set below it, the
    sweeper costs the deck a Ragavan or two and keeps its board (Jeskai Blink's Solitudes and Quantum
    Riddlers); else None."""
    creatures = sorted((facts_of_detail(c).mana_value, c.quantity) for c in main if is_creature(c))
    total = sum(n for _, n in creatures)
    if total < OWN_CREATURES:
        return None
    killed = 0
    for value, copies in creatures:
        killed += copies
        if 2 * killed >= total:
            return value
    return None


def deck_colours(main: list[CardDetail]) -> set[str]:
    """The colours a deck spends: those its nonland spells' mana costs name (a Devoid spell's too)."""
    return {c for card in main if not is_land(card) for c in mana_colors(card.mana_cost)}


def answer_kinds(card: CardFacts) -> set[str]:
    """The kinds of the card's roles that answer something of theirs (life gain and protection do not)."""
    kinds: set[str] = {r.kind for r in roles_of(card)}
    return kinds - {"lifegain", "protection"}


def mana_curve(main: list[CardDetail]) -> float:
    """The deck's average nonland mana value (0 for a deck of lands)."""
    spells = [(c.cmc or 0, c.quantity) for c in main if not is_land(c) and not c.unknown]
    return sum(v * n for v, n in spells) / max(1, sum(n for _, n in spells))


# a card that fetches from the sideboard ("You may reveal a sorcery card you own from outside the game"): the words
# between the article and "card" say which cards it can fetch (none: any card)
_WISH = re.compile(r"\b(?:reveal|play|put) an? ((?:[a-z-]+ )*?)card you own from outside the game", re.I)
COLOUR_LETTERS = {"white": "W", "blue": "U", "black": "B", "red": "R", "green": "G"}


def of_kind(words: str, card: CardFacts) -> bool:
    """Whether ``card`` is of the kind the words name: "" is any card; "creature or land" either; "legendary
    creature" both; "nonlegendary creature", "noncreature" a negated word."""

    def named(word: str) -> bool:
        if word.startswith("non") and len(word) > 3:
            return not named(word.removeprefix("non").lstrip("-"))
        if word == "multicolored":
            return len(card.colours) > 1
        if word in COLOUR_LETTERS:
            return COLOUR_LETTERS[word] in card.colours
        return word in card.types or word in card.subtypes

    alternatives = [part.split() for part in words.lower().split(" or ")]
    return any(all(named(word) for word in part) for part in alternatives if part) or not words.strip()


def wished_by(card: CardFacts, main: list[CardFacts]) -> str:
    """The main-deck card that can fetch ``card`` from the sideboard (Wish, Burning Wish, Karn, the Great
    Creator), or "": such a sideboard card is part of the deck's plan, not a card waiting for a matchup."""
    for wish in main:
        match = _WISH.search(wish.text)
        if match and of_kind(match.group(1), card):
            return wish.name
    return ""


# a nonland card that makes or fetches mana: a mana rock or dork, a land aura (Utopia Sprawl), an extra land drop, a
# land put onto the battlefield from the library
_RAMPS = re.compile(
    r"\badds? (?:an additional |one |two |three )?(?:\{|mana\b|one mana)|\bplay an additional land"
    r"|search your library for [^.]*\blands? cards?[^.]*onto the battlefield",
    re.I,
)


def ramps(card: CardFacts) -> bool:
    """Whether a nonland card makes mana or puts lands into play (Talisman of Impulse, Utopia Sprawl, Icetill
    Explorer): in a ramp deck, its engine."""
    return not card.is_land and _RAMPS.search(card.text) is not None


# a card that puts another onto the battlefield without casting it: "return target Vehicle card from your graveyard
# to the battlefield" (Greasefang), "put target creature card from a graveyard onto the battlefield" (Reanimate)
_PUTS_IN = re.compile(
    r"\b(?:return|put)s? (?:target |a |an |up to one )?((?:[\w-]+ (?:or )?)*?)card "
    r"(?:with mana value (\d+) or less )?(?:with [^.]*? )?from "
    r"(?:your|a) (?:graveyard|hand) (?:to|onto) the battlefield",
    re.I,
)


def put_in_by(card: CardFacts, theirs: list[CardFacts]) -> CardFacts | None:
    """The card among ``theirs`` that puts ``card`` onto the battlefield without casting it (Greasefang, Okiba
    Boss for Parhelion II; Goryo's Vengeance for Griselbrand), or None."""
    for cheat in theirs:
        match = _PUTS_IN.search(cheat.text) if cheat.name != card.name else None
        fits = match is not None and (match.group(2) is None or card.mana_value <= int(match.group(2)))
        if match and fits and match.group(1).strip() and of_kind(match.group(1), card):
            return cheat
    return None
