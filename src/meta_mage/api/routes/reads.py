"""The read endpoints the local server has: ``/welcome``, ``/formats``, ``/archetypes``, ``/drafts``,
``/drafts/{draft_id}/pool`` (the small Powertools functions serve these in the cloud) and
``/archetypes/{archetype}/page`` (this app's only). Their query parameters are the tools' own arguments,
documented from the tools' input models."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter

from meta_mage.api.deps import ConversationsDep, QueryDep, ReadsDep, SettingsDep
from meta_mage.api.openapi import error_responses, query_parameters
from meta_mage.api.reads import reject_query
from meta_mage.models.archetype_page import ArchetypePageInput
from meta_mage.models.drafts import DraftPoolInput
from meta_mage.models.meta import ArchetypesInput

router = APIRouter(tags=["reads"])


@router.get("/welcome", responses=error_responses(400, 503))
async def welcome(
    query: QueryDep, reads: ReadsDep, conversations: ConversationsDep, settings: SettingsDep
) -> dict[str, Any]:
    """Start a conversation: its id, a welcome message, formats, workflows and tools."""
    reject_query(query)
    # off the event loop: DynamoDB reads, the LLM's welcome and (with MCP) the server's catalog block
    payload = await asyncio.to_thread(reads.welcome, conversations.deps.model, settings.llm_max_tokens)
    conversation_id = await conversations.start(payload)
    return {"conversation_id": conversation_id, **payload}


@router.get("/formats", responses=error_responses(400))
def formats(query: QueryDep, reads: ReadsDep) -> dict[str, Any]:
    """The formats with data, and their date ranges and counts."""
    return reads.formats(query)


@router.get(
    "/archetypes",
    responses=error_responses(400, 404),
    openapi_extra={"parameters": query_parameters(ArchetypesInput)},
)
def archetypes(query: QueryDep, reads: ReadsDep) -> dict[str, Any]:
    """A format's archetypes with their meta share in a window."""
    return reads.archetypes(query)


@router.get(
    "/archetypes/{archetype}/page",
    responses=error_responses(400, 404),
    openapi_extra={"parameters": query_parameters(ArchetypePageInput, path={"archetype"})},
)
def archetype_page(archetype: str, query: QueryDep, reads: ReadsDep) -> dict[str, Any]:
    """An archetype's page: its stock list (Frank Karsten's aggregate), its best-finishing list, its playbook,
    its record and matchups, and both lists as MTGO / Arena text (``get_archetype_page``)."""
    return reads.archetype_page(archetype, query)


@router.get("/drafts", responses=error_responses(400))
def drafts(query: QueryDep, reads: ReadsDep) -> dict[str, Any]:
    """The imported cube drafts."""
    return reads.drafts(query)


@router.get(
    "/drafts/{draft_id}/pool",
    responses=error_responses(400, 404),
    openapi_extra={"parameters": query_parameters(DraftPoolInput, path={"draft_id"})},
)
def draft_pool(draft_id: str, query: QueryDep, reads: ReadsDep) -> dict[str, Any]:
    """A draft's card pool, filtered and grouped like the ``get_draft_pool`` tool."""
    return reads.draft_pool(draft_id, query)
