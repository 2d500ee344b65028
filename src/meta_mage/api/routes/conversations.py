"""``GET /conversations/{conversation_id}``, and ``existing``: a conversation id the client gives, made
into an existing conversation (``/chat`` uses it too)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter

from meta_mage.agent.conversation import ConversationNotFound, Conversations, canonical_id
from meta_mage.api.deps import ConversationsDep, IssuedDep, SettingsDep
from meta_mage.api.openapi import error_responses
from meta_mage.config import Settings
from meta_mage.storage.locks import IssuedConversations

CLAIM_WAITS = (0.1, 0.3)  # seconds before looking again for a conversation another request may be creating

router = APIRouter(tags=["conversations"])


async def existing(
    conversation_id: str, conversations: Conversations, issued: IssuedConversations, settings: Settings
) -> str:
    """The conversation's canonical id; 404 unless it exists or ``/welcome`` issued it (it is then
    created here, holding the welcome message)."""
    conversation_id = canonical_id(conversation_id)
    welcome = await _claim_unless_started(conversation_id, conversations, issued)
    if welcome is not None:
        try:
            await conversations.start(welcome, conversation_id=conversation_id)
        except Exception:
            # put the id back, so the conversation can still be started with it
            await asyncio.to_thread(issued.issue, conversation_id, welcome, settings.conversation_ttl_seconds)
            raise
    return conversation_id


async def _claim_unless_started(
    conversation_id: str, conversations: Conversations, issued: IssuedConversations
) -> dict[str, Any] | None:
    """None when the conversation exists; its welcome payload when this request claimed the issued id.
    A request that finds neither looks again briefly: another one may be creating it right now."""
    waits = iter(CLAIM_WAITS)
    while True:
        try:
            await conversations.load(conversation_id)
            return None
        except ConversationNotFound:
            welcome = await asyncio.to_thread(issued.claim, conversation_id)
            if welcome is not None:
                return welcome
            wait = next(waits, None)
            if wait is None:
                raise
            await asyncio.sleep(wait)


@router.get("/conversations/{conversation_id}", responses=error_responses(400, 404, 503))
async def conversation(
    conversation_id: str, conversations: ConversationsDep, issued: IssuedDep, settings: SettingsDep
) -> dict[str, Any]:
    """The conversation's state and messages."""
    try:
        return await conversations.view(conversation_id)  # one read on the common path
    except ConversationNotFound:
        return await conversations.view(await existing(conversation_id, conversations, issued, settings))
