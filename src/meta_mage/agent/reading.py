"""What one user message says, read once by the router (``router.read_message``): the slots it fills and the
cues that name a workflow. Routing (``router.CLAIMS``) and the follow-up rules (``follow_ups``) are lookups
over it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PoolReading:
    """What a message says about a cube draft: its words, the draft it names, the pool filter it asks for."""

    in_cube: bool  # the pending or current request is about a cube draft
    draft_words: bool
    draft: str | None
    card_filter: dict[str, str] | None


@dataclass(frozen=True)
class Reading:
    """What one message says (with the question it answers, if any), read once: the slots it fills and the
    cues that name a workflow."""

    question: str  # the question answered, then the reply, without any decklist
    has_decklist: bool
    slots: dict[str, Any]  # RouteDecision's fields: format, days (days_asked), archetype, opponent, card, ...
    draft: str | None  # a draft the message names
    card_filter: dict[str, str] | None  # colour, type, card or drafter asked about in a pool
    confirms: bool | None  # yes/no to the suggested archetype
    draft_words: bool  # names a cube draft or its pool
    in_cube: bool  # the pending or current request is about a cube draft
    my_deck: bool  # names the player's own deck
    coaching: bool  # asks for coaching (optimise, sideboard, how should I…)
    meta_words: bool  # asks about the format's metagame
    has_deck: bool  # a deck is on the table (pasted now or earlier)
    follows_deck: bool = False  # "and against X?" after an answer about the player's deck
    follow_word: bool = False  # starts "and …", "what about …", "how about …"
