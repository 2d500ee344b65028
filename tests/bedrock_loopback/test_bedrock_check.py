"""``meta-mage bedrock-check`` against the loopback Bedrock (runtime and control plane): model access, one streamed
answer with its planned tool call and grounding, and its cost, each on one line."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from meta_mage.cli import main
from meta_mage.config import get_settings
from tests.api.conftest import world_env  # noqa: F401 (the fixture)
from tests.bedrock_loopback.server import DEFAULT_MODEL_ID, LoopbackBedrock, Reply, Text, running_bedrock
from tests.bedrock_loopback.test_chat_through_bedrock import top_row


@pytest.fixture()
def bedrock(world_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[LoopbackBedrock]:  # noqa: F811
    with running_bedrock() as (url, loopback):
        for service in ("BEDROCK_RUNTIME", "BEDROCK"):
            monkeypatch.setenv(f"AWS_ENDPOINT_URL_{service}", url)
        monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
        monkeypatch.delenv("META_MAGE_MODEL", raising=False)
        get_settings.cache_clear()
        yield loopback
        get_settings.cache_clear()


def test_a_usable_model_answers_with_its_grounding_and_cost(
    bedrock: LoopbackBedrock, modern_world: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    top = top_row(modern_world)
    bedrock.script += [Reply(Text(f"{top['name']} leads at {top['meta_share']:.1f}% of the field."))]
    code = main(["bedrock-check", "--model", DEFAULT_MODEL_ID, "--tables"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"✓ inference profile {DEFAULT_MODEL_ID}: ACTIVE, routes to us-east-1, us-west-2" in out
    assert f"{top['name']} leads at {top['meta_share']:.1f}% of the field." in out
    assert "✓ tools: get_format_meta_rankings (" in out and "✓ grounding: every figure matched the data" in out
    cost = next(line for line in out.splitlines() if "model request(s)" in line)
    assert "1 model request(s)" in cost and " 0 tokens in" not in cost, cost


def test_a_model_these_credentials_cannot_see_is_named(
    bedrock: LoopbackBedrock, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["bedrock-check", "--model", "us.anthropic.claude-nothing-v1:0", "--tables"])
    out = capsys.readouterr().out
    assert code == 1 and bedrock.requests == []
    assert "✗ us.anthropic.claude-nothing-v1:0 is not usable here: ResourceNotFoundException" in out


def test_no_model_is_a_usage_error(bedrock: LoopbackBedrock, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bedrock-check"]) == 2
    assert "pass --model ID or set META_MAGE_MODEL" in capsys.readouterr().err
