"""The chat app over ``meta_mage.wiring``: one DynamoDB resource, one tool context, one coach."""

from __future__ import annotations

from typing import Any, TypedDict

from fastapi import FastAPI

from meta_mage.agent.conversation import Conversations
from meta_mage.api.chat_app import create_app
from meta_mage.api.reads import ReadApi
from meta_mage.api.routes import snapstart
from meta_mage.config import Settings
from meta_mage.snapstart import RestoreHooks
from meta_mage.storage.locks import IssuedConversations, LocksRepository
from meta_mage.wiring import Wiring


class Collaborators(TypedDict):
    """What the chat app is made over, made again after a SnapStart restore."""

    conversations: Conversations
    reads: ReadApi
    locks: LocksRepository
    issued: IssuedConversations


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

    def collaborators() -> Collaborators:
        wiring = Wiring(settings, dynamodb)
        # with an MCP server, /welcome lists the tools that server serves
        catalog = wiring.remote_tools.catalog_sync if wiring.remote_tools is not None else None
        return {
            "conversations": wiring.coach(model=model),
            "reads": ReadApi(wiring.registry, wiring.tool_context, catalog, wiring.welcome_messages),
            "locks": wiring.locks,
            "issued": wiring.issued,
        }

    app = create_app(settings, **collaborators(), serve_reads=serve_reads, serve_page=serve_page)

    def rebuild() -> None:  # after a SnapStart restore: the same routes over new clients
        for name, value in collaborators().items():
            setattr(app.state, name, value)

    app.state.snapstart = RestoreHooks(rebuild)
    app.router.routes.extend(snapstart.ROUTES)
    return app
