"""What the coach asks of the card rules: every way one card answers another, and a card's roles in words."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from meta_mage.card_rules.facts import CardFacts
from meta_mage.card_rules.filters import Clause
from meta_mage.card_rules.phrases import SUNBURST_CONDITION
from meta_mage.card_rules.reader import roles_of
from meta_mage.card_rules.roles import Role, Verdict, answer


def verdicts(answer_card: CardFacts, target: CardFacts, deck_colours: frozenset[str] | None = None) -> list[Verdict]:
    """How each role of ``answer_card`` meets ``target`` (roles in text order); ``deck_colours``, the colours the
    player's deck makes, resolves a condition on a colour spent (``roles.answer``)."""
    return [answer(role, target, deck_colours) for role in roles_of(answer_card)]


def answered_by(
    answer_card: CardFacts,
    target: CardFacts,
    own_creatures_from: float | None = None,
    colours_available: int | None = None,
    deck_colours: frozenset[str] | None = None,
) -> list[str]:
    """Every way ``answer_card`` deals with ``target`` by the rules, in words (the opponent's choices are not
    answers: an edict or "target opponent discards" only lets them pick what goes).

    ``own_creatures_from``: the lowest mana value among the user's own creatures when the deck relies on
    them. A sweeper that would kill those too only counts when its reach is set when cast (Wrath of the
    Skies, Engineered Explosives) and the target's mana value is below it, so the user's board survives.

    ``colours_available``: how many colours the user's deck makes; a sunburst or converge number (Engineered
    Explosives, Prismatic Ending) reaches that many at most, not five.

    ``deck_colours``: the colours the user's deck makes (letters); a half that needs a colour spent (Firespout's
    "if {R} was spent") counts only when the deck makes it. Without it such a half counts, naming its condition."""
    return list(_ways(answer_card, target, own_creatures_from, colours_available, deck_colours))


@lru_cache(maxsize=65536)  # the same pairs recur across a tool call's opponents and every call on a deck
def _ways(
    answer_card: CardFacts,
    target: CardFacts,
    own_creatures_from: float | None,
    colours_available: int | None,
    deck_colours: frozenset[str] | None,
) -> tuple[str, ...]:
    ways = []
    for role in roles_of(answer_card):
        if colours_available is not None:
            role = within_colours(role, colours_available)
        verdict = answer(role, target, deck_colours)
        if not verdict:
            continue
        words = verdict.words()
        if role.kind == "sweeper" and own_creatures_from is not None and "creature" in role.filter.types():
            chosen = any(c.kind == "number" and c.limit is None for c in role.filter.clauses)
            if not chosen or target.mana_value >= own_creatures_from:
                continue
            words = f"sweeps it away at mana value {target.mana_value:g}, under your own creatures"
        ways.append(words)
    return tuple(dict.fromkeys(ways))


def role_labels(card: CardFacts) -> list[str]:
    """The card's roles in words ("destroys nonartifact creatures", "counters noncreature spells")."""
    return list(dict.fromkeys(role.describe() for role in roles_of(card)))


def within_colours(role: Role, colours: int) -> Role:
    """``role`` with its sunburst or converge number capped at the ``colours`` a deck can spend."""
    clauses = tuple(
        replace(c, raised=min(c.raised or colours, colours)) if _counts_colours(c) else c for c in role.filter.clauses
    )
    return replace(role, filter=replace(role.filter, clauses=clauses))


def _counts_colours(clause: Clause) -> bool:
    return clause.kind == "number" and clause.condition == SUNBURST_CONDITION
