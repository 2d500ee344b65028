"""What the OpenAPI document says about what the routes read themselves: ``/chat``'s body (parsed from
raw bytes, so that every refusal names its field), the read endpoints' query parameters (the tools' own
input schemas) and the error responses."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from meta_mage.agent.state import TurnContext
from meta_mage.tools.registry import Tool


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
    503: "The tables are unavailable; retry shortly",
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """FastAPI ``responses`` for these error statuses, each with the error body."""
    return {status: {"model": ErrorBody, "description": ERRORS[status]} for status in statuses}


class _Context(TurnContext):
    model_config = ConfigDict(extra="forbid", title="ChatContext")


def chat_request(max_message_chars: int) -> dict[str, Any]:
    """The OpenAPI ``requestBody`` of ``POST /chat`` (the route parses the raw bytes itself)."""
    context = _Context.model_json_schema()
    schema = {
        "title": "ChatRequest",
        "type": "object",
        "additionalProperties": False,
        "required": ["message"],
        "properties": {
            "message": {
                "type": "string",
                "minLength": 1,
                "maxLength": max_message_chars,
                "description": "The user's message (not blank)",
            },
            "conversation_id": {
                "anyOf": [{"type": "string"}, {"type": "null"}],
                "description": "The id /welcome or an earlier turn's metadata event gave; null starts a conversation",
            },
            "context": {
                "anyOf": [context, {"type": "null"}],
                "description": "Dropdown values, each filling the slot of the same name",
            },
        },
    }
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _query_schema(schema: dict[str, Any]) -> dict[str, Any]:
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


def query_parameters(tool: Tool, path: set[str] | frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    """The tool's arguments (except those in the path) as OpenAPI query parameters."""
    schema = tool.input_schema()
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
