"""One deck against one opponent as a sideboard guide reads it (``GuideCase``), and what a card's answers are
worth in that matchup (``worth``): shared by what comes in (``decks.guide``) and what goes out
(``decks.outs``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from meta_mage.card_rules.facts import CardFacts
from meta_mage.decks.cards import COLOUR_LETTERS, facts_of_detail
from meta_mage.decks.evidence import ArchetypeEvidence
from meta_mage.decks.matchup import Matchup
from meta_mage.models.decks import CardDetail
from meta_mage.models.meta import WinRate

# the most a card's worth in a matchup counts, however many of their cards it reaches: one card answers one threat
# at a time, and an aggro deck's body (2.5) is its clock
WORTH_CAP = 2.5
LAND_PLAN = 1.0  # their key lands that tap for more or carry a plan weigh this much: land hate is worth more
_CHEAPER_VS_COLOUR = re.compile(r"costs? \{(\d+)\} less to cast if it targets an? (white|blue|black|red|green)")


def _land_hate(how: dict[str, str], lands: dict[str, CardFacts], weights: dict[str, float]) -> float:
    """Their key lands a card hits, as worth: their mana base counts as one card, unless the lands hit are their
    plan (lands that tap for more, sagas, manlands weighing ``LAND_PLAN``)."""
    hit = [name for name in how if name in lands]
    plan = sum(weights.get(n, 0.5) for n in hit if lands[n].taps_for_more or Matchup.land_plan(lands[n]))
    return min(WORTH_CAP if plan >= LAND_PLAN else 1.0, sum(weights.get(name, 0.5) for name in hit))


def feared_by(matchup: Matchup, name: str) -> str:
    """Why the opponent's deck fears a card, or "" when it does not: its playbook's ``fears_why`` when that
    sentence names the card, else that the playbook lists it among the cards that beat the deck."""
    theirs = matchup.theirs
    if theirs is None or not theirs.fears_card(name):
        return ""
    short = name.split(" // ")[0].split(",")[0]
    if short.casefold() in theirs.fears_why.casefold():
        return theirs.fears_why.rstrip(".")
    return f"{theirs.archetype}'s playbook lists it among the cards that beat the deck"


def worth(
    card: CardDetail, how: dict[str, str], targets: list[CardFacts], weights: dict[str, float]
) -> tuple[float, str]:
    """What a card is worth in a matchup: each key card it answers, weighted by the share of their lists that
    play it (their key lands count as one card together unless the lands hit are their plan: lands that tap for
    more, sagas, manlands weighing ``LAND_PLAN``; ``WORTH_CAP`` at most, as one card answers one threat at
    a time); halved when its cost reduction needs a colour none of their key cards has (Mystical Dispute against
    a deck without blue), with the words that say so."""
    lands = {t.name: t for t in targets if t.is_land}
    spells = sum(weights.get(name, 0.5) for name in how if name not in lands)
    value = min(WORTH_CAP, spells + _land_hate(how, lands, weights))
    cheaper = _CHEAPER_VS_COLOUR.search(card.oracle_text or "")
    if cheaper and value:
        colour = COLOUR_LETTERS[cheaper.group(2)]
        if not any(colour in t.colours for t in targets if t.name in how):
            return value / 2, f" (full cost here: none of theirs is {cheaper.group(2)})"
    return value, ""


@dataclass(frozen=True)
class GuideCase:
    """One deck against one opponent, as a guide reads it: the opponent, the archetype's record against it,
    the player's sideboard and main deck, the kind of matchup, the archetype's evidence and the cards the rules
    keep."""

    opponent: str
    base: WinRate | None
    side: list[CardDetail]
    main: list[CardDetail]
    matchup: Matchup
    own: ArchetypeEvidence
    kept: dict[str, str]  # card key -> why the rules keep it (``kept_cards``)

    @cached_property
    def main_facts(self) -> list[CardFacts]:
        """The known main-deck cards as the card rules read them, read once per guide."""
        return [facts_of_detail(c) for c in self.main if not c.unknown]
