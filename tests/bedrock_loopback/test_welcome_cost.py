"""A welcome that costs nothing per visit: the model writes it once per model, day and catalog, through the small
WelcomeFunction (Converse through boto3) and through the chat app alike; other instances read the stored one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import httpx
import pytest

from meta_mage.api import handlers, welcome
from meta_mage.config import get_settings
from tests.api.conftest import invoke, world_env  # noqa: F401 (the fixture)
from tests.bedrock_loopback.server import DEFAULT_MODEL_ID, LoopbackBedrock, Reply, Text, Throttling, running_bedrock
from tests.bedrock_loopback.test_chat_through_bedrock import chat  # noqa: F401 (the fixture)

WRITTEN = "Welcome, planeswalker! Ask me about Modern, or paste your list."


@pytest.fixture()
def welcome_function(world_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[LoopbackBedrock]:  # noqa: F811
    """The WelcomeFunction's environment with the Bedrock model configured and Bedrock on loopback."""
    with running_bedrock() as (url, bedrock):
        monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", url)
        monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
        monkeypatch.setenv("META_MAGE_MODEL", DEFAULT_MODEL_ID)
        for cache in (get_settings, handlers.welcome_model):
            cache.cache_clear()
        yield bedrock
        for cache in (get_settings, handlers.welcome_model):
            cache.cache_clear()


def test_twenty_visits_to_the_welcome_function_make_one_model_request(welcome_function: LoopbackBedrock) -> None:
    bedrock = welcome_function
    bedrock.script += [Reply(Text(WRITTEN))]
    bodies = [invoke("welcome", "welcome.json")[1] for _ in range(20)]
    assert {body["message"] for body in bodies} == {WRITTEN} and len(bedrock.requests) == 1
    assert len({body["conversation_id"] for body in bodies}) == 20  # each visit its own conversation
    # another instance (no memory of it) reads the stored message: still one request
    welcome.forget_written()
    assert invoke("welcome", "welcome.json")[1]["message"] == WRITTEN and len(bedrock.requests) == 1


def test_a_failing_model_is_left_alone_for_a_while(welcome_function: LoopbackBedrock) -> None:
    bedrock = welcome_function
    bedrock.script += [Throttling()] * 10  # botocore's retries included, every attempt is refused
    first = invoke("welcome", "welcome.json")[1]
    tried = len(bedrock.requests)
    later = [invoke("welcome", "welcome.json")[1] for _ in range(10)]
    assert "I answer from real tournament results" in first["message"]  # the templated welcome
    assert all(body["message"] == first["message"] for body in later) and len(bedrock.requests) == tried


def test_the_chat_apps_welcome_is_written_once(chat: tuple[str, LoopbackBedrock]) -> None:  # noqa: F811
    base, bedrock = chat
    bedrock.script += [Reply(Text(WRITTEN))]
    with httpx.Client(timeout=30) as client:
        messages = {client.get(f"{base}/welcome").json()["message"] for _ in range(20)}
    assert messages == {WRITTEN} and len(bedrock.requests) == 1


def test_the_key_names_the_model_the_day_and_the_catalog() -> None:
    class Model:
        model_id = "m"

    catalog: list[dict[str, Any]] = [{"name": "list_formats"}]
    key = welcome.message_key(Model(), "prompt", catalog, "2026-11-28")
    assert key.startswith("m#2026-11-28#")
    assert key != welcome.message_key(Model(), "prompt", catalog, "2026-11-29")
    assert key != welcome.message_key(Model(), "prompt", [{"name": "get_draft_pool"}], "2026-11-28")
    assert key != welcome.message_key(Model(), "another prompt", catalog, "2026-11-28")


def test_an_instance_that_loses_the_race_serves_the_winners_message() -> None:
    class Store:
        def __init__(self) -> None:
            self.kept: dict[str, str] = {}

        def get(self, key: str) -> str | None:
            return None  # not there when this instance looked

        def put(self, key: str, message: str, seconds: int) -> str:
            return "the other instance's welcome"  # the conditional write lost: the kept one comes back

    class Model:
        model_id = "m"
        calls = 0

        def invoke(self, prompt: str) -> Any:
            Model.calls += 1
            return type("Reply", (), {"text": "mine", "content": "mine"})()

    store, model = Store(), Model()
    key = welcome.message_key(model, "prompt", [], "2026-11-28")
    assert welcome.written_message(model, "prompt", key, store) == "the other instance's welcome"
    assert welcome.written_message(model, "prompt", key, store) == "the other instance's welcome"
    assert Model.calls == 1
