"""The conversation state the graph checkpoints, and the router's typed decision."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeVar

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from meta_mage.agent.tool_specs import DEFAULT_TASK as DEFAULT_TASK
from meta_mage.agent.tool_specs import WORKFLOW_TASKS as WORKFLOW_TASKS
from meta_mage.models.meta import MAX_DAYS

Workflow = Literal["meta_research", "deck_coaching", "cube_draft", "clarify"]
Task = Literal[  # the names of tool_specs.TASKS (a test keeps them equal)
    "rankings",
    "matchups",
    "archetypes",
    "deck_review",
    "deck_matchups",
    "strategy",
    "optimize_mainboard",
    "optimize_sideboard",
    "draft_pool",
    "list_drafts",
    "none",
]

# The state key a turn's input sets and its finish node clears: a checkpoint that still has it set is
# of a turn that did not finish, and the checkpointer does not store it.
TURN_OPEN = "turn_open"


class RouteDecision(BaseModel):
    """How to handle one user message: the workflow, what is asked, and the slots it names."""

    workflow: Workflow = Field(description="meta_research, deck_coaching, cube_draft, or clarify when unsure")
    task: Task = Field(
        default="none",
        description=(
            "rankings / matchups / archetypes (meta_research); deck_review / deck_matchups / strategy / "
            "optimize_mainboard / optimize_sideboard (deck_coaching); draft_pool / list_drafts (cube_draft)"
        ),
    )
    confidence: float = Field(ge=0, le=1, description="How sure the classification is, 0-1")
    format: str | None = Field(default=None, description="Format named in the message, e.g. Modern")
    days: int | None = Field(default=None, ge=1, le=MAX_DAYS, description="Window in days named in the message")
    archetype: str | None = Field(default=None, description="Archetype the question is about (the user's deck)")
    opponent: str | None = Field(default=None, description="Opposing archetype named in the message")
    draft: str | None = Field(default=None, description="Cube draft id or name named in the message")
    card_filter: dict[str, str] | None = Field(
        default=None, description="For draft pools: color (W/U/B/R/G/C), type_contains, name_contains"
    )
    days_asked: int | None = Field(
        default=None, description="Only when the message asks for a window outside 1-365 days: the days it asked for"
    )
    has_decklist: bool = Field(default=False, description="True when the message contains a pasted decklist")
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


_Model = TypeVar("_Model", bound=BaseModel)


def _read(model: type[_Model], value: object) -> _Model | None:
    """``value`` as ``model``: conversations stored before these were models hold a dict (or an empty one)."""
    if isinstance(value, model):
        return value
    return model.model_validate(value) if value else None


def route_of(state: Mapping[str, object]) -> Route | None:
    """The last turn's route, or None before the first."""
    return _read(Route, state.get("route"))


def pending_of(state: Mapping[str, object]) -> Pending | None:
    """The request awaiting an answer, or None."""
    return _read(Pending, state.get("pending"))


class TurnContext(BaseModel):
    """Dropdown values sent with a request; each fills the slot of the same name."""

    format: str | None = None
    days: int | None = Field(default=None, ge=1, le=MAX_DAYS)
    archetype: str | None = Field(default=None, max_length=100)
    opponent_archetype: str | None = Field(default=None, max_length=100)
    deck_text: str | None = Field(default=None, max_length=20_000)
    draft_id: str | None = Field(default=None, max_length=64)


class ConversationState(TypedDict, total=False):
    """The spec's ConversationState, plus what cube drafts and matchup coaching need."""

    # user-provided inputs
    format: str | None
    days: int | None
    archetype: str | None
    opponent_archetype: str | None
    deck_text: str | None
    draft_id: str | None
    # derived
    card_details: list[dict[str, Any]] | None
    matchup_stats: dict[str, Any] | None
    suggested_archetype: str | None
    rejected_archetype: str | None  # a suggestion the user said "no" to: not suggested again
    deck_format: str | None  # the format and archetype the pasted deck was confirmed in: they stay with the deck
    deck_archetype: str | None  # when a question about another format comes between
    # session context from /welcome
    tool_catalog: list[dict[str, Any]] | None
    available_formats: list[str] | None
    workflows: list[dict[str, Any]] | None
    # conversation tracking
    messages: Annotated[list[AnyMessage], add_messages]
    current_workflow: str | None
    current_task: str | None
    pending: Pending | None  # read through pending_of / route_of: older checkpoints hold dicts
    route: Route | None
    context: dict[str, Any] | None
    tool_rounds: int
    turn_open: bool  # TURN_OPEN: set by a turn's input, cleared by its finish node
    created_at: float
    last_active: float


def snapshot(state: ConversationState) -> dict[str, Any]:
    """The spec's ``state`` event payload: what the UI shows beside the chat."""
    return {
        "has_deck": bool(state.get("card_details") or state.get("deck_text")),
        "format": state.get("format"),
        "archetype": state.get("archetype"),
        "days": state.get("days"),
        "opponent_archetype": state.get("opponent_archetype"),
        "draft_id": state.get("draft_id"),
        "current_workflow": state.get("current_workflow"),
        "suggested_archetype": state.get("suggested_archetype"),
        "has_matchup_stats": bool(state.get("matchup_stats")),
    }
