"""The small functions' environment over the session's Modern world, and a call of one through its entry point."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from meta_mage.api import handlers
from meta_mage.config import get_settings
from tests.lambda_helpers import FakeLambdaContext, entry_point

EVENTS = Path(__file__).resolve().parents[2] / "events"


@pytest.fixture()
def world_env(modern_world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    settings = modern_world["settings"]
    for key in ("meta_table", "cards_table", "drafts_table", "checkpoint_table", "locks_table"):
        monkeypatch.setenv(f"META_MAGE_{key.upper()}", getattr(settings, key))
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "MetaMageTest")
    caches = (get_settings, handlers.wiring, handlers.reads, handlers.welcome_model, handlers.issued)
    for cache in caches:
        cache.cache_clear()
    yield
    for cache in caches:
        cache.cache_clear()


def invoke(function: str, event_file: str) -> tuple[int, dict[str, Any]]:
    event = json.loads((EVENTS / event_file).read_text())
    response = entry_point(function)(event, FakeLambdaContext())
    return response["statusCode"], json.loads(response["body"])
