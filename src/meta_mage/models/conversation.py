"""The parts of a coaching conversation's state (``agent.state.ConversationState``) as models: the router's
decision (``RouteDecision``, ``Route``), the request awaiting the player's answer (``Pending``) and the dropdown
values sent with a turn (``TurnContext``)."""

from __future__ import annotations

import logging
from typing import Literal

from pydantic import (
    BaseModel,
    Field,
)

from meta_mage.models.meta import MAX_DAYS

logger = logging.getLogger(__name__)

Workflow = Literal["meta_research", "deck_coaching", "cube_draft", "clarify"]
# A task's name (``agent.tasks.TASKS``); "none" when no task is picked. The LLM router's schema lists the names.
Task = str


class RouteDecision(BaseModel):
    """How to handle one user message: the workflow, what is asked, and the slots it names."""

    workflow: Workflow = Field(description="meta_research, deck_coaching, cube_draft, or clarify when unsure")
    task: Task = Field(default="none", description="What is asked: one of the workflow's tasks")
    confidence: float = Field(ge=0, le=1, description="How sure the classification is, 0-1")
    format: str | None = Field(default=None, description="Format named in the message, e.g. Modern")
    days: int | None = Field(default=None, ge=1, le=MAX_DAYS, description="Window in days named in the message")
    archetype: str | None = Field(default=None, description="Archetype the question is about (the user's deck)")
    opponent: str | None = Field(default=None, description="Opposing archetype named in the message")
    draft: str | None = Field(default=None, description="Cube draft id or name named in the message")
    card: str | None = Field(default=None, description="A card the message asks about (is X good against Y?)")
    card_filter: dict[str, str] | None = Field(
        default=None, description="For draft pools: color (W/U/B/R/G/C), type_contains, name_contains"
    )
    days_asked: int | None = Field(
        default=None, description="Only when the message asks for a window outside 1-365 days: the days it asked for"
    )
    has_decklist: bool = Field(default=False, description="True when the message contains a pasted decklist")
    read_as: str = Field(
        default="", description="Leave empty (the keyword rules say here when they read a name in another format)"
    )
    confirms_archetype: bool | None = Field(
        default=None, description="True/False when the user answers whether a suggested archetype is right"
    )


class Route(RouteDecision):
    """A turn's decision as routed: the workflow and task it runs (after the confidence threshold) and the
    question it answers (an answer to the coach's question follows that question)."""

    workflow: Workflow = "clarify"
    confidence: float = Field(default=0, ge=0, le=1)
    question: str = ""


class Pending(BaseModel):
    """The request awaiting the user's answer: its workflow and task, the slot asked for, and its route."""

    workflow: Workflow | None = None
    task: Task | None = None
    missing: str = ""
    route: Route | None = None


class TurnContext(BaseModel):
    """Dropdown values sent with a request; each fills the slot of the same name."""

    format: str | None = None
    days: int | None = Field(default=None, ge=1, le=MAX_DAYS)
    archetype: str | None = Field(default=None, max_length=100)
    opponent_archetype: str | None = Field(default=None, max_length=100)
    deck_text: str | None = Field(default=None, max_length=20_000)
    draft_id: str | None = Field(default=None, max_length=64)
