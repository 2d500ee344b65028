"""What a strong player knows of an archetype: its playbook when one is written (``archetypes/playbooks.py``),
else a profile computed from its lists' cards and labelled as computed. Every coaching answer reads a deck's
role, engine, fast mana, graveyard plan and fears from here, and says what it rests on."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from meta_mage.archetypes.classifier import ArchetypeClassifier
from meta_mage.archetypes.playbooks import Playbook, playbook_for, staleness
from meta_mage.card_rules.casting import puts_into_play_early, uses_graveyard
from meta_mage.card_rules.facts import CardFacts
from meta_mage.card_rules.profile import profile_of
from meta_mage.decks.cards import COST_REDUCTION, ramps
from meta_mage.decks.evidence import ArchetypeEvidence
from meta_mage.models.cards import card_key

Source = Literal["playbook", "computed"]
PLAYED = 50.0  # a card in this share of the lists or more is part of the computed profile
ENGINE_SHARE = 90.0  # computed engine: in this share of the lists...
ENGINE_COPIES = 2.95  # ...at three copies or more (an average of 2.97 is a three-of a few lists trimmed)


@dataclass(frozen=True)
class DeckKnowledge:
    """An archetype as a strong player knows it. ``kept`` maps the card keys no matchup takes out on the rules
    alone to why (its engine, a win condition, its fast mana); ``stale`` names the playbook's engine cards its
    current lists dropped below the playbook's threshold, with their share (0-1)."""

    archetype: str
    role: str  # aggro, tempo, midrange, control, ramp, combo; "unknown" when nothing says
    source: Source
    plan: str = ""
    kept: tuple[tuple[str, str], ...] = ()
    fast_mana: tuple[str, ...] = ()
    graveyard: tuple[str, ...] = ()
    fears: tuple[str, ...] = ()
    fears_why: str = ""
    stale: tuple[tuple[str, float], ...] = ()
    profile: ComputedProfile | None = None  # for a deck without a playbook: its cards in numbers

    @property
    def kept_on_rules(self) -> dict[str, str]:
        return dict(self.kept)

    @property
    def graveyard_plan(self) -> bool:
        return bool(self.graveyard)

    def fears_card(self, name: str) -> bool:
        return card_key(name) in {card_key(c) for c in self.fears}

    @property
    def rests_on(self) -> str:
        """What an answer about this deck rests on, in words (and that the playbook is stale, when it is)."""
        if self.source == "computed":
            numbers = f" ({self.profile.words()})" if self.profile is not None else ""
            return f"{self.archetype}: no playbook; a profile{numbers}"
        words = f"{self.archetype}: its playbook"
        if self.stale:
            cards = ", ".join(f"{name} ({share:.0%})" for name, share in self.stale)
            words += f" (stale: its lists now play less of {cards})"
        return words


def _first_reason(pairs: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Each card once, with the first reason given for it."""
    found: dict[str, str] = {}
    for key, why in pairs:
        found.setdefault(key, why)
    return tuple(found.items())


def _from_playbook(book: Playbook, evidence: ArchetypeEvidence | None, answers: frozenset[str]) -> DeckKnowledge:
    """``answers``: the keys of the playbook's engine cards that are answers by the rules (removal, counters):
    they compete on what they answer in each matchup, like any answer, and are not kept on the rules."""
    kept = [
        *((card_key(c), "its engine") for c in book.engine if card_key(c) not in answers),
        *((card_key(c), "a win condition") for c in book.win_conditions),
        *((card_key(c), "its fast mana") for c in book.fast_mana),
    ]
    stale: tuple[tuple[str, float], ...] = ()
    if evidence is not None and evidence.lists:
        shares = {key: share / 100 for key, (share, _) in evidence.main_usage.items()}
        for key, (_, row) in evidence.keyed("sideboard").items():
            shares[key] = max(shares.get(key, 0.0), row.decks / evidence.lists)
        stale = staleness(book, shares).stale_cards
    return DeckKnowledge(
        book.archetype,
        book.role,
        "playbook",
        book.plan,
        _first_reason(kept),
        book.fast_mana,
        book.graveyard,
        book.fears,
        book.fears_why,
        stale,
    )


def _answer_spell(facts: CardFacts) -> bool:
    """An answer by the rules that is no body: its worth is what it answers in the matchup."""
    return profile_of(facts).kind == "interaction" and not facts.types & {"creature", "planeswalker"}


def _puts_in_early(facts: CardFacts) -> bool:
    """Fast mana, a cheat or a cost reducer (the card rules' casting facts): a card that puts cards into play
    sooner than the curve says."""
    return puts_into_play_early(profile_of(facts).casting) or ramps(facts) or bool(COST_REDUCTION.search(facts.text))


def _graveyard_user(facts: CardFacts) -> bool:
    return uses_graveyard(profile_of(facts).casting) or facts.graveyard_cast_or_reanimate


_TUTOR = re.compile(r"\bsearch(?:es)? your library for (?:an? |up to \w+ )?(?!(?:basic )?land)[^.]*?\bcards?\b", re.I)


@dataclass(frozen=True)
class ComputedProfile:
    """A deck without a playbook, in numbers from its lists' played cards (``PLAYED`` % or more): copies of fast
    mana and cheats, of tutors, of graveyard users, of interaction (per 60 cards), and its nonland curve."""

    fast_mana: float
    tutors: float
    graveyard_users: float
    interaction: float
    curve: float

    def words(self) -> str:
        return (
            f"computed from its lists' cards: {self.interaction:.0f} interaction, {self.fast_mana:.0f} fast mana or "
            f"cheats, {self.tutors:.0f} tutors, {self.graveyard_users:.0f} graveyard users per 60; nonland curve "
            f"{self.curve:.1f}"
        )


def computed_profile(cards: Sequence[PlayedCard]) -> ComputedProfile:
    """The numbers of a computed profile, each card counted at its average copies in the lists that play it."""
    played = [c for c in cards if c.share >= PLAYED]
    total = sum(c.copies for c in played) or 1.0
    per60 = 60 / total if total > 40 else 1.0  # a whole list: per 60 cards; a few key cards: as counted

    def count(test: Callable[[CardFacts], bool]) -> float:
        return round(per60 * sum(c.copies for c in played if not c.facts.is_land and test(c.facts)), 1)

    spells = [c for c in played if not c.facts.is_land]
    copies = sum(c.copies for c in spells)
    curve = sum(c.facts.mana_value * c.copies for c in spells) / copies if copies else 0.0
    return ComputedProfile(
        count(_puts_in_early),
        count(lambda f: _TUTOR.search(f.text) is not None),
        count(_graveyard_user),
        count(lambda f: profile_of(f).kind == "interaction"),
        round(curve, 2),
    )


@dataclass(frozen=True)
class PlayedCard:
    """A main-deck card of the archetype's lists: how the rules read it, its share of the lists (%) and its
    average copies in them."""

    facts: CardFacts
    share: float
    copies: float


def _computed(classifier: ArchetypeClassifier, fmt: str, archetype: str, cards: Sequence[PlayedCard]) -> DeckKnowledge:
    """A profile from the lists' cards (a card in ``PLAYED`` % of them or more): fast mana and cheats, graveyard
    users, and an engine of the non-interaction cards nearly every list plays as a three- or four-of, beside the
    cards the archetype's rule names."""
    kept = [(key, "named by the archetype's rule") for key in sorted(classifier.defining_cards(fmt, archetype))]
    played = [c for c in cards if c.share >= PLAYED and not c.facts.is_land]
    for card in played:
        engine = card.share >= ENGINE_SHARE and card.copies >= ENGINE_COPIES
        if engine and profile_of(card.facts).kind != "interaction":
            kept.append((card_key(card.facts.name), "its engine (computed: nearly every list plays it 3+ times)"))
    fast = tuple(c.facts.name for c in played if _puts_in_early(c.facts))
    graveyard = tuple(c.facts.name for c in played if _graveyard_user(c.facts))
    role = classifier.strategy_of(fmt, archetype)
    profile = computed_profile(cards)
    return DeckKnowledge(archetype, role, "computed", "", _first_reason(kept), fast, graveyard, profile=profile)


def knowledge_of(
    classifier: ArchetypeClassifier,
    fmt: str,
    archetype: str,
    cards: Sequence[PlayedCard] = (),
    evidence: ArchetypeEvidence | None = None,
) -> DeckKnowledge:
    """The archetype's playbook when the rules directory has one (stale where ``evidence``, its current lists,
    dropped its engine), else a profile computed from ``cards``."""
    book = playbook_for(classifier.rules_dir, fmt, archetype) if archetype else None
    if book is not None:
        answers = frozenset(card_key(c.facts.name) for c in cards if _answer_spell(c.facts))
        return _from_playbook(book, evidence, answers)
    return _computed(classifier, fmt, archetype, cards)
