"""``GET /healthz``."""

from __future__ import annotations

from fastapi import APIRouter

from meta_mage.api.deps import ConversationsDep
from meta_mage.models.json import JsonObject

router = APIRouter(tags=["health"])


@router.get("/healthz")
def healthz(conversations: ConversationsDep) -> JsonObject:
    """Liveness, and which model the coach uses."""
    return {"status": "ok", "model": conversations.model_choice.description}
