"""Read a card's rules text into roles with filters (``roles_of``): each sentence, without its cast condition
(``phrases.CAST_CONDITIONS``), against the table of effect patterns (``effects.EFFECTS``), whose targets the
phrase parser reads (``phrases.target_filter``); then the graveyard hate its casting facts show.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from meta_mage.card_rules.casting import casting_of
from meta_mage.card_rules.effects import EFFECTS
from meta_mage.card_rules.facts import CardFacts
from meta_mage.card_rules.phrases import condition_of
from meta_mage.card_rules.roles import GraveyardReach, Role


def _sentences(text: str) -> list[str]:
    parts = re.split(r"\n|•|(?<=\.)\s+", text.lower())
    return [half for p in parts if p.strip(" .—") for half in _halves(p.strip(" .—"))]


# Firespout: "deals 3 damage to each creature without flying if {R} was spent to cast this spell and 3 damage to
# each creature with flying if {G} was spent to cast this spell": two effects, each with its own condition.
_TWO_HALVES = re.compile(
    r"^(?P<head>.*?\bdeals )(?P<first>\d+ damage to .+? if .+?) and (?P<second>\d+ damage to .+ if .+)$"
)


def _halves(sentence: str) -> list[str]:
    """A sentence, or its two conditional halves when it holds two damage effects each with its own "if"."""
    found = _TWO_HALVES.match(sentence)
    if found is None or not all(condition_of(found.group(g))[0] for g in ("first", "second")):
        return [sentence]
    return [found.group("head") + found.group("first"), found.group("head") + found.group("second")]


# A graveyard role's words by its reach (the words of ``casting.GRAVEYARD_HATE``), for hate the effect table does not
# word itself.
_HATE_WORDS: dict[GraveyardReach, str] = {
    "all": "exiles a whole graveyard",
    "some": "exiles chosen cards from graveyards",
    "ongoing": "exiles cards as they go to graveyards",
}


_SHUFFLED_BACK = re.compile(r"shuffles (?:their hand and |up to \w+ target cards from )?(?:their )?graveyard into")


def _graveyard_hate(card: CardFacts, found: list[Role]) -> list[Role]:
    """A graveyard role for each reach of the card's graveyard hate (its casting facts) no role of it has yet."""
    have = {role.reach for role in found if role.kind == "graveyard"}
    if _SHUFFLED_BACK.search(card.own_text.lower()):  # Timetwister, Gaea's Blessing: a reset, answering nothing
        return []
    hate = casting_of(card).graveyard_hate
    return [Role("graveyard", words, reach=reach) for reach, words in _HATE_WORDS.items() if reach in hate - have]


@lru_cache(maxsize=8192)  # cards repeat across every pairing of a tool call; CardFacts is frozen
def roles_of(card: CardFacts) -> tuple[Role, ...]:
    """Every role the card's rules text gives it (none for a card that interacts with nothing)."""
    text = card.own_text.lower()
    found: list[Role] = []
    for sentence in _sentences(text):
        condition, sentence = condition_of(sentence)
        for pattern, make in EFFECTS:
            for match in pattern.finditer(sentence):
                found += [replace(role, condition=condition) for role in make(match, text)]
    found += _graveyard_hate(card, found)
    source, spell = frozenset(card.colours), bool(card.types & {"instant", "sorcery"})
    return tuple(dict.fromkeys(replace(role, source=source, spell=spell) for role in found))
