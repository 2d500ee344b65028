"""``POST /chat``: one turn of a conversation, streamed as server-sent events, while the turn holds the
conversation's lease."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator

from fastapi import APIRouter
from sse_starlette.sse import EventSourceResponse

from meta_mage.agent.turn_lease import TurnLease
from meta_mage.api.deps import ChatBody, ConversationsDep, IssuedDep, LocksDep, ReadsDep, SettingsDep
from meta_mage.api.errors import Conflict
from meta_mage.api.openapi import chat_request_body, error_responses

SSE_PING_SECONDS = 15

router = APIRouter(tags=["chat"])


@router.post(
    "/chat",
    response_class=EventSourceResponse,
    responses={
        200: {"description": "The turn as server-sent events", "content": {"text/event-stream": {}}},
        **error_responses(400, 404, 408, 409, 413, 415, 503),
    },
    # the body is read by the ChatBody dependency (see meta_mage.api.chat_request), so it is described
    # here, from the same model; create_app adds the deployment's message limit
    openapi_extra={"requestBody": chat_request_body()},
)
async def chat(
    body: ChatBody,
    settings: SettingsDep,
    conversations: ConversationsDep,
    reads: ReadsDep,
    locks: LocksDep,
    issued: IssuedDep,
) -> EventSourceResponse:
    """One turn of a conversation, streamed as server-sent events (see the README for events)."""
    if body.context is not None and body.context.draft_id:
        # a stale dropdown value: 404 now, not a turn of failing tool calls
        await asyncio.to_thread(reads.check_draft, body.context.draft_id, "context.draft_id")
    conversation_id = body.conversation_id
    create = conversation_id is None
    if conversation_id is None:
        conversation_id = str(uuid.uuid4())
    else:
        conversation_id = await conversations.claim(conversation_id, issued)  # 404 before the stream
    lease = await TurnLease.take(locks, conversation_id, settings.chat_lock_seconds)
    if lease is None:
        raise Conflict(
            f"conversation {conversation_id} is already answering another message; retry when it is done",
            field="conversation_id",
        )
    # the body was checked once, by parse_chat_request: the coach runs it without checking again
    turn = conversations.run(body.turn_request(conversation_id, create=create, lock_owner=lease.owner))

    async def events() -> AsyncIterator[dict[str, str]]:
        async for event in lease.run(turn, settings.turn_deadline_seconds):
            yield {"event": event.event, "data": json.dumps(event.data, ensure_ascii=False)}

    return EventSourceResponse(events(), ping=SSE_PING_SECONDS)
