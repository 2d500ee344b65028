"""SnapStart's restore path, called as Lambda would: the Web Adapter's HTTP hooks for the chat and MCP apps,
the runtime's hooks for the Powertools functions. A restored process gets new AWS clients and a reseeded
generator, and keeps answering."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from fastapi.testclient import TestClient
from starlette.testclient import TestClient as StarletteClient

from meta_mage.api import handlers
from meta_mage.api.factory import build_app
from meta_mage.config import get_settings
from meta_mage.mcp.server import build_mcp_app
from meta_mage.snapstart import AFTER_RESTORE_PATH, BEFORE_CHECKPOINT_PATH, RestoreHooks
from tests.api.conftest import invoke

SEEDED = random.Random(7).random()


@pytest.fixture()
def snapshot_random() -> Iterator[None]:
    """The generator as a snapshot would freeze it: seeded with 7 at init."""
    saved = random.getstate()
    random.seed(7)
    yield
    random.setstate(saved)


def _client_of(table: Any) -> Any:
    return table.meta.client


def test_the_chat_app_restores_with_new_clients(modern_world: dict[str, Any], snapshot_random: None) -> None:
    # Given the chat app as the snapshot holds it (its own DynamoDB resource, built at init)
    app = build_app(modern_world["settings"], serve_reads=True)
    with TestClient(app) as client:
        conversations, locks = app.state.conversations, app.state.locks
        session = boto3.DEFAULT_SESSION
        # When the hook is called without a snapshot (a request through the function URL), Then nothing changes
        assert client.post(AFTER_RESTORE_PATH).json() == {"restored": False}
        assert app.state.conversations is conversations
        # When the adapter calls the hooks around a snapshot and its restore
        assert client.post(BEFORE_CHECKPOINT_PATH).json() == {"ready": True}
        assert client.post(AFTER_RESTORE_PATH).json() == {"restored": True}
        # Then the collaborators, the boto3 session and the DynamoDB client are new, and randomness is reseeded
        assert app.state.conversations is not conversations and app.state.locks is not locks
        assert boto3.DEFAULT_SESSION is not None and boto3.DEFAULT_SESSION is not session
        assert _client_of(app.state.locks.table) is not _client_of(locks.table)
        assert random.random() != SEEDED
        # and the app still answers from the tables
        assert client.get("/formats").json()["formats"] == ["Modern"]
        chat = client.post("/chat", json={"message": "top decks in Modern over 30 days"})
        assert "Jeskai Blink" in "".join(
            json.loads(line[6:]).get("text", "") for line in chat.text.splitlines() if line.startswith("data: ")
        )
        assert app.state.snapstart.restores == 1


def test_the_mcp_app_restores_with_a_new_tool_context(modern_world: dict[str, Any], snapshot_random: None) -> None:
    app = build_mcp_app(modern_world["settings"])
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_formats", "arguments": {}}}
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    with StarletteClient(app) as client:
        assert client.post(BEFORE_CHECKPOINT_PATH).json() == {"ready": True}
        assert client.post(AFTER_RESTORE_PATH).json() == {"restored": True}
        assert random.random() != SEEDED
        answer = client.post("/mcp", json=call, headers=headers).json()
    formats = answer["result"]["structuredContent"]["formats"]
    assert [f["format"] for f in formats] == ["Modern"]


def test_a_powertools_function_restores_through_the_runtime_hooks(world_env: None, snapshot_random: None) -> None:
    # Given a warm function (its collaborators made)
    assert invoke("formats", "formats.json")[0] == 200
    made = handlers.wiring()
    # When the runtime runs the hooks registered with snapshot_restore_py
    handlers.snapstart.before_checkpoint()
    assert handlers.snapstart.after_restore()
    # Then the collaborators are new (made during the restore, not by the first request) and it still answers
    assert handlers.wiring() is not made and handlers.reads.cache_info().currsize == 1
    assert random.random() != SEEDED
    status, body = invoke("formats", "formats.json")
    assert status == 200 and body["formats"] == ["Modern"] and get_settings().meta_table == "world-meta"


def test_hooks_act_once_per_snapshot() -> None:
    rebuilt: list[int] = []
    hooks = RestoreHooks(lambda: rebuilt.append(1))
    assert not hooks.after_restore()
    hooks.before_checkpoint()
    assert hooks.after_restore() and not hooks.after_restore()
    assert rebuilt == [1] and hooks.restores == 1


def test_a_restore_keeps_the_parsed_service_models_and_nothing_else() -> None:
    # Given a process whose default session has made a client (its service models parsed)
    from meta_mage.snapstart import reset_process
    from meta_mage.storage.dynamo import default_session

    old = default_session()
    old.client("dynamodb", region_name="us-east-1")
    loader = old._session.get_component("data_loader")
    # When SnapStart restores it
    reset_process()
    new = default_session()
    # Then the session (its credentials, clients, connections) is new, its loader the old one, kept tidy
    assert new is not old and new._session is not old._session
    assert new._session.get_component("data_loader") is loader
    assert len(loader.search_paths) == len(set(loader.search_paths))
    assert new.client("dynamodb", region_name="us-east-1").meta.service_model.service_name == "dynamodb"
