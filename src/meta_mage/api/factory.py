"""Wire the chat app from settings: one DynamoDB resource, one tool context, one coach."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from meta_mage.agent.conversation import Conversations
from meta_mage.agent.tools import ToolExecutor, in_process_executor
from meta_mage.api.chat_app import create_app
from meta_mage.api.reads import ReadApi
from meta_mage.config import Settings
from meta_mage.storage.dynamo import dynamodb_resource
from meta_mage.storage.locks import IssuedConversations, LocksRepository
from meta_mage.tools.context import ToolContext
from meta_mage.tools.registry import build_registry


def build_app(
    settings: Settings,
    dynamodb: Any | None = None,
    *,
    model: Any | None = None,
    serve_reads: bool = True,
    serve_page: bool = False,
) -> FastAPI:
    """The FastAPI app over the tables named in ``settings`` (``model`` overrides the configured one);
    the agent's tools and the /welcome catalog come from ``settings.mcp_url``'s MCP server when set."""
    db = dynamodb or dynamodb_resource(settings)
    registry = build_registry()
    context = ToolContext.from_settings(settings, db)
    executor: ToolExecutor = in_process_executor(registry, context)
    catalog = None
    if settings.mcp_url:
        from meta_mage.mcp.client import McpToolExecutor

        remote = McpToolExecutor(settings.mcp_url, timeout_seconds=settings.tool_timeout_seconds)
        executor, catalog = remote, remote.catalog_sync  # /welcome lists the tools the server serves
    conversations = Conversations.from_settings(settings, registry=registry, executor=executor, model=model)
    return create_app(
        settings,
        conversations,
        ReadApi(registry, context, catalog),
        LocksRepository(db.Table(settings.locks_table)),
        IssuedConversations(db.Table(settings.locks_table)),
        serve_reads=serve_reads,
        serve_page=serve_page,
    )
