"""Where the agent finds the tool and task records, by the names the graph, the router and the guard import.

A tool is one record (``tools.tool.Tool``) in ``tools/catalog/<family>.py``: the registry's facts and what the
coach knows (workflows, state-owned arguments, blocking rules, state writes, summary, chart, thinking line).
A task is one record (``agent.tasks.task.TaskSpec``) beside its answer writer in ``agent/tasks/<workflow>.py``.
The guard, the tool specs bound to the model, the argument filling, the summaries and the offline plan are
derived from those records (the LLM router's task choices too). Adding a tool = its record + its tests. Adding a
task = its record (with the cues that name it in a question) and its writer + its tests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from meta_mage.agent.tasks import DEFAULT_TASK, TASKS, WORKFLOW_TASKS
from meta_mage.agent.tasks.task import WORKFLOW_NEEDS, TaskSpec
from meta_mage.tools.catalog import TOOLS, workflow_tools
from meta_mage.tools.catalog.decks import MATCHUP_STATS
from meta_mage.tools.rules import (
    ARCHETYPE,
    CARD_DETAILS,
    DAYS,
    DAYS_QUESTION,
    DECK_OR_ARCHETYPE,
    DECK_TEXT,
    DRAFT_ID,
    FORMAT,
    OPPONENT,
    Rule,
    format_question,
    stats_fit,
)
from meta_mage.tools.tool import CUBE_DRAFT, DECK_COACHING, META_RESEARCH, WORKFLOW_NAMES, InWorkflow, Tool

WORKFLOWS = WORKFLOW_NAMES

# How a state-owned argument is shown in the ``tool_call`` calling event (the rest are shown as they are).
SHOWN_AS: dict[str, Callable[[Any], str]] = {
    "card_details": lambda value: f"{len(value)} cards",
    "matchup_stats": lambda value: f"{value.get('archetype')} matchup statistics",
    "deck": lambda value: f"decklist ({len(str(value).splitlines())} lines)",
}

__all__ = [
    "ARCHETYPE",
    "CARD_DETAILS",
    "CUBE_DRAFT",
    "DAYS",
    "DAYS_QUESTION",
    "DECK_COACHING",
    "DECK_OR_ARCHETYPE",
    "DECK_TEXT",
    "DEFAULT_TASK",
    "DRAFT_ID",
    "FORMAT",
    "MATCHUP_STATS",
    "META_RESEARCH",
    "OPPONENT",
    "SHOWN_AS",
    "TASKS",
    "TOOLS",
    "WORKFLOWS",
    "WORKFLOW_NEEDS",
    "WORKFLOW_TASKS",
    "InWorkflow",
    "Rule",
    "TaskSpec",
    "Tool",
    "format_question",
    "stats_fit",
    "workflow_tools",
]
