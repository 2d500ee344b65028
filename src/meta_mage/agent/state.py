"""The conversation's state, one typed model: the graph's schema (``StateGraph(ConversationState)``: one LangGraph
channel per field, each slot named once, here) and what every node, rule and task reads. The router's decision
(``RouteDecision``, ``Route``), the request awaiting an answer (``Pending``) and the dropdown values
(``TurnContext``) are its parts, in ``models.conversation``.

Nodes return their changes through ``ConversationState.changes``, which checks each slot's name and type, so a
misspelt slot or a wrong value fails where it is written instead of being stored.

A turn's slots go in through ``merge_slots`` (the dropdowns, then the router's decision), and ``TRANSITIONS``
declares what they make stale: a new list, a new format, a new archetype."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping
from copy import deepcopy
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from langchain_core.messages import AnyMessage, BaseMessage
from langgraph.graph.message import add_messages
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from meta_mage.agent.render import Block, Paragraph, Table
from meta_mage.agent.words import extract_decklist
from meta_mage.models.conversation import Pending as Pending
from meta_mage.models.conversation import Route as Route
from meta_mage.models.conversation import RouteDecision as RouteDecision
from meta_mage.models.conversation import Task as Task
from meta_mage.models.conversation import TurnContext as TurnContext
from meta_mage.models.conversation import Workflow as Workflow
from meta_mage.models.decks import CardDetail
from meta_mage.models.json import JsonObject
from meta_mage.models.meta import DeckMatchupStatsOutput, normalise_format

logger = logging.getLogger(__name__)

# The slot a turn's input sets and its finish node clears: a checkpoint that still has it set is of a turn that
# did not finish, and the checkpointer does not store it.
TURN_OPEN = "turn_open"

# A turn's slot changes (slot -> new value), each checked against its slot when applied (``applied``).
SlotChanges = dict[str, object]
Changes = Mapping[str, object]  # the changes so far, as the transition rules read them

ToolsCaller = Literal["guard", "workflow"]  # who asked for this round's tool calls


def _stored(value: Any) -> bool:
    """Whether a stored value says anything: None, an empty dict (an older checkpoint's "nothing") and an empty
    list read as the field's default."""
    return value is not None and not (isinstance(value, dict | list) and not value)


class ConversationState(BaseModel):
    """The spec's ConversationState, plus what cube drafts and matchup coaching need."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    # what the player said (or chose in the page's boxes)
    format: str | None = None
    days: int | None = None  # the window, in days
    archetype: str | None = None  # the player's archetype in the current format (named without a list too)
    opponent_archetype: str | None = None
    deck_text: str | None = None  # the list as pasted
    draft_id: str | None = None
    # derived
    card_details: list[CardDetail] = Field(default_factory=list)  # the list's cards as read
    matchup_stats: DeckMatchupStatsOutput | None = None  # the deck's (archetype's), as get_deck_matchup_stats gave
    suggested_archetype: str | None = None  # the classifier's suggestion, awaiting a yes or no
    rejected_archetype: str | None = None  # a suggestion the player said "no" to: not suggested again
    deck_format: str | None = None  # the format and archetype the pasted deck was confirmed in: they stay with
    deck_archetype: str | None = None  # the deck when a question about another format comes between
    # session context from /welcome (its tool catalog and workflows are not kept: nothing read them; a
    # conversation stored with them still loads, ``extra="ignore"``)
    available_formats: list[str] = Field(default_factory=list)
    # conversation tracking
    messages: Annotated[list[AnyMessage], add_messages] = Field(default_factory=list)
    current_workflow: str | None = None  # the request in progress
    current_task: str | None = None
    pending: Pending | None = None  # the question awaiting the player's answer
    route: Route | None = None  # this turn's decision
    context: TurnContext = Field(default_factory=TurnContext)  # this turn's dropdown values (until routed)
    tool_rounds: int = 0
    last_answer: list[Block] = Field(default_factory=list)  # the coach's last answer, as blocks (quoted on "why")
    tools_called_by: ToolsCaller | None = None  # the node the tools node goes back to
    explained: bool = False  # the router answered this turn itself (a question about the last answer)
    turn_open: bool = False  # TURN_OPEN: set by a turn's input, cleared by its finish node
    created_at: float | None = None
    last_active: float | None = None

    @classmethod
    def of(cls, values: Mapping[str, Any] | ConversationState) -> ConversationState:
        """The state of ``values`` (a checkpoint's, the stream's). Conversations stored in an older shape load
        too: missing slots, dicts for the route and the pending request, numbers stored as text or Decimal."""
        return cls.model_validate(values)

    @model_validator(mode="before")
    @classmethod
    def _unsaid_as_default(cls, data: Any) -> Any:
        """A slot stored as nothing (None, an empty dict or list) reads as its default."""
        if not isinstance(data, Mapping):
            return data
        fields = cls.model_fields
        return {
            key: value if _stored(value) or key not in fields else _default(cls, key) for key, value in data.items()
        }

    @field_validator("card_details", mode="wrap")
    @classmethod
    def _cards(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> list[CardDetail]:
        """Cards stored in a shape that no longer validates are dropped: the list is read again."""
        try:
            return list(handler(value))
        except ValidationError as exc:
            logger.warning("stored card_details dropped (%d errors); the deck is read again", exc.error_count())
            return []

    @field_validator("matchup_stats", mode="wrap")
    @classmethod
    def _stats(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> DeckMatchupStatsOutput | None:
        """Statistics stored in a shape that no longer validates are dropped: they are fetched again."""
        try:
            stats: DeckMatchupStatsOutput | None = handler(value)
        except ValidationError as exc:
            logger.warning("stored matchup_stats dropped (%d errors); they are fetched again", exc.error_count())
            return None
        return stats

    @property
    def deck_read(self) -> bool:
        """Cards of the list were found in the card data (a list of only unknown names was not read)."""
        return any(not card.unknown for card in self.card_details)

    @property
    def has_list(self) -> bool:
        """A list was pasted (read or not)."""
        return bool(self.deck_text or self.card_details)

    @property
    def has_deck(self) -> bool:
        """A deck is on the table: a list, or an archetype the player named as theirs."""
        return self.has_list or bool(self.archetype)

    def applied(self, updates: Mapping[str, Any]) -> ConversationState:
        """A copy with ``updates`` applied, each checked against its slot (a name not a slot, or a value not of its
        type, raises); None resets a slot to its default. ``messages`` are left out: they go through the
        channel's reducer (additions and removals), not assignment."""
        unknown = sorted(set(updates) - set(type(self).model_fields))
        if unknown:
            raise ValueError(f"not slots of the conversation state: {', '.join(unknown)}")
        changed = self.model_copy()
        for key, value in updates.items():
            if key != "messages":
                setattr(changed, key, _default(type(self), key) if value is None else value)  # validate_assignment
        return changed

    def changes(self, updates: Mapping[str, Any]) -> JsonObject:
        """``updates`` checked against the slots (``applied``): what a node returns. Models go into the checkpoint
        as JSON, so a stored conversation holds no pickled classes of ours."""
        self.applied(updates)
        return {key: _plain(value) for key, value in updates.items()}

    def state_value(self, key: str) -> Any:
        """The value of slot ``key`` as JSON, or None: what a tool argument the state owns (a tool record's
        ``from_state``) is filled with."""
        value = _plain(getattr(self, key))
        return value if _stored(value) else None


@functools.cache
def _default_maker(model: type[BaseModel], key: str) -> Callable[[], Any]:
    """How slot ``key``'s default is made, found once: pydantic's ``get_default`` inspects the factory's signature
    on every call, and every assignment validates the whole state."""
    field = model.model_fields[key]
    if field.default_factory is not None:
        return field.default_factory  # type: ignore[return-value]  # the state's factories take no arguments
    default = field.default
    return lambda: deepcopy(default)


def _default(model: type[BaseModel], key: str) -> Any:
    return _default_maker(model, key)()


_BLOCKS: TypeAdapter[list[Block]] = TypeAdapter(list[Block])


def _plain(value: Any) -> Any:
    """A model (or a list of models) as JSON; anything else as it is."""
    if isinstance(value, BaseModel) and not isinstance(value, BaseMessage):
        return value.model_dump(mode="json")
    if isinstance(value, list) and value and isinstance(value[0], CardDetail):
        return [card.model_dump(mode="json") for card in value]
    if isinstance(value, list) and value and isinstance(value[0], Paragraph | Table):
        return _BLOCKS.dump_python(value, mode="json")
    return value


def messages_of(state: ConversationState | Mapping[str, Any]) -> list[AnyMessage]:
    """The conversation's messages (the ``messages`` channel), oldest first."""
    if isinstance(state, ConversationState):
        return state.messages
    return list(state.get("messages") or [])


def last_active_of(state: Mapping[str, Any]) -> float | None:
    """When the conversation was last active (epoch seconds), or None for a conversation never stored."""
    value = state.get("last_active")
    return float(value) if value else None


# The slots the UI shows beside the chat, as they are (between whether a list was pasted and whether the deck's
# statistics are held)
SHOWN_SLOTS = (
    "format",
    "archetype",
    "days",
    "opponent_archetype",
    "draft_id",
    "current_workflow",
    "suggested_archetype",
)


def snapshot(known: ConversationState) -> JsonObject:
    """The spec's ``state`` event payload: what the UI shows beside the chat."""
    shown = {slot: getattr(known, slot) for slot in SHOWN_SLOTS}
    return {"has_deck": known.has_list, **shown, "has_matchup_stats": known.matchup_stats is not None}


def _changed(slot: str) -> Callable[[ConversationState, Changes], bool]:
    """The event "this turn gives ``slot`` a new value"."""
    return lambda known, updates: updates.get(slot, getattr(known, slot)) != getattr(known, slot)


def _new_list_with_an_old_opponent(known: ConversationState, updates: Changes) -> bool:
    """A new list while no question waits, with an opponent an earlier question named (not this deck's)."""
    return _changed("deck_text")(known, updates) and bool(known.opponent_archetype) and known.pending is None


def _new_format(known: ConversationState, updates: Changes) -> bool:
    """The format changes from one that was set (a first format makes nothing stale)."""
    return bool(known.format) and _changed("format")(known, updates)


@dataclass(frozen=True)
class Transition:
    """What an event of a turn makes stale: ``clears`` are emptied; ``unless_said`` are emptied unless the turn
    sets them; ``back_to_given`` go back to the dropdown's value (or empty) unless the turn changes them."""

    event: str
    happened: Callable[[ConversationState, Changes], bool]
    clears: tuple[str, ...] = ()
    unless_said: tuple[str, ...] = ()
    back_to_given: tuple[str, ...] = ()


# The state's transition rules, in order (each sees the changes the rows above made): what a new list, a new
# format or a new archetype makes stale.
TRANSITIONS: tuple[Transition, ...] = (
    Transition(
        "a new list: what was derived from the old one no longer holds",
        _changed("deck_text"),
        clears=(
            "card_details",
            "matchup_stats",
            "suggested_archetype",
            "rejected_archetype",
            "deck_format",
            "deck_archetype",
        ),
        back_to_given=("archetype",),
    ),
    Transition(
        "a new list: an earlier question's opponent is not this deck's",
        _new_list_with_an_old_opponent,
        unless_said=("opponent_archetype",),
    ),
    Transition(
        "a new format: the old format's names and statistics",
        _new_format,
        clears=("matchup_stats", "suggested_archetype"),
        unless_said=("archetype", "opponent_archetype"),
    ),
    Transition("a new archetype: its statistics", _changed("archetype"), clears=("matchup_stats",)),
)


def with_stale(known: ConversationState, updates: SlotChanges, context: TurnContext | None) -> SlotChanges:
    """``updates`` plus the slots they make stale, as ``TRANSITIONS`` declare (``context``: the turn's dropdowns)."""
    for rule in TRANSITIONS:
        if not rule.happened(known, updates):
            continue
        updates.update(dict.fromkeys(rule.clears))
        for slot in rule.unless_said:
            updates.setdefault(slot, None)
        for slot in rule.back_to_given:
            if updates.get(slot, getattr(known, slot)) == getattr(known, slot):
                updates[slot] = (getattr(context, slot) if context else None) or None
    return updates


def merge_slots(
    known: ConversationState, decision: RouteDecision, context: TurnContext | None, message: str, draft_id: str | None
) -> SlotChanges:
    """State changes from dropdown context, then from the message's own slots (the message wins), then what
    those changes make stale (``state.TRANSITIONS``); a confirmed deck keeps its format and archetype."""
    updates = {**_given(context), **_said(known, decision, message, draft_id)}
    if (  # back to the deck after questions about another format: the deck keeps its own format and archetype
        decision.workflow == "deck_coaching"
        and not decision.format
        and not (context and context.format)
        and known.deck_format
        and updates.get("deck_text", known.deck_text) == known.deck_text
        and updates.get("format", known.format) != known.deck_format
    ):
        updates.update(format=known.deck_format, archetype=known.deck_archetype)
    if decision.workflow == "deck_coaching" and decision.read_as and not decision.opponent:
        updates["opponent_archetype"] = None  # the opponent named was another format's deck: asked again
    updates = with_stale(known, updates, context)
    _keep_deck_identity(known, updates, decision)
    return updates


def _given(context: TurnContext | None) -> SlotChanges:
    """The dropdowns' values, each for the slot of the same name."""
    if context is None:
        return {}
    given: SlotChanges = {"format": normalise_format(context.format)} if context.format else {}
    for key in ("days", "archetype", "opponent_archetype", "deck_text", "draft_id"):
        if value := getattr(context, key):
            given[key] = value
    return given


def _deck_named(known: ConversationState, decision: RouteDecision, answers_opponent: bool, message: str) -> str | None:
    """The player's deck as the message names it: none in answer to "which opponent?", and none while a confirmed
    list is held and no new one is pasted ("how do I play against Izzet Hero Aggro?" read as Aggro vs Izzet
    Prowess, or a bare "Jeskai Blink" after a guide, is about an opponent, not a new name for the list)."""
    if decision.workflow != "deck_coaching" or answers_opponent:
        return None
    if decision.archetype != known.archetype and _holds_its_list(known, message):
        return None
    return decision.archetype


def _holds_its_list(known: ConversationState, message: str) -> bool:
    """A confirmed list is held and the message pastes no other."""
    return bool(known.has_list and known.archetype and not extract_decklist(message))


def _said(known: ConversationState, decision: RouteDecision, message: str, draft_id: str | None) -> SlotChanges:
    """The slots the message fills; a yes or no to the suggested archetype."""
    said: SlotChanges = {}
    answers_opponent = (known.pending or Pending()).missing == "opponent"
    # the player's own deck named in answer to "which opponent?" ("no, it's Mono Red Hero Aggro") is not it
    names_opponent = answers_opponent or (decision.workflow == "deck_coaching" and _holds_its_list(known, message))
    answered = (
        decision.archetype
        if names_opponent and decision.archetype not in (known.archetype, known.deck_archetype)
        else None
    )
    for key, value in (
        ("format", decision.format),
        ("days", decision.days),
        ("opponent_archetype", decision.opponent or answered),
        ("draft_id", draft_id),
        ("deck_text", extract_decklist(message)),
        ("archetype", _deck_named(known, decision, answers_opponent, message)),
    ):
        if value:
            said[key] = value
    suggested = known.suggested_archetype
    if suggested and not said.get("archetype", known.archetype):
        if decision.confirms_archetype:
            said["archetype"] = suggested
        elif decision.confirms_archetype is False:
            said.update(suggested_archetype=None, rejected_archetype=suggested)
    return said


def _keep_deck_identity(known: ConversationState, updates: SlotChanges, decision: RouteDecision) -> None:
    """A deck confirmed in a format and archetype keeps them (a question about another format may come between)."""
    identity = (updates.get("format", known.format), updates.get("archetype", known.archetype))
    recorded = (updates.get("deck_format", known.deck_format), updates.get("deck_archetype", known.deck_archetype))
    confirmed = decision.workflow == "deck_coaching" and updates.get("deck_text", known.deck_text) and all(identity)
    if confirmed and identity != recorded:
        updates.update(deck_format=identity[0], deck_archetype=identity[1])
