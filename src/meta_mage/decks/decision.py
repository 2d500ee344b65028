"""One decision per card and matchup: whether each card of the player's 75 comes in, goes out or stays against
one opponent, and why. The sideboard guide is that decision; ``optimize_sideboard``, the matchup strategy (its
sideboard answers and guide) and the card question all read it, so they cannot disagree."""

from __future__ import annotations

from dataclasses import dataclass

from meta_mage.archetypes.classifier import ArchetypeClassifier
from meta_mage.decks.cards import section_of
from meta_mage.decks.evidence import ArchetypeEvidence
from meta_mage.decks.guide import kept_cards, sideboard_guide
from meta_mage.decks.guide_case import GuideCase
from meta_mage.decks.matchup import Matchup
from meta_mage.models.cards import card_key
from meta_mage.models.decks import CardDetail, GuideCard, SideboardGuide
from meta_mage.models.meta import WinRate


@dataclass(frozen=True)
class MatchupDecision:
    """The player's 75 against one opponent: the guide, and what it says of any one card."""

    opponent: str
    guide: SideboardGuide
    main: tuple[str, ...]  # card keys of the main deck

    def brings_in(self, name: str) -> bool:
        return _named(self.guide.bring_in, name) is not None

    def of_card(self, name: str) -> str:
        """What the decision is for one card, in words: in, out, stays (and why), or that it is not in the list."""
        if (card := _named(self.guide.bring_in, name)) is not None:
            return f"comes in against {self.opponent} (+{card.quantity}): {card.why}"
        if (card := _named(self.guide.take_out, name)) is not None:
            return f"goes out against {self.opponent} (−{card.quantity}): {card.why}"
        if card_key(name) in {card_key(n) for n in self.guide.held_back}:
            return f"answers some of {self.opponent}'s cards, but no main-deck card does less there: stays in the side"
        if (card := _named(self.guide.left_out, name)) is not None:
            return f"stays in the sideboard against {self.opponent}: {card.why}"
        if card_key(name) in self.main:
            return f"stays in the main deck against {self.opponent}"
        return "is not in your list"


def _named(cards: list[GuideCard], name: str) -> GuideCard | None:
    return next((c for c in cards if card_key(c.name) == card_key(name)), None)


def decide(
    classifier: ArchetypeClassifier,
    fmt: str,
    own: ArchetypeEvidence,
    base: WinRate | None,
    cards: list[CardDetail],
    matchup: Matchup,
    opponent: str,
) -> MatchupDecision:
    """The decision for the player's ``cards`` (main and side) against ``opponent``: ``own`` is the archetype's
    evidence, ``base`` its record against them, ``matchup`` the kind of matchup they make."""
    main = list(section_of(cards, "mainboard").values())
    side = list(section_of(cards, "sideboard").values())
    kept = kept_cards(classifier, fmt, own.name, cards, matchup)
    guide = sideboard_guide(GuideCase(opponent, base, side, main, matchup, own, kept))
    return MatchupDecision(opponent, guide, tuple(card_key(c.name) for c in main))
