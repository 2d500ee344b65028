"""``POST /chat``'s body: ``ChatRequest``, the model the route receives and the OpenAPI document shows, read
from the raw bytes by ``parse_chat_request``. The bytes are parsed here, not by FastAPI, so that every
refusal keeps the API's statuses and names its field: 400 ``invalid_argument`` for malformed JSON (NaN,
nesting too deep, a lone surrogate), an unknown field or a wrong type, and 413 for a message over the
limit; FastAPI's own body validation would answer 422 and accept what ``load_json`` refuses."""

from __future__ import annotations

from dataclasses import replace

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from meta_mage.agent.conversation import Conversations, TurnRequest
from meta_mage.agent.state import TurnContext
from meta_mage.api.errors import PayloadTooLarge
from meta_mage.api.request_body import load_json
from meta_mage.config import Settings
from meta_mage.errors import InvalidArgument, clip
from meta_mage.models.json import JsonObject

CONTEXT_FIELDS = sorted(TurnContext.model_fields)


class ChatContext(TurnContext):
    """Dropdown values sent with a request; each fills the slot of the same name."""

    model_config = ConfigDict(extra="forbid", title="ChatContext")


class ChatRequest(BaseModel):
    """One message of a conversation, with the dropdowns' values."""

    model_config = ConfigDict(extra="forbid", title="ChatRequest")

    message: str = Field(min_length=1, description="The user's message (not blank)")
    conversation_id: str | None = Field(
        default=None,
        description="The id /welcome or an earlier turn's metadata event gave; null starts a conversation",
    )
    context: ChatContext | None = Field(
        default=None, description="Dropdown values, each filling the slot of the same name"
    )

    _turn: TurnRequest | None = PrivateAttr(default=None)  # the coach's check of message and context

    def turn_request(self, conversation_id: str, *, create: bool, lock_owner: str) -> TurnRequest:
        """The turn the coach runs: the message and context as ``parse_chat_request`` had the coach check
        them (once), for ``conversation_id`` under ``lock_owner``'s lease."""
        if self._turn is None:
            raise RuntimeError("ChatRequest.turn_request: the body was not read by parse_chat_request")
        return replace(self._turn, conversation_id=conversation_id, create=create, lock_owner=lock_owner)


BODY_FIELDS = frozenset(ChatRequest.model_fields)


def _is_unicode(text: str) -> bool:
    """False for a string JSON can carry but UTF-8 cannot (a lone surrogate such as ``\\ud800``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_context(context: JsonObject) -> None:
    """Refuse what the dropdown context's model would silently drop or coerce."""
    unknown = sorted(set(context) - set(CONTEXT_FIELDS))
    if unknown:
        raise InvalidArgument(
            f"context.{clip(unknown[0])}: unexpected field; allowed: {', '.join(CONTEXT_FIELDS)}",
            field=f"context.{unknown[0]}",
            allowed=CONTEXT_FIELDS,
        )
    if isinstance(context.get("days"), bool):  # pydantic would read true as 1 day
        raise InvalidArgument(
            "context.days: must be a whole number of days (1-365), not true/false", field="context.days"
        )


def parse_chat_request(raw: bytes, settings: Settings, conversations: Conversations) -> ChatRequest:
    """The body as a ``ChatRequest``, checked once: its shape here, then its message and context by the
    coach's own ``Conversations.request``, whose ``TurnRequest`` the route hands to ``Conversations.run``
    (the app's ``BodyLimit`` has capped the body's size)."""
    body = load_json(raw or b"null")
    if not isinstance(body, dict):
        raise InvalidArgument("request body must be a JSON object with 'message'")
    unknown = sorted(set(body) - BODY_FIELDS)
    if unknown:
        raise InvalidArgument(f"{clip(unknown[0])}: unexpected field", field=unknown[0])
    message, conversation_id, context = body.get("message"), body.get("conversation_id"), body.get("context")
    if isinstance(message, str) and len(message) > settings.max_message_chars:
        raise PayloadTooLarge(
            f"message is {len(message)} characters; the limit is {settings.max_message_chars}", field="message"
        )
    if conversation_id is not None and not isinstance(conversation_id, str):
        raise InvalidArgument("conversation_id must be a string or null", field="conversation_id")
    if context is not None and not isinstance(context, dict):
        raise InvalidArgument("context must be an object or null", field="context")
    if isinstance(message, str) and not _is_unicode(message):
        raise InvalidArgument(
            "message: not valid Unicode text (it holds a lone surrogate such as \\ud800)", field="message"
        )
    if context:
        _check_context(context)
    turn = conversations.request(message, context)  # the coach's one check of the message and context
    # every value is checked above: built without validating again
    request = ChatRequest.model_construct(
        message=turn.message,
        conversation_id=conversation_id,
        context=None if context is None else ChatContext.model_construct(**turn.context.model_dump(exclude_none=True)),
    )
    request._turn = turn
    return request
