"""What the OpenAPI document says about what the routes read themselves: ``/chat``'s body (the
``ChatRequest`` model's schema; the route reads the raw bytes, so that every refusal names its field), the
read endpoints' query parameters (the tools' own input schemas) and the error responses."""

from __future__ import annotations

from typing import Any, cast

from fastapi import FastAPI
from pydantic import BaseModel, Field

from meta_mage.api.chat_request import ChatRequest
from meta_mage.models.json import JsonObject


class ErrorBody(BaseModel):
    """Every error the API answers: a stable code, a message naming what is wrong, and the field."""

    error: str = Field(description="A stable code such as invalid_argument, not_found, payload_too_large")
    message: str = Field(description="What is wrong, naming the field")
    field: str | None = Field(default=None, description="The offending field or parameter, if one is")
    allowed: list[str] | None = Field(default=None, description="The values the field accepts, where they are few")


ERRORS = {
    400: "Bad input; the message names the field",
    404: "Not found (an unknown conversation, draft or format without data)",
    408: "The request body did not all arrive in time",
    409: "The conversation is answering another message",
    413: "The request body or the message is over its limit",
    415: "The request body is not sent as application/json",
    503: "The tables are unavailable; retry shortly",
}


def error_responses(*statuses: int) -> dict[int | str, JsonObject]:
    """FastAPI ``responses`` for these error statuses, each with the error body."""
    return {status: {"model": ErrorBody, "description": ERRORS[status]} for status in statuses}


def _inline(schema: JsonObject) -> JsonObject:
    """A model's JSON schema with each ``$defs`` reference written in place (a body given through
    ``openapi_extra`` has no ``$defs`` of its own to point at)."""
    defs = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return resolve(defs[ref.removeprefix("#/$defs/")])
            return {key: resolve(value) for key, value in node.items()}
        if isinstance(node, list):
            return [resolve(value) for value in node]
        return node

    return cast(JsonObject, resolve(schema))


def chat_request_body(max_message_chars: int | None = None) -> JsonObject:
    """The OpenAPI ``requestBody`` of ``POST /chat``: ``ChatRequest``'s schema, its message limit the
    deployment's (``Settings.max_message_chars``, which the model cannot know)."""
    schema = _inline(ChatRequest.model_json_schema())
    if max_message_chars is not None:
        schema["properties"]["message"]["maxLength"] = max_message_chars
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def document_message_limit(app: FastAPI, max_message_chars: int) -> None:
    """Have ``app``'s document say the deployment's message limit in ``POST /chat``'s body (the route's
    description comes from the model, which cannot know it; the route may serve several apps)."""
    generate = app.openapi

    def openapi() -> JsonObject:
        if app.openapi_schema is not None:
            return app.openapi_schema
        document = generate()  # FastAPI's, kept as app.openapi_schema: changed in place once
        body = document["paths"]["/chat"]["post"]["requestBody"]["content"]["application/json"]["schema"]
        body["properties"]["message"]["maxLength"] = max_message_chars
        return document

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's way to extend the document


def _query_schema(schema: JsonObject) -> JsonObject:
    """A tool argument's schema as a query parameter's: no null branch, no null default, no title."""
    schema = {k: v for k, v in schema.items() if k not in {"title", "description"}}
    branches = [b for b in schema.pop("anyOf", []) if b.get("type") != "null"]
    if len(branches) == 1:
        schema.update(branches[0])
    elif branches:
        schema["anyOf"] = branches
    if schema.get("default", 0) is None:
        del schema["default"]
    return schema


def query_parameters(input_model: type[BaseModel], path: set[str] | frozenset[str] = frozenset()) -> list[JsonObject]:
    """A tool's arguments (its input model's fields, except those in the path) as OpenAPI query parameters."""
    schema = input_model.model_json_schema()
    required = set(schema.get("required", []))
    return [
        {
            "name": name,
            "in": "query",
            "required": name in required,
            "description": prop.get("description", ""),
            "schema": _query_schema(prop),
        }
        for name, prop in schema["properties"].items()
        if name not in path
    ]
