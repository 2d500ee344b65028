"""The FastAPI app: ``POST /chat`` (SSE), conversations, health, and — for the local server — the
read endpoints and a small chat page. On Lambda it runs under uvicorn via the Lambda Web Adapter.

The routes are in ``meta_mage.api.routes`` (one router per resource) and reach the app's collaborators
through ``meta_mage.api.deps``; here the app is built: its state, middleware, error handlers, routers."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from meta_mage.agent.conversation import Conversations
from meta_mage.api.errors import http_error
from meta_mage.api.guards import OwnOriginOnly, SecurityHeaders
from meta_mage.api.openapi import document_message_limit
from meta_mage.api.reads import ReadApi
from meta_mage.api.request_body import BodyLimit
from meta_mage.api.routes.chat import router as chat_router
from meta_mage.api.routes.conversations import router as conversations_router
from meta_mage.api.routes.health import router as health_router
from meta_mage.api.routes.page import PAGE_HEADERS_BY_PATH
from meta_mage.api.routes.page import router as page_router
from meta_mage.api.routes.reads import router as reads_router
from meta_mage.config import Settings
from meta_mage.errors import MetaMageError, clip
from meta_mage.storage.locks import IssuedConversations, LocksRepository

HTTP_ERROR_CODES = {404: "not_found", 405: "method_not_allowed"}


async def domain_error(request: Request, exc: MetaMageError) -> JSONResponse:
    status, body = http_error(exc)
    return JSONResponse(body, status_code=status)


async def http_exception(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    """Routing errors (unknown path, wrong method) in the same JSON shape as every other error."""
    body = {
        "error": HTTP_ERROR_CODES.get(exc.status_code, "http_error"),
        "message": f"{request.method} {clip(request.url.path)}: {exc.detail}",
    }
    return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)


async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    first = exc.errors()[0]
    field = ".".join(str(p) for p in first["loc"] if p not in {"body", "query", "path"})
    return JSONResponse(
        {"error": "validation_error", "message": f"{field}: {first['msg']}", "field": field}, status_code=422
    )


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
        docs_url=None,  # served by routes/page.py from the packaged Swagger UI: no CDN, works offline
        redoc_url=None,
        title="MTG Meta Mage",
        description="A Magic: The Gathering coach over real tournament results.",
        version="0.1.0",
    )
    # what meta_mage.api.deps hands the routes
    app.state.settings = settings
    app.state.conversations = conversations
    app.state.reads = reads
    app.state.locks = locks
    app.state.issued = issued
    app.state.model_description = conversations.model_choice.description
    # added before CORS, so CORS wraps it and its refusals carry the CORS headers
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes, timeout=settings.body_timeout_seconds)
    app.add_middleware(
        CORSMiddleware,
        allow_origins=[settings.cors_origin],
        allow_methods=["GET", "POST"],
        allow_headers=["content-type", "authorization"],
    )
    # nosniff on every answer (the pages' CSP and frame headers too); outermost, on the local server (the one
    # serving the page): only its own host names and its own page's origin get past (see docs/security.md)
    app.add_middleware(SecurityHeaders, by_path=PAGE_HEADERS_BY_PATH if serve_page else {})
    if serve_page:
        app.add_middleware(OwnOriginOnly, settings=settings)
    # errors mapped to HTTP in one place: domain errors by meta_mage.api.errors, the framework's alike
    app.exception_handler(MetaMageError)(domain_error)
    app.exception_handler(StarletteHTTPException)(http_exception)
    app.exception_handler(RequestValidationError)(validation_error)

    app.include_router(health_router)
    app.include_router(chat_router)
    app.include_router(conversations_router)
    if serve_reads:
        app.include_router(reads_router)
    if serve_page:
        app.include_router(page_router)
    document_message_limit(app, settings.max_message_chars)
    return app
