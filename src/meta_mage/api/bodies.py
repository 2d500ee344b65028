"""The bodies of the read endpoints that are not a tool's output as it is: ``/formats`` and ``/welcome``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from meta_mage.models.json import JsonObject
from meta_mage.models.meta import FormatSummary


class FormatsBody(BaseModel):
    """``GET /formats``: the formats with data, then each with its date range and counts."""

    formats: list[str]
    details: list[FormatSummary]


class ToolDetail(BaseModel):
    name: str
    description: str


class WorkflowCard(BaseModel):
    """One workflow as the player is shown it, with the tools it may call."""

    name: str
    description: str
    example_queries: list[str]
    tool_details: list[ToolDetail]


class WelcomeBody(BaseModel):
    """The /welcome body without the conversation id (the caller issues one)."""

    message: str
    available_formats: list[str]
    workflows: list[WorkflowCard]
    tool_count: int
    tool_catalog: list[JsonObject]  # the tools as the registry or the MCP server lists them
    mode: Literal["llm", "offline"]


class ConversationId(BaseModel):
    conversation_id: str


class NewConversation(WelcomeBody, ConversationId):  # pydantic takes the later base first: the id leads the body
    """``GET /welcome``: a new conversation's id with its welcome."""

    @classmethod
    def opened(cls, conversation_id: str, welcome: WelcomeBody) -> NewConversation:
        return cls(conversation_id=conversation_id, **dict(welcome))
