"""Data-driven deck coaching: the deck tools, each in its own module, behind one object.

``mainboard.py`` and ``sideboard.py`` optimise a list, ``strategy.py`` gathers a matchup's facts, ``guide.py``
writes sideboard guides, ``card_questions.py`` answers questions about one card; all of them read one
``ArchetypeEvidence`` (``evidence.py``) and one ``Matchup`` per opponent (``matchup.py``)."""

from __future__ import annotations

from meta_mage.analytics.meta import MetaService
from meta_mage.archetypes.classifier import UNKNOWN, ArchetypeClassifier, ArchetypeRule
from meta_mage.archetypes.provisional import stored_provisional
from meta_mage.decks.card_questions import card_evidence
from meta_mage.decks.context import CoachContext
from meta_mage.decks.evidence import BETTER_BY
from meta_mage.decks.mainboard import optimize_mainboard
from meta_mage.decks.parse import parse_deck_text
from meta_mage.decks.sideboard import optimize_sideboard
from meta_mage.decks.strategy import matchup_facts
from meta_mage.errors import StorageUnavailable
from meta_mage.models.decks import (
    CardEvidenceInput,
    CardEvidenceOutput,
    ClassifyDeckInput,
    ClassifyDeckOutput,
    OptimizeInput,
    OptimizeMainboardOutput,
    OptimizeSideboardOutput,
    StrategyFacts,
    StrategyInput,
)
from meta_mage.models.meta import normalise_format
from meta_mage.storage.cards import CardsRepository

__all__ = ["BETTER_BY", "DeckCoach"]  # BETTER_BY: the one rule's threshold, as the meta answers quote it


class DeckCoach:
    """Deck tools over the archetype card statistics and the card data."""

    def __init__(self, meta: MetaService, cards: CardsRepository, classifier: ArchetypeClassifier) -> None:
        self.meta = meta
        self.cards = cards
        self.classifier = classifier.reading_provisional(self._stored_provisional)  # the decks the ingest named
        self.context = CoachContext(meta, cards, self.classifier)

    def classify(self, params: ClassifyDeckInput) -> ClassifyDeckOutput:
        """The archetype the ingest classifier gives a pasted list, its format's provisional archetypes included
        (read at most every ``PROVISIONAL_REFRESH_SECONDS``). A list no declared or provisional rule names is
        unnamed ("Unknown"), never a catch-all's name: the catch-all's lists are no one deck, and guides built on
        them would not be this one's. A provisional archetype's name carries its marker; a rule matched it, so
        ``matched_by`` is "archetype"."""
        deck = parse_deck_text(params.deck)
        verdict = self.classifier.classify(params.format, deck.mainboard, deck.sideboard)
        named = verdict.kind in ("archetype", "provisional")
        return ClassifyDeckOutput(
            format=params.format,
            archetype=verdict.archetype if named else UNKNOWN,
            color_identity=verdict.colors or "C",
            strategy=verdict.strategy,
            matched_by="archetype" if named else "unknown",
            candidates=list(verdict.candidates),
            mainboard_cards=sum(deck.mainboard.values()),
            sideboard_cards=sum(deck.sideboard.values()),
        )

    def _stored_provisional(self, fmt: str) -> list[ArchetypeRule] | None:
        """The format's stored provisional rules (one read), or None when DynamoDB fails or the format is none."""
        try:
            return [a.archetype_rule() for a in stored_provisional(self.meta.repository, normalise_format(fmt))[1]]
        except (StorageUnavailable, ValueError):
            return None

    def optimize_mainboard(self, params: OptimizeInput) -> OptimizeMainboardOutput:
        """Core cards, flex spots, popular cards the deck lacks, and swaps with reasons."""
        return optimize_mainboard(self.context, params)

    def optimize_sideboard(self, params: OptimizeInput) -> OptimizeSideboardOutput:
        """A 15-card sideboard aimed at the top N archetypes, with a guide per top deck."""
        return optimize_sideboard(self.context, params)

    def matchup_facts(self, params: StrategyInput) -> StrategyFacts:
        """Record, the opponent's key cards and the user's sideboard answers to them."""
        return matchup_facts(self.context, params)

    def card_evidence(self, params: CardEvidenceInput) -> CardEvidenceOutput:
        """What a card answers among an opponent's key cards (or the top decks') and how lists with it did."""
        return card_evidence(self.context, params)
