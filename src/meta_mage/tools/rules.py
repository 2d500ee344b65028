"""The blocking rules a tool or a task needs to hold before it runs, each with the question the player is asked.

A rule reads what the conversation knows through :class:`Known` (the agent's state fits it); the tools' records
(``tools/catalog``) and the tasks' (``agent/tasks``) name them, and the agent's guard checks them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from meta_mage.models.meta import DeckMatchupStatsOutput


class Known(Protocol):
    """What the conversation knows, as far as the rules read it (the agent's state fits)."""

    format: str | None
    days: int | None
    archetype: str | None
    opponent_archetype: str | None
    deck_text: str | None
    draft_id: str | None
    matchup_stats: DeckMatchupStatsOutput | None

    @property
    def deck_read(self) -> bool: ...


def stats_fit(known: Known) -> bool:
    """Whether the stored matchup statistics are for the conversation's format, archetype and window."""
    stats = known.matchup_stats
    return (
        stats is not None
        and stats.format == known.format
        and stats.archetype.lower() == str(known.archetype or "").lower()
        and stats.metadata.period.days == known.days
    )


def format_question(formats: list[str]) -> str:
    return f"Which format should I look at? I have tournament data for {', '.join(formats)}."


NOT_COVERED = {  # formats players name that the tournament data does not hold, as the answer names them
    "commander": "Commander",
    "edh": "Commander",
    "cedh": "Commander",
    "brawl": "Brawl",
    "historic": "Historic",
    "explorer": "Explorer",
    "alchemy": "Alchemy",
    "timeless": "Timeless",
    "premodern": "Premodern",
    "oathbreaker": "Oathbreaker",
    "old school": "Old School",
    "penny dreadful": "Penny Dreadful",
    "canadian highlander": "Canadian Highlander",
    "sealed": "Sealed",
}


def not_covered(text: str) -> str | None:
    """The format named in ``text`` that the data does not hold ("Commander"), or None."""
    for word, name in NOT_COVERED.items():
        if re.search(rf"\b{word}\b", text, re.I):
            return name
    return None


def format_question_for(text: str, formats: list[str]) -> str:
    """The format question, saying first when the message named a format the data does not hold."""
    missing = not_covered(text)
    if missing is None:
        return format_question(formats)
    return (
        f"I have no tournament data for {missing}: the data holds MTGO Challenges and melee.gg events of "
        f"{', '.join(formats)}. Which of those should I look at?"
    )


DAYS_QUESTION = (
    "How many days of tournament results should I use? Any number from 1 to 365, for example 7, 14 or 30 "
    "(the window ends at the newest event in the data)."
)
PASTE_DECK = "Please paste your decklist (MTGO or Arena export, sideboard after a `Sideboard` line)."


@dataclass(frozen=True)
class Rule:
    """A blocking rule: what must hold, what the model is told when a tool call breaks it (``blocked``),
    and what the user is asked when a task needs it (``question``, on the slot ``missing``; an empty
    question is written by the graph with the choices listed). A rule a tool can satisfy names it in
    ``fetch``: the guard calls it instead of asking, and asks ``fetch_failed`` if that call failed (such a rule
    is declared beside that tool's record, as ``tools.catalog.decks.MATCHUP_STATS`` is)."""

    missing: str
    holds: Callable[[Known], bool]
    blocked: str
    question: str | Callable[[list[str]], str] = ""
    fetch: str | None = None
    fetch_failed: str = ""

    def ask(self, formats: list[str]) -> str:
        return self.question(formats) if callable(self.question) else self.question


FORMAT = Rule(
    "format",
    lambda known: bool(known.format),
    "not run yet: no format is chosen",
    format_question,
)
DAYS = Rule(
    "days",
    lambda known: bool(known.days),
    "not run yet: no number of days is chosen",
    DAYS_QUESTION,
)
CARD_DETAILS = Rule(
    "deck",
    lambda known: known.deck_read,
    "not run yet: your decklist has not been read (paste it first)",
    PASTE_DECK,
)
ARCHETYPE = Rule(
    "archetype",
    lambda known: bool(known.archetype),
    "not run yet: your deck's archetype is not confirmed",
    "Which archetype is your deck? You can also paste the list and I'll tell you.",
)
OPPONENT = Rule(
    "opponent",
    lambda known: bool(known.opponent_archetype),
    "not run yet: the opponent's archetype is not known",
    "Which archetype are you playing against?",
)
DECK_TEXT = Rule(
    "deck",
    lambda known: bool(known.deck_text),
    "not run yet: no decklist has been pasted",
    PASTE_DECK,
)
DRAFT_ID = Rule("draft", lambda known: bool(known.draft_id), "not run yet: which draft is not known")
DECK_OR_ARCHETYPE = Rule(
    "deck",
    lambda known: known.deck_read or bool(known.archetype),
    "not run yet: paste your decklist or name your archetype first",
    "Please paste your decklist (MTGO or Arena export, sideboard after a `Sideboard` line) and I'll review it, "
    "or tell me which archetype you play.",
)
