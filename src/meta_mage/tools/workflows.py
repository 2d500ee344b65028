"""The coach's three workflows as the player is shown them (``/welcome``): what each is for and example
questions. The tools each may call are on the tools' own records (``tools.catalog.workflow_tools``)."""

from __future__ import annotations

from dataclasses import dataclass

from meta_mage.tools.tool import CUBE_DRAFT, DECK_COACHING, META_RESEARCH


@dataclass(frozen=True)
class Workflow:
    name: str
    description: str
    example_queries: tuple[str, ...]


WORKFLOWS = (
    Workflow(
        META_RESEARCH,
        "Format-wide analytics: meta rankings, matchup spreads, archetype lists, an archetype's page",
        (
            "What are the top decks in Modern?",
            "Show me the Pioneer meta over the last 14 days",
            "How does Boros Energy do against Eldrazi Tron?",
            "What does the stock Boros Energy list look like?",
        ),
    ),
    Workflow(
        DECK_COACHING,
        "Personalized coaching for your specific deck: paste your list",
        (
            "How should I play against Amulet Titan? [paste your deck]",
            "Optimize my sideboard [paste your deck]",
            "What are my deck's bad matchups?",
        ),
    ),
    Workflow(
        CUBE_DRAFT,
        "A cube draft's card pool: what was in it and who took what",
        (
            "What green creatures were in the Tarkir draft, and who took them?",
            "Which drafts do you have?",
        ),
    ),
)
