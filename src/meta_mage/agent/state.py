"""The conversation state the graph checkpoints (``ConversationState``, LangGraph's channels) and the typed
model it is read through (``Known``, with the router's ``Route`` and the ``Pending`` request, from
``models.conversation``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, cast

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from meta_mage.models.conversation import Deck as Deck
from meta_mage.models.conversation import Known as Known
from meta_mage.models.conversation import Pending as Pending
from meta_mage.models.conversation import Route as Route
from meta_mage.models.conversation import RouteDecision as RouteDecision
from meta_mage.models.conversation import Task as Task
from meta_mage.models.conversation import TurnContext as TurnContext
from meta_mage.models.conversation import Workflow as Workflow

# The state key a turn's input sets and its finish node clears: a checkpoint that still has it set is
# of a turn that did not finish, and the checkpointer does not store it.
TURN_OPEN = "turn_open"


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
    pending: Pending | None  # read through Known.of: older checkpoints hold dicts
    route: Route | None
    context: dict[str, Any] | None
    tool_rounds: int
    turn_open: bool  # TURN_OPEN: set by a turn's input, cleared by its finish node
    created_at: float
    last_active: float


def messages_of(state: Mapping[str, Any]) -> list[AnyMessage]:
    """The conversation's messages (the ``messages`` channel), oldest first."""
    return cast(list[AnyMessage], state.get("messages") or [])


def last_active_of(state: Mapping[str, Any]) -> float | None:
    """When the conversation was last active (epoch seconds), or None for a conversation never stored."""
    value = state.get("last_active")
    return float(value) if value else None


def snapshot(known: Known) -> dict[str, Any]:
    """The spec's ``state`` event payload: what the UI shows beside the chat."""
    return {
        "has_deck": known.deck.on_the_table,
        "format": known.format,
        "archetype": known.deck.archetype,
        "days": known.days,
        "opponent_archetype": known.opponent,
        "draft_id": known.draft_id,
        "current_workflow": known.workflow,
        "suggested_archetype": known.deck.suggested,
        "has_matchup_stats": known.matchup_stats is not None,
    }
