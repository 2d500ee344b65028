"""The tasks the router can pick: one record per task beside its offline answer writer, one file per workflow
(``meta.py``: meta research; ``decks.py``: deck coaching; ``drafts.py``: cube drafts). ``task.py`` holds the
record; ``phrasing.py`` what the answers share."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, create_model

from meta_mage.agent.tasks import decks, drafts, meta
from meta_mage.agent.tasks.task import TaskSpec
from meta_mage.models.conversation import RouteDecision
from meta_mage.tools.tool import WORKFLOW_NAMES

TASKS: dict[str, TaskSpec] = {task.name: task for task in (*meta.TASKS, *decks.TASKS, *drafts.TASKS)}

WORKFLOW_TASKS: dict[str, tuple[str, ...]] = {
    **{workflow: tuple(n for n, t in TASKS.items() if t.workflow == workflow) for workflow in WORKFLOW_NAMES},
    "clarify": ("none",),
}
# The first task of each workflow is its default.
DEFAULT_TASK = {workflow: WORKFLOW_TASKS[workflow][0] for workflow in WORKFLOW_NAMES}

# The LLM router's schema: RouteDecision with the task names as its choices, listed by workflow.
_TASK_CHOICES: Any = Literal[(*TASKS, "none")]
LLM_ROUTE_DECISION = create_model(
    "RouteDecision",
    __base__=RouteDecision,
    task=(
        _TASK_CHOICES,
        Field(
            default="none",
            description="; ".join(f"{' / '.join(WORKFLOW_TASKS[w])} ({w})" for w in WORKFLOW_NAMES),
        ),
    ),
)
