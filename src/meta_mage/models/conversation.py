"""What a coaching conversation knows, as models: the player's deck, the format, the window, the opponent, the
draft, the deck's matchup statistics, the request in progress and the question awaiting an answer (``Known``,
read from the graph's state by ``Known.of``), and the router's decision (``RouteDecision``, ``Route``).

The graph's state itself is ``agent.state.ConversationState``, a dict of optional keys; ``Known`` names each of
those keys once (as a field's ``alias``), so nothing else reads the state by key."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from meta_mage.models.decks import CardDetail
from meta_mage.models.meta import MAX_DAYS, DeckMatchupStatsOutput

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


_READ = ConfigDict(frozen=True, extra="ignore", validate_by_name=True, validate_by_alias=True)


class Deck(BaseModel):
    """The player's deck: the list as pasted, its cards as read, its archetype (suggested by the classifier,
    rejected by the player, or confirmed), and the format and archetype it was confirmed in, which stay with
    the deck when a question about another format comes between."""

    model_config = _READ

    text: str | None = Field(default=None, alias="deck_text")
    cards: list[CardDetail] = Field(default_factory=list, alias="card_details")
    archetype: str | None = None  # the player's archetype in the current format (named without a list too)
    suggested: str | None = Field(default=None, alias="suggested_archetype")
    rejected: str | None = Field(default=None, alias="rejected_archetype")  # not suggested again
    kept_format: str | None = Field(default=None, alias="deck_format")
    kept_archetype: str | None = Field(default=None, alias="deck_archetype")

    @property
    def read(self) -> bool:
        """Cards of the list were found in the card data (a list of only unknown names was not read)."""
        return any(not card.unknown for card in self.cards)

    @property
    def on_the_table(self) -> bool:
        """A list was pasted (read or not)."""
        return bool(self.text or self.cards)

    @field_validator("cards", mode="wrap")
    @classmethod
    def _cards(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> list[CardDetail]:
        """Cards stored in a shape that no longer validates are dropped: the list is read again."""
        try:
            return list(handler(value))
        except ValidationError as exc:
            logger.warning("stored card_details dropped (%d errors); the deck is read again", exc.error_count())
            return []


# the state's keys that are the deck's
_DECK_KEYS = tuple(field.alias or name for name, field in Deck.model_fields.items())


def _stored(value: Any) -> bool:
    """Whether a state value says anything: None, an empty dict (an older checkpoint's "nothing") and an empty
    list read as the field's default."""
    return value is not None and not (isinstance(value, dict | list) and not value)


class Known(BaseModel):
    """What the conversation knows, read from the graph's state (``Known.of``): the slots the player filled,
    the deck, the matchup statistics fetched for it, the request in progress, the question awaiting an answer
    (with the slot it asks for), the last route, the formats with data and this turn's dropdown values."""

    model_config = _READ

    format: str | None = None
    days: int | None = None  # the window, in days
    opponent: str | None = Field(default=None, alias="opponent_archetype")
    draft_id: str | None = None
    deck: Deck = Field(default_factory=Deck)
    matchup_stats: DeckMatchupStatsOutput | None = None  # the deck's (archetype's), as get_deck_matchup_stats gave
    workflow: str | None = Field(default=None, alias="current_workflow")  # the request in progress
    task: str | None = Field(default=None, alias="current_task")
    pending: Pending | None = None
    route: Route | None = None
    formats: list[str] = Field(default_factory=list, alias="available_formats")
    context: TurnContext = Field(default_factory=TurnContext)  # this turn's dropdown values (until routed)
    tool_rounds: int = 0

    @classmethod
    def of(cls, state: Mapping[str, Any]) -> Known:
        """What ``state`` (the graph's, or a checkpoint's values) knows. Conversations stored in an older shape
        load too: missing keys, dicts for the route and the pending request, numbers stored as text."""
        return cls.model_validate(state)

    @model_validator(mode="before")
    @classmethod
    def _from_state(cls, data: Any) -> Any:
        if not isinstance(data, Mapping) or "deck" in data:
            return data
        said = {key: value for key, value in data.items() if _stored(value)}
        return {**said, "deck": {key: said[key] for key in _DECK_KEYS if key in said}}

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

    def state_value(self, key: str) -> Any:
        """The value of the state's ``key`` as JSON, or None: what a tool argument the state owns (a tool record's
        ``from_state``) is filled with."""
        values = self.model_dump(mode="json", by_alias=True)
        value = {**values, **values.pop("deck")}.get(key)
        return value if _stored(value) else None
