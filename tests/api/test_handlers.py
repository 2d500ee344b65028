"""The small functions: each sample event of events/ through its Lambda entry point, against moto."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import boto3
import httpx
import pytest
from botocore.stub import ANY, Stubber

from meta_mage.api import handlers
from meta_mage.api.factory import build_app
from meta_mage.bedrock import BedrockText
from meta_mage.config import get_settings
from meta_mage.local.chat_client import sse_events
from tests.api.conftest import EVENTS, invoke
from tests.conftest import call, green_creatures
from tests.lambda_helpers import FakeLambdaContext, entry_point

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("event_file", ["formats.json", "draft_pool_unknown.json", "archetypes_missing_format.json"])
def test_every_answer_is_nosniff(world_env: None, event_file: str) -> None:
    """The small functions' JSON, answers and errors alike, is never sniffed into a page or a script."""
    event = json.loads((EVENTS / event_file).read_text())
    function = {"formats.json": "formats", "draft_pool_unknown.json": "draft_pool"}.get(event_file, "archetypes")
    response = entry_point(function)(event, FakeLambdaContext())
    assert response["headers"]["X-Content-Type-Options"] == "nosniff", response


def test_every_sample_event_gets_its_answer(world_env: None, modern_world: dict[str, Any]) -> None:
    status, body = invoke("formats", "formats.json")
    assert status == 200 and body["formats"] == ["Modern"]

    status, body = invoke("archetypes", "archetypes.json")
    expected = call(modern_world, "get_format_archetypes", format="Modern", days=30)["archetypes"]
    assert status == 200 and body["archetypes"] == expected

    status, body = invoke("draft_pool", "draft_pool.json")
    pool = green_creatures(modern_world)
    assert status == 200 and body == pool

    status, body = invoke("draft_pool", "drafts.json")
    assert status == 200 and body == call(modern_world, "list_drafts")

    status, body = invoke("welcome", "welcome.json")
    assert status == 200 and uuid.UUID(body["conversation_id"]).version == 4 and body["tool_count"] == 14
    assert "offline mode" in body["message"]


async def test_an_id_from_the_welcome_function_starts_the_conversation_in_the_chat_function(
    world_env: None, modern_world: dict[str, Any]
) -> None:
    # Given the small /welcome function handed out two conversation ids
    _, welcome = invoke("welcome", "welcome.json")
    _, other = invoke("welcome", "welcome.json")
    assert welcome["conversation_id"] != other["conversation_id"]
    chat = build_app(modern_world["settings"], modern_world["db"], serve_reads=False)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=chat), base_url="http://chat") as client:
        # When the first id is used for a turn of the chat function (in upper case, as some clients send it)
        cid = welcome["conversation_id"]
        body = {"message": "What are the top decks in Modern?", "conversation_id": cid.upper(), "context": {"days": 30}}
        response = await client.post("/chat", json=body)
        # Then it is that conversation, holding the welcome message and the turn
        events = sse_events(response.text)
        assert response.status_code == 200 and events[0] == ("metadata", {**events[0][1], "conversation_id": cid})
        view = (await client.get(f"/conversations/{cid}")).json()
        assert [m["role"] for m in view["messages"]] == ["assistant", "user", "assistant"]
        assert view["messages"][0]["content"] == welcome["message"]
        assert (await client.post("/chat", json={**body, "message": "And Jeskai Blink?"})).status_code == 200

        # and the other id becomes its own conversation when first read
        view = (await client.get(f"/conversations/{other['conversation_id']}")).json()
        assert [m["content"] for m in view["messages"]] == [other["message"]]

        # and two requests using a fresh id at once both find the one conversation
        _, fresh = invoke("welcome", "welcome.json")
        both = await asyncio.gather(
            client.get(f"/conversations/{fresh['conversation_id']}"),
            client.post("/chat", json={**body, "conversation_id": fresh["conversation_id"]}),
        )
        assert [r.status_code for r in both] == [200, 200]

        # while an id nobody issued, or one whose welcome expired, is still unknown
        made_up = str(uuid.uuid4())
        response = await client.post("/chat", json={**body, "conversation_id": made_up})
        assert response.status_code == 404 and response.json()["field"] == "conversation_id"
        _, stale = invoke("welcome", "welcome.json")
        locks = modern_world["db"].Table(modern_world["settings"].locks_table)
        key = {"pk": f"welcome#{stale['conversation_id']}"}
        locks.update_item(Key=key, UpdateExpression="SET #t = :t", ExpressionAttributeNames={"#t": "ttl"},
                          ExpressionAttributeValues={":t": int(time.time()) - 1})  # fmt: skip
        response = await client.get(f"/conversations/{stale['conversation_id']}")
        assert response.status_code == 404


def test_bad_requests_get_4xx_naming_the_field(world_env: None) -> None:
    status, body = invoke("archetypes", "archetypes_missing_format.json")
    assert status == 400 and body == {
        "error": "invalid_argument",
        "message": "format: required query parameter is missing",
        "field": "format",
    }
    status, body = invoke("draft_pool", "draft_pool_unknown.json")
    assert status == 404 and body["field"] == "draft_id" and "tarkir" in body["message"]


# What the small functions must never load: the LLM stack, the web framework, and the agent's own code.
NOT_LIGHT = (
    "heavy = {'langchain', 'langchain_core', 'langgraph', 'langchain_aws', 'fastapi', 'starlette', 'uvicorn'}\n"
    "loaded = {m.split('.')[0] for m in sys.modules} & heavy\n"
    "loaded |= {m for m in sys.modules if m == 'meta_mage.agent' or m.startswith('meta_mage.agent.')}\n"
    "print(sorted(loaded))\n"
)


def test_small_functions_import_no_llm_web_framework_or_agent() -> None:
    code = (
        "import importlib.util, sys\n"
        "for fn in ('welcome', 'formats', 'archetypes', 'draft_pool'):\n"
        f"    spec = importlib.util.spec_from_file_location(fn, {str(ROOT / 'functions')!r} + f'/{{fn}}/app.py')\n"
        "    spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
    ) + NOT_LIGHT
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_small_functions_answering_their_events_load_no_llm_web_framework_or_agent() -> None:
    # Given each small function answering its sample event (moto's DynamoDB, empty tables), in a fresh process
    code = (
        "import json, sys\n"
        "from moto import mock_aws\n"
        "from meta_mage.config import Settings\n"
        "from meta_mage.storage.dynamo import dynamodb_resource\n"
        "from meta_mage.storage.tables import create_tables\n"
        "from tests.lambda_helpers import FakeLambdaContext, entry_point\n"
        "with mock_aws():\n"
        "    create_tables(dynamodb_resource(Settings()), Settings())\n"
        "    for fn, event in (('welcome', 'welcome'), ('formats', 'formats'), ('archetypes', 'archetypes'),\n"
        "                      ('draft_pool', 'draft_pool'), ('draft_pool', 'drafts')):\n"
        "        answer = entry_point(fn)(json.loads(open(f'events/{event}.json').read()), FakeLambdaContext())\n"
        "        assert answer['statusCode'] in (200, 404), (event, answer)\n"
    ) + NOT_LIGHT
    env = {**os.environ, "AWS_DEFAULT_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "testing"}
    env |= {"AWS_SECRET_ACCESS_KEY": "testing", "META_MAGE_MODEL": "offline"}
    env.pop("AWS_ENDPOINT_URL_DYNAMODB", None)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, env=env)
    # Then none of them loaded the LLM stack, the web framework or any agent module (the welcome builder included)
    assert result.stdout.strip().splitlines()[-1] == "[]"  # after the functions' metrics lines


def test_welcome_writes_its_message_with_bedrock_through_boto3(
    world_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a Bedrock model configured and Bedrock's Converse API answering (botocore's Stubber)
    client = boto3.client("bedrock-runtime", region_name="us-east-1")
    stubber = Stubber(client)
    model_id = "anthropic.claude-3-5-haiku-20241022-v1:0"
    stubber.add_response(
        "converse",
        {
            "output": {"message": {"role": "assistant", "content": [{"text": "Welcome, planeswalker!"}]}},
            "stopReason": "end_turn",
            "usage": {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
            "metrics": {"latencyMs": 1},
        },
        {
            "modelId": model_id,
            "messages": ANY,
            "inferenceConfig": {"maxTokens": 400, "temperature": 0.2},
        },
    )
    monkeypatch.setenv("META_MAGE_MODEL", model_id)
    get_settings.cache_clear()
    monkeypatch.setattr(handlers, "BedrockText", functools.partial(BedrockText, client=client))

    # When the welcome function is invoked with its sample event
    with stubber:
        status, body = invoke("welcome", "welcome.json")

    # Then the LLM wrote the message, capped in tokens, and the catalog is the registry's
    assert status == 200 and body["message"] == "Welcome, planeswalker!" and body["mode"] == "llm"
    stubber.assert_no_pending_responses()


def test_welcome_with_a_model_still_imports_no_llm_library() -> None:
    code = (
        "import os, sys\n"
        "os.environ['META_MAGE_MODEL'] = 'anthropic.claude-3-5-haiku-20241022-v1:0'\n"
        "os.environ.setdefault('AWS_DEFAULT_REGION', 'us-east-1')\n"
        "from meta_mage.api import handlers\n"
        "assert handlers.welcome_model() is not None\n"
    ) + NOT_LIGHT
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("spec", "model_id"),
    [
        ("", None),
        ("offline", None),
        ("openai:gpt-4o-mini", None),
        ("bedrock_converse:amazon.nova-lite-v1:0", "amazon.nova-lite-v1:0"),
        ("anthropic.claude-3-5-haiku-20241022-v1:0", "anthropic.claude-3-5-haiku-20241022-v1:0"),
    ],
)
def test_model_setting_names_a_bedrock_model_or_none(spec: str, model_id: str | None) -> None:
    from meta_mage.bedrock import bedrock_model_id

    assert bedrock_model_id(spec) == model_id
