"""``GET /conversations/{conversation_id}``: a conversation's state and messages."""

from __future__ import annotations

from fastapi import APIRouter

from meta_mage.agent.conversation import ConversationNotFound
from meta_mage.api.deps import ConversationsDep, IssuedDep
from meta_mage.api.openapi import error_responses
from meta_mage.models.json import JsonObject

router = APIRouter(tags=["conversations"])


@router.get("/conversations/{conversation_id}", responses=error_responses(400, 404, 503))
async def conversation(conversation_id: str, conversations: ConversationsDep, issued: IssuedDep) -> JsonObject:
    """The conversation's state and messages; an id ``/welcome`` issued is claimed (created) here."""
    try:
        return await conversations.view(conversation_id)  # one read on the common path
    except ConversationNotFound:
        return await conversations.view(await conversations.claim(conversation_id, issued))
