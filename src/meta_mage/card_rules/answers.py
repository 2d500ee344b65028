"""What the coach asks of the card rules: every way one card answers another, and a card's roles in words."""

from __future__ import annotations

from meta_mage.card_rules.facts import CardFacts
from meta_mage.card_rules.reader import roles_of
from meta_mage.card_rules.roles import Verdict, answer


def verdicts(answer_card: CardFacts, target: CardFacts) -> list[Verdict]:
    """How each role of ``answer_card`` meets ``target`` (roles in text order)."""
    return [answer(role, target) for role in roles_of(answer_card)]


def answered_by(answer_card: CardFacts, target: CardFacts, own_creatures_from: float | None = None) -> list[str]:
    """Every way ``answer_card`` deals with ``target`` by the rules, in words (the opponent's choices are not
    answers: an edict or "target opponent discards" only lets them pick what goes).

    ``own_creatures_from``: the lowest mana value among the user's own creatures when the deck relies on
    them. A sweeper that would kill those too only counts when its reach is set when cast (Wrath of the
    Skies, Engineered Explosives) and the target's mana value is below it, so the user's board survives."""
    ways = []
    for role in roles_of(answer_card):
        verdict = answer(role, target)
        if not verdict:
            continue
        words = verdict.words()
        if role.kind == "sweeper" and own_creatures_from is not None and "creature" in role.filter.types():
            chosen = any(c.kind == "number" and c.limit is None for c in role.filter.clauses)
            if not chosen or target.mana_value >= own_creatures_from:
                continue
            words = f"sweeps it away at mana value {target.mana_value:g}, under your own creatures"
        ways.append(words)
    return list(dict.fromkeys(ways))


def role_labels(card: CardFacts) -> list[str]:
    """The card's roles in words ("destroys nonartifact creatures", "counters noncreature spells")."""
    return list(dict.fromkeys(role.describe() for role in roles_of(card)))
