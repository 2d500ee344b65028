"""The ``/welcome`` payload: tool catalog, formats with data, workflows with examples, and a
welcome message (LLM-written when a model is given, templated otherwise).

Imports no LLM library and no agent code, so the small WelcomeFunction can use it; a model is passed in, if any.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from meta_mage.tools.catalog import workflow_tools
from meta_mage.tools.workflows import WORKFLOWS

logger = logging.getLogger(__name__)

WELCOME_PROMPT = """Write a short, friendly welcome (under 120 words) for a player opening MTG Meta Mage, a Magic: The
Gathering coach. Mention what it can do, using the workflows and example questions given, and the formats
with data. Plain markdown, no headings.

Workflows: {workflows}
Formats: {formats}"""


def workflows_with_tools(catalog: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The workflows, each with the name and description of its tools from ``catalog`` (the tools their
    records in ``tools.catalog`` let it call: get_deck_matchup_stats is listed under both)."""
    return [
        {
            **workflow,
            "tool_details": [
                {"name": tool["name"], "description": tool["description"]}
                for tool in catalog
                if tool["name"] in workflow_tools(workflow["name"])
            ],
        }
        for workflow in WORKFLOWS
    ]


def templated_message(formats: list[str], tool_count: int, offline: bool) -> str:
    text = (
        "Welcome to MTG Meta Mage, your Magic: The Gathering coach. I answer from real tournament results "
        f"({', '.join(formats) or 'no formats loaded yet'}): ask for the top decks of a format or how one "
        "archetype fares against another; paste your decklist for its matchup spread, a plan for a matchup, "
        f"or mainboard and sideboard changes; or ask about a cube draft's pool. I have {tool_count} tools."
    )
    if offline:
        text += (
            " I'm running in offline mode, without a language model: my answers are built from the data by templates."
        )
    return text


def welcome_prompt(workflows: list[dict[str, Any]], formats: list[str]) -> str:
    """The prompt asking the LLM for the welcome message."""
    brief = [{"name": w["name"], "description": w["description"], "examples": w["example_queries"]} for w in workflows]
    return WELCOME_PROMPT.format(workflows=json.dumps(brief, ensure_ascii=False), formats=", ".join(formats))


def build_welcome(
    catalog: list[dict[str, Any]], formats: list[str], model: Any | None = None, *, max_tokens: int = 300
) -> dict[str, Any]:
    """The spec's /welcome body (without ``conversation_id``, which the caller adds)."""
    workflows = workflows_with_tools(catalog)
    message = None
    if model is not None:
        try:
            reply = model.invoke(welcome_prompt(workflows, formats))
            message = str(getattr(reply, "text", "") or reply.content).strip() or None
        except Exception as exc:  # the welcome must not fail because the LLM did
            logger.warning("welcome message from the LLM failed: %s", exc)
    return {
        "message": message or templated_message(formats, len(catalog), offline=model is None),
        "available_formats": formats,
        "workflows": workflows,
        "tool_count": len(catalog),
        "tool_catalog": catalog,
        "mode": "llm" if model is not None else "offline",
    }
