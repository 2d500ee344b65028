"""``GET /healthz``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from meta_mage.api.deps import ConversationsDep

router = APIRouter(tags=["health"])


@router.get("/healthz")
def healthz(conversations: ConversationsDep) -> dict[str, Any]:
    """Liveness, and which model the coach uses."""
    return {"status": "ok", "model": conversations.model_choice.description}
