"""The routes' dependencies: the app's collaborators, which ``create_app`` puts on ``app.state``, each as
an ``Annotated`` alias; the query parameters given once; ``/chat``'s body read into a ``ChatRequest``.

The getters are ``async``: FastAPI runs a plain ``def`` dependency in a worker thread."""

from __future__ import annotations

from typing import Annotated, cast

from fastapi import Depends, Request

from meta_mage.agent.conversation import Conversations
from meta_mage.api.chat_request import ChatRequest, parse_chat_request
from meta_mage.api.reads import ReadApi, single_values
from meta_mage.api.request_body import require_json
from meta_mage.config import Settings
from meta_mage.storage.locks import IssuedConversations, LocksRepository


async def get_app_settings(request: Request) -> Settings:
    return cast(Settings, request.app.state.settings)


async def get_conversations(request: Request) -> Conversations:
    return cast(Conversations, request.app.state.conversations)


async def get_reads(request: Request) -> ReadApi:
    return cast(ReadApi, request.app.state.reads)


async def get_locks(request: Request) -> LocksRepository:
    return cast(LocksRepository, request.app.state.locks)


async def get_issued(request: Request) -> IssuedConversations:
    return cast(IssuedConversations, request.app.state.issued)


SettingsDep = Annotated[Settings, Depends(get_app_settings)]
ConversationsDep = Annotated[Conversations, Depends(get_conversations)]
ReadsDep = Annotated[ReadApi, Depends(get_reads)]
LocksDep = Annotated[LocksRepository, Depends(get_locks)]
IssuedDep = Annotated[IssuedConversations, Depends(get_issued)]


async def get_query(request: Request) -> dict[str, str]:
    """The query parameters by name, each given once (a repeated one is refused, naming it)."""
    return single_values(request.query_params.multi_items())


async def get_chat_request(request: Request, settings: SettingsDep, conversations: ConversationsDep) -> ChatRequest:
    """``/chat``'s body, read from its bytes (see ``meta_mage.api.chat_request`` for why not by FastAPI); only
    ``application/json``, refused before a byte of it is read."""
    require_json(request.headers.get("content-type"))
    return parse_chat_request(await request.body(), settings, conversations)


QueryDep = Annotated[dict[str, str], Depends(get_query)]
ChatBody = Annotated[ChatRequest, Depends(get_chat_request)]
