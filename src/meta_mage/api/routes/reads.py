"""The read endpoints the local server has: ``/welcome``, ``/formats``, ``/archetypes``, ``/drafts``,
``/drafts/{draft_id}/pool`` (the small Powertools functions serve these in the cloud) and
``/archetypes/{archetype}/page`` (this app's only). Their query parameters are the tools' own arguments,
documented from the tools' input models."""

from __future__ import annotations

import asyncio
from typing import TypedDict

from fastapi import APIRouter
from pydantic import BaseModel

from meta_mage.api.bodies import FormatsBody, NewConversation
from meta_mage.api.deps import ConversationsDep, QueryDep, ReadsDep, SettingsDep
from meta_mage.api.openapi import error_responses, query_parameters
from meta_mage.api.reads import reject_query
from meta_mage.models.archetype_page import ArchetypePageInput, ArchetypePageOutput
from meta_mage.models.drafts import DraftPoolInput, DraftPoolResult, ListDraftsOutput
from meta_mage.models.json import JsonObject
from meta_mage.models.meta import ArchetypesInput, ArchetypesOutput

router = APIRouter(tags=["reads"])


class ToolRouteDocs(TypedDict):
    responses: dict[int | str, JsonObject]
    openapi_extra: JsonObject


def tool_arguments(input_model: type[BaseModel], *path: str) -> ToolRouteDocs:
    """The document of a route that answers from one tool: its arguments as query parameters (those not
    in the ``path``), refused with 400 and not found with 404."""
    parameters = query_parameters(input_model, path=set(path))
    return {"responses": error_responses(400, 404), "openapi_extra": {"parameters": parameters}}


@router.get("/formats", responses=error_responses(400))
def formats(query: QueryDep, reads: ReadsDep) -> FormatsBody:
    """The formats with data, and their date ranges and counts."""
    return reads.formats(query)


@router.get("/welcome", responses=error_responses(400, 503))
async def welcome(
    query: QueryDep, reads: ReadsDep, conversations: ConversationsDep, settings: SettingsDep
) -> NewConversation:
    """Start a conversation: its id, a welcome message, formats, workflows and tools."""
    reject_query(query)
    # off the event loop: DynamoDB reads, the LLM's welcome and (with MCP) the server's catalog block
    payload = await asyncio.to_thread(reads.welcome, conversations.deps.model, settings.llm_max_tokens)
    conversation_id = await conversations.start(payload.model_dump(mode="json"))
    return NewConversation.opened(conversation_id, payload)


@router.get("/archetypes/{archetype}/page", **tool_arguments(ArchetypePageInput, "archetype"))
def archetype_page(archetype: str, query: QueryDep, reads: ReadsDep) -> ArchetypePageOutput:
    """An archetype's page: its stock list (Frank Karsten's aggregate), its best-finishing list, its playbook,
    its record and matchups, and both lists as MTGO / Arena text (``get_archetype_page``)."""
    return reads.archetype_page(archetype, query)


@router.get("/archetypes", **tool_arguments(ArchetypesInput))
def archetypes(query: QueryDep, reads: ReadsDep) -> ArchetypesOutput:
    """A format's archetypes with their meta share in a window."""
    return reads.archetypes(query)


@router.get("/drafts", responses=error_responses(400))
def drafts(query: QueryDep, reads: ReadsDep) -> ListDraftsOutput:
    """The imported cube drafts."""
    return reads.drafts(query)


@router.get("/drafts/{draft_id}/pool", **tool_arguments(DraftPoolInput, "draft_id"))
def draft_pool(draft_id: str, query: QueryDep, reads: ReadsDep) -> DraftPoolResult:
    """A draft's card pool, filtered and grouped like the ``get_draft_pool`` tool."""
    return reads.draft_pool(draft_id, query)
