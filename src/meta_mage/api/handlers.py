"""The small functions' Powertools event handler (HTTP API): welcome, formats, archetypes, drafts
and a draft's pool. No langchain, langgraph or fastapi import; the welcome message may call the
LLM through ``meta_mage.agent.llm``, imported only when a model is configured."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, CORSConfig, Response, content_types
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from meta_mage.api.errors import http_error
from meta_mage.api.reads import ReadApi
from meta_mage.config import get_settings
from meta_mage.errors import MetaMageError
from meta_mage.observability import logger, metrics, tracer
from meta_mage.tools.context import ToolContext
from meta_mage.tools.registry import build_registry

app = APIGatewayHttpResolver(cors=CORSConfig(allow_origin=get_settings().cors_origin, max_age=300))


@lru_cache(maxsize=1)
def reads() -> ReadApi:
    """The read API over the configured tables, made on first use and kept for warm invocations."""
    return ReadApi(build_registry(), ToolContext.from_settings(get_settings()))


def _query() -> dict[str, str]:
    return dict(app.current_event.query_string_parameters or {})


@app.get("/welcome")
@tracer.capture_method
def welcome() -> dict[str, Any]:
    settings = get_settings()
    model = None
    if settings.model:
        from meta_mage.agent.llm import build_chat_model

        model = build_chat_model(settings).model
    # conversations are created by the chat function (POST /chat with conversation_id null)
    return {"conversation_id": None, **reads().welcome(model, settings.llm_max_tokens)}


@app.get("/formats")
@tracer.capture_method
def formats() -> dict[str, Any]:
    return reads().formats()


@app.get("/archetypes")
@tracer.capture_method
def archetypes() -> dict[str, Any]:
    return reads().archetypes(_query())


@app.get("/drafts")
@tracer.capture_method
def drafts() -> dict[str, Any]:
    return reads().drafts()


@app.get("/drafts/<draft_id>/pool")
@tracer.capture_method
def draft_pool(draft_id: str) -> dict[str, Any]:
    return reads().draft_pool(draft_id, _query())


@app.exception_handler(MetaMageError)  # type: ignore[untyped-decorator]
def domain_error(exc: MetaMageError) -> Response[str]:
    status, body = http_error(exc)
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=json.dumps(body))


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@tracer.capture_lambda_handler
@metrics.log_metrics(capture_cold_start_metric=True)
def handle(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Entry point of every small function (each is routed only its own paths by the template)."""
    response = app.resolve(event, context)
    metrics.add_metric(name="Requests", unit=MetricUnit.Count, value=1)
    return response
