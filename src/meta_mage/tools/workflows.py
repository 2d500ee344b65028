"""The coach's three workflows as the player is shown them (``/welcome``): what each is for and example
questions. The tools each may call are on the tools' own records (``tools.catalog.workflow_tools``)."""

from __future__ import annotations

from typing import Any

from meta_mage.tools.tool import CUBE_DRAFT, DECK_COACHING, META_RESEARCH

WORKFLOWS: list[dict[str, Any]] = [
    {
        "name": META_RESEARCH,
        "description": "Format-wide analytics: meta rankings, matchup spreads, archetype lists, an archetype's page",
        "example_queries": [
            "What are the top decks in Modern?",
            "Show me the Pioneer meta over the last 14 days",
            "How does Boros Energy do against Eldrazi Tron?",
            "What does the stock Boros Energy list look like?",
        ],
    },
    {
        "name": DECK_COACHING,
        "description": "Personalized coaching for your specific deck: paste your list",
        "example_queries": [
            "How should I play against Amulet Titan? [paste your deck]",
            "Optimize my sideboard [paste your deck]",
            "What are my deck's bad matchups?",
        ],
    },
    {
        "name": CUBE_DRAFT,
        "description": "A cube draft's card pool: what was in it and who took what",
        "example_queries": [
            "What green creatures were in the Tarkir draft, and who took them?",
            "Which drafts do you have?",
        ],
    },
]
