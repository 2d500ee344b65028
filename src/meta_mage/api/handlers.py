"""The small functions' Powertools event handler (HTTP API): welcome, formats, archetypes, drafts
and a draft's pool. No langchain, langgraph, fastapi or agent import; the welcome message may call a
Bedrock model through ``meta_mage.bedrock`` (boto3 alone) when one is configured."""

from __future__ import annotations

import json
import os
import uuid
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, CORSConfig, Response, content_types
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import BaseModel

from meta_mage.api.bodies import FormatsBody, NewConversation
from meta_mage.api.errors import http_error
from meta_mage.api.reads import ReadApi, reject_query, single_values
from meta_mage.bedrock import BedrockText, bedrock_model_id
from meta_mage.config import get_settings
from meta_mage.errors import MetaMageError
from meta_mage.models.json import JsonObject
from meta_mage.observability import logger, metrics
from meta_mage.snapstart import RestoreHooks, register_with_runtime
from meta_mage.storage.locks import IssuedConversations
from meta_mage.tools.registry import FamilyRegistry
from meta_mage.wiring import Wiring

if TYPE_CHECKING:  # the models load with the tool family that answers
    from meta_mage.models.drafts import DraftPoolResult, ListDraftsOutput
    from meta_mage.models.meta import ArchetypesOutput


def json_body(body: object) -> str:
    """A route's answer as JSON: a response model dumped by pydantic (Powertools' own encoder would first import
    its OpenAPI layer, a cold start's cost)."""
    return json.dumps(body.model_dump(mode="json") if isinstance(body, BaseModel) else body, separators=(",", ":"))


app = APIGatewayHttpResolver(
    cors=CORSConfig(allow_origin=get_settings().cors_origin, max_age=300), serializer=json_body
)


@lru_cache(maxsize=1)
def wiring() -> Wiring:
    """The function's collaborators over the configured tables, made on first use, kept for warm invocations."""
    return Wiring(get_settings())


@lru_cache(maxsize=1)
def reads() -> ReadApi:
    """The read API over the configured tables."""
    made = wiring()
    return ReadApi(
        FamilyRegistry(), made.tool_context, welcome_messages=made.welcome_messages
    )  # only the families asked for


def _query() -> dict[str, str]:
    """The query parameters, each given once. HTTP API (payload 2.0) joins a repeated parameter's values
    with commas in ``queryStringParameters`` (as does Powertools' ``resolved_query_string_parameters``,
    which splits them again, a value's own commas too), so only ``rawQueryString`` tells ``?a=1&a=2``
    from ``?a=1,2``."""
    event = app.current_event
    raw = event.get("rawQueryString")
    if raw is None:  # an event without it (hand-written): the joined parameters are all there is
        return dict(event.query_string_parameters or {})
    return single_values(parse_qsl(raw, keep_blank_values=True))


@lru_cache(maxsize=1)
def issued() -> IssuedConversations:
    """Where ``/welcome`` records the conversation ids it hands out (the chat function creates them)."""
    return wiring().issued


def _warm() -> None:
    """Make the collaborators a first request would make (into the snapshot at init; again after a restore)."""
    reads()
    issued()


def _rebuild() -> None:
    """After a SnapStart restore: forget the snapshot's collaborators and make new ones before the first request."""
    for made in (wiring, reads, issued):
        made.cache_clear()
    _warm()


snapstart = RestoreHooks(_rebuild)
if register_with_runtime(snapstart) and os.environ.get("AWS_LAMBDA_INITIALIZATION_TYPE") == "snap-start":
    _warm()


@app.get("/welcome")
def welcome() -> NewConversation:
    """A new conversation id (server-made), the welcome message, formats, workflows and tools."""
    reject_query(_query())
    settings = get_settings()
    payload = reads().welcome(welcome_model(), settings.llm_max_tokens)
    conversation_id = str(uuid.uuid4())
    kept = payload.model_dump(mode="json", include={"message", "available_formats", "workflows", "tool_catalog"})
    issued().issue(conversation_id, kept, settings.conversation_ttl_seconds)
    return NewConversation.opened(conversation_id, payload)


@lru_cache(maxsize=1)
def welcome_model() -> Any | None:
    """Bedrock through boto3 alone when a Bedrock model is configured (no LangChain here), else None."""
    settings = get_settings()
    model_id = bedrock_model_id(settings.model)
    if model_id is None:
        return None
    return BedrockText(model_id, max_tokens=min(settings.llm_max_tokens, 400), temperature=settings.llm_temperature)


@app.get("/formats")
def formats() -> FormatsBody:
    return reads().formats(_query())


@app.get("/archetypes")
def archetypes() -> ArchetypesOutput:
    return reads().archetypes(_query())


@app.get("/drafts")
def drafts() -> ListDraftsOutput:
    return reads().drafts(_query())


@app.get("/drafts/<draft_id>/pool")
def draft_pool(draft_id: str) -> DraftPoolResult:
    return reads().draft_pool(draft_id, _query())


@app.exception_handler(MetaMageError)  # type: ignore[untyped-decorator]
def domain_error(exc: MetaMageError) -> Response[str]:
    status, body = http_error(exc)
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=json.dumps(body))


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
@metrics.log_metrics(capture_cold_start_metric=True)
def handle(event: JsonObject, context: LambdaContext) -> JsonObject:
    """Entry point of every small function (each is routed only its own paths by the template)."""
    response = app.resolve(event, context)
    response.setdefault("headers", {})["X-Content-Type-Options"] = "nosniff"  # JSON is never sniffed as a page
    metrics.add_metric(name="Requests", unit=MetricUnit.Count, value=1)
    return response
