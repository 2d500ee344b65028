"""The FastAPI app: ``POST /chat`` (SSE), conversations, health, and — for the local server — the
read endpoints and a small chat page. On Lambda it runs under uvicorn via the Lambda Web Adapter."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import HTMLResponse, JSONResponse
from sse_starlette.sse import EventSourceResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from meta_mage.agent.conversation import ConversationNotFound, Conversations, canonical_id
from meta_mage.agent.state import TurnContext
from meta_mage.agent.turn_lease import TurnLease
from meta_mage.api.errors import Conflict, PayloadTooLarge, http_error
from meta_mage.api.openapi import chat_request, error_responses, query_parameters
from meta_mage.api.reads import ReadApi, reject_query, single_values
from meta_mage.api.request_body import BodyLimit, load_json
from meta_mage.config import Settings
from meta_mage.errors import InvalidArgument, MetaMageError, clip
from meta_mage.storage.locks import IssuedConversations, LocksRepository

PAGE = Path(__file__).with_name("static") / "index.html"
SSE_PING_SECONDS = 15
CONTEXT_FIELDS = sorted(TurnContext.model_fields)
HTTP_ERROR_CODES = {404: "not_found", 405: "method_not_allowed"}
CLAIM_WAITS = (0.1, 0.3)  # seconds before looking again for a conversation another request may be creating


def _is_unicode(text: str) -> bool:
    """False for a string JSON can carry but UTF-8 cannot (a lone surrogate such as ``\\ud800``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_context(context: dict[str, Any]) -> None:
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


def _parse_chat_body(raw: bytes, settings: Settings) -> tuple[Any, str | None, Any]:
    """The body's message, conversation id and context (the app's ``BodyLimit`` has capped its size)."""
    body = load_json(raw or b"null")
    if not isinstance(body, dict):
        raise InvalidArgument("request body must be a JSON object with 'message'")
    unknown = sorted(set(body) - {"message", "conversation_id", "context"})
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
    return message, conversation_id, context


def create_app(
    settings: Settings,
    conversations: Conversations,
    reads: ReadApi,
    locks: LocksRepository,
    issued: IssuedConversations,
    *,
    serve_reads: bool = True,
    serve_page: bool = False,
) -> FastAPI:
    """The chat API over ``conversations``; ``serve_reads`` adds /welcome, /formats, /archetypes,
    /drafts (the small Lambdas serve those in the cloud); ``serve_page`` adds the chat page at ``/``.
    ``issued`` holds the ids the small ``/welcome`` function hands out, which become conversations here."""
    app = FastAPI(
        title="MTG Meta Mage",
        description="A Magic: The Gathering coach over real tournament results.",
        version="0.1.0",
    )
    app.state.model_description = conversations.model_choice.description
    # added before CORS, so CORS wraps it and its refusals carry the CORS headers
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes, timeout=settings.body_timeout_seconds)
    app.add_middleware(
        CORSMiddleware,
        allow_origins=[settings.cors_origin],
        allow_methods=["GET", "POST"],
        allow_headers=["content-type", "authorization"],
    )

    @app.exception_handler(MetaMageError)
    async def domain_error(request: Request, exc: MetaMageError) -> JSONResponse:
        status, body = http_error(exc)
        return JSONResponse(body, status_code=status)

    @app.exception_handler(StarletteHTTPException)
    async def http_exception(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        """Routing errors (unknown path, wrong method) in the same JSON shape as every other error."""
        body = {
            "error": HTTP_ERROR_CODES.get(exc.status_code, "http_error"),
            "message": f"{request.method} {clip(request.url.path)}: {exc.detail}",
        }
        return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"] if p not in {"body", "query", "path"})
        return JSONResponse(
            {"error": "validation_error", "message": f"{field}: {first['msg']}", "field": field}, status_code=422
        )

    async def existing(conversation_id: str) -> str:
        """The conversation's canonical id; 404 unless it exists or ``/welcome`` issued it (it is then
        created here, holding the welcome message)."""
        conversation_id = canonical_id(conversation_id)
        welcome = await claim_unless_started(conversation_id)
        if welcome is not None:
            try:
                await conversations.start(welcome, conversation_id=conversation_id)
            except Exception:
                # put the id back, so the conversation can still be started with it
                await asyncio.to_thread(issued.issue, conversation_id, welcome, settings.conversation_ttl_seconds)
                raise
        return conversation_id

    async def claim_unless_started(conversation_id: str) -> dict[str, Any] | None:
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

    @app.get("/healthz")
    def healthz() -> dict[str, Any]:
        """Liveness, and which model the coach uses."""
        return {"status": "ok", "model": conversations.model_choice.description}

    @app.post(
        "/chat",
        response_class=EventSourceResponse,
        responses={
            200: {"description": "The turn as server-sent events", "content": {"text/event-stream": {}}},
            **error_responses(400, 404, 408, 409, 413, 503),
        },
        openapi_extra={"requestBody": chat_request(settings.max_message_chars)},
    )
    async def chat(request: Request) -> EventSourceResponse:
        """One turn of a conversation, streamed as server-sent events (see the README for events)."""
        message, conversation_id, context = _parse_chat_body(await request.body(), settings)
        _, turn_context = conversations.validate(message, context)
        if turn_context.draft_id:  # a stale dropdown value: 404 now, not a turn of failing tool calls
            await asyncio.to_thread(reads.check_draft, turn_context.draft_id, "context.draft_id")
        create = conversation_id is None
        if conversation_id is None:
            conversation_id = str(uuid.uuid4())
        else:
            conversation_id = await existing(conversation_id)  # 404 before the stream starts
        lease = await TurnLease.take(locks, conversation_id, settings.chat_lock_seconds)
        if lease is None:
            raise Conflict(
                f"conversation {conversation_id} is already answering another message; retry when it is done",
                field="conversation_id",
            )
        turn = conversations.turn(message, conversation_id, context, create=create, lock_owner=lease.owner)

        async def events() -> AsyncIterator[dict[str, str]]:
            async for event in lease.run(turn, settings.turn_deadline_seconds):
                yield {"event": event.event, "data": json.dumps(event.data, ensure_ascii=False)}

        return EventSourceResponse(events(), ping=SSE_PING_SECONDS)

    @app.get("/conversations/{conversation_id}", responses=error_responses(400, 404, 503))
    async def conversation(conversation_id: str) -> dict[str, Any]:
        """The conversation's state and messages."""
        try:
            return await conversations.view(conversation_id)  # one read on the common path
        except ConversationNotFound:
            return await conversations.view(await existing(conversation_id))

    if serve_reads:

        @app.get("/welcome", responses=error_responses(400, 503))
        async def welcome(request: Request) -> dict[str, Any]:
            """Start a conversation: its id, a welcome message, formats, workflows and tools."""
            reject_query(single_values(request.query_params.multi_items()))
            # off the event loop: DynamoDB reads, the LLM's welcome and (with MCP) the server's catalog block
            payload = await asyncio.to_thread(reads.welcome, conversations.deps.model, settings.llm_max_tokens)
            conversation_id = await conversations.start(payload)
            return {"conversation_id": conversation_id, **payload}

        @app.get("/formats", responses=error_responses(400))
        def formats(request: Request) -> dict[str, Any]:
            """The formats with data, and their date ranges and counts."""
            return reads.formats(single_values(request.query_params.multi_items()))

        @app.get(
            "/archetypes",
            responses=error_responses(400, 404),
            openapi_extra={"parameters": query_parameters(reads.registry.get("get_format_archetypes"))},
        )
        def archetypes(request: Request) -> dict[str, Any]:
            """A format's archetypes with their meta share in a window."""
            return reads.archetypes(single_values(request.query_params.multi_items()))

        @app.get("/drafts", responses=error_responses(400))
        def drafts(request: Request) -> dict[str, Any]:
            """The imported cube drafts."""
            return reads.drafts(single_values(request.query_params.multi_items()))

        @app.get(
            "/drafts/{draft_id}/pool",
            responses=error_responses(400, 404),
            openapi_extra={"parameters": query_parameters(reads.registry.get("get_draft_pool"), path={"draft_id"})},
        )
        def draft_pool(draft_id: str, request: Request) -> dict[str, Any]:
            """A draft's card pool, filtered and grouped like the ``get_draft_pool`` tool."""
            return reads.draft_pool(draft_id, single_values(request.query_params.multi_items()))

    if serve_page:

        @app.get("/", response_class=HTMLResponse, include_in_schema=False)
        def page() -> str:
            return PAGE.read_text(encoding="utf-8")

    return app
