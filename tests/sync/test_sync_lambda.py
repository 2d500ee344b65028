"""SyncFunction's handler, loaded from ``functions/sync/app.py``, against the loopback GitHub and moto."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from werkzeug.wrappers import Response

from meta_mage.config import Settings, get_settings
from meta_mage.storage.meta import MetaRepository
from meta_mage.sync import lambda_handler
from meta_mage.sync.github import GitHubClient
from meta_mage.sync.lambda_handler import SyncRetryError, read_token
from meta_mage.wiring import Wiring
from tests.lambda_helpers import FakeLambdaContext, Handler, entry_point
from tests.sync.conftest import files, tournaments_per_format
from tests.sync.fake_github import FakeGitHub, Fault, Override, day

REPO = "fbettega/MTG_decklistcache"
TOKEN_PARAMETER = "/meta-mage/github-token"


class NoBackoffClient(GitHubClient):
    """The handler's client without the retries' backoff (a quick test)."""

    def __init__(self, *args: Any, **options: Any) -> None:
        super().__init__(*args, **{**options, "backoff_factor": 0})


@pytest.fixture()
def handler(github: FakeGitHub, dynamodb: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Handler]:
    """The function's environment pointed at the fake GitHub, with its token in SSM."""
    boto3.client("ssm", region_name="us-east-1").put_parameter(
        Name=TOKEN_PARAMETER,
        Value="from-ssm",
        Type="SecureString",
        Overwrite=True,  # moto may outlive a test
    )
    for key, value in {
        "META_MAGE_SYNC_REPOSITORY": REPO,
        "META_MAGE_SYNC_START_DATE": "2025-11-01",
        "META_MAGE_SYNC_TOKEN_PARAMETER": TOKEN_PARAMETER,
        "META_MAGE_SYNC_API_URL": github.api_url,
        "META_MAGE_SYNC_RAW_URL": github.raw_url,
        "POWERTOOLS_METRICS_NAMESPACE": "MetaMageTest",
    }.items():
        monkeypatch.setenv(key, value)
    get_settings.cache_clear()
    lambda_handler.runtime.cache_clear()
    yield entry_point("sync")
    lambda_handler.runtime.cache_clear()
    get_settings.cache_clear()


def invoke(handler: Handler, seconds_left: int = 900) -> dict[str, Any]:
    return handler(
        {"source": "aws.scheduler"}, FakeLambdaContext("SyncFunction", 1024, remaining_millis=seconds_left * 1000)
    )


def metrics_of(output: str) -> dict[str, Any]:
    """The metric values of the EMF lines Powertools printed."""
    values: dict[str, Any] = {}
    for line in output.splitlines():
        if line.startswith("{") and '"_aws"' in line:
            record = json.loads(line)
            for definition in record["_aws"]["CloudWatchMetrics"][0]["Metrics"]:
                value = record[definition["Name"]]
                values[definition["Name"]] = sum(value) if isinstance(value, list) else value
    return values


def test_a_scheduled_run_syncs_and_publishes_its_metrics(
    handler: Handler, github: FakeGitHub, meta: MetaRepository, capsys: pytest.CaptureFixture[str]
) -> None:
    head = github.repository.commit(files(0, 4), day(1))
    result = invoke(handler)
    assert result["files_ingested"] == 4 and result["new_cursor"] == head.sha and not result["failures"]
    assert sum(tournaments_per_format(meta).values()) == 4
    assert {entry.headers.get("Authorization") for entry in github.log} == {"Bearer from-ssm"}
    published = metrics_of(capsys.readouterr().out)
    assert published["FilesIngested"] == 4 and published["FilesFailed"] == 0
    assert published["SyncRequests"] == len(github.log)


def test_an_infrastructure_failure_raises_for_the_retry_policy(
    handler: Handler,
    github: FakeGitHub,
    meta: MetaRepository,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lambda_handler, "GitHubClient", NoBackoffClient)
    head = github.repository.commit(files(0, 3), day(1))
    stuck = next(iter(files(1, 2)))
    github.faults.append(Fault(f"/raw/{REPO}/{head.sha}/{stuck}", 500, times=None))
    with pytest.raises(SyncRetryError):
        invoke(handler)
    assert meta.sync_cursor(REPO, "main") is None
    assert metrics_of(capsys.readouterr().out)["FilesFailed"] == 1
    github.faults.clear()
    assert invoke(handler)["files_ingested"] == 1  # the retry: the two others are unchanged


def test_near_the_time_limit_files_are_left_for_the_retry(
    handler: Handler, github: FakeGitHub, meta: MetaRepository
) -> None:
    github.repository.commit(files(0, 2), day(1))
    with pytest.raises(SyncRetryError, match="time limit"):
        invoke(handler, seconds_left=30)
    assert meta.sync_cursor(REPO, "main") is None and not github.requests_to("/raw/")


def test_the_token_may_come_from_secrets_manager(dynamodb: Any) -> None:
    arn = boto3.client("secretsmanager", region_name="us-east-1").create_secret(Name="gh", SecretString="t0k\n")["ARN"]
    settings = Settings(sync_token_parameter=arn)
    assert read_token(settings, Wiring(settings, dynamodb)) == "t0k"
    assert read_token(Settings(), Wiring(Settings(), dynamodb)) is None


def test_a_bad_file_is_counted_logged_with_its_retry_and_passed(
    handler: Handler,
    github: FakeGitHub,
    meta: MetaRepository,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    bad = "Tournaments/MTGO/2025/11/01/deep-2025-11-0100000001.json"
    head = github.repository.commit({**files(0, 2), bad: b"[" * 5000 + b"]" * 5000}, day(1))
    result = invoke(handler)  # no raise: nothing a retry could fix
    assert result["new_cursor"] == head.sha and result["bad_files"] == [bad] and result["files_ingested"] == 2
    published = metrics_of(capsys.readouterr().out)
    assert published["FilesBad"] == 1 and published["FilesFailed"] == 1
    logged = [record.__dict__ for record in caplog.records if record.getMessage() == "bad file passed"]
    assert len(logged) == 1 and logged[0]["path"] == bad and "nested more than 64 deep" in logged[0]["reason"]
    assert logged[0]["retry_with"] == f"meta-mage sync --github {REPO} --retry {bad}"


def test_a_download_ends_with_the_functions_remaining_time(
    handler: Handler, github: FakeGitHub, meta: MetaRepository
) -> None:
    # Given a file that drips one byte every 0.25 s for 10 s, and 61 s left (1 s once the safety margin is kept)
    head = github.repository.commit(files(0, 2), day(1))
    slow = next(iter(files(1, 2)))
    github.overrides.append(Override(f"/{head.sha}/{slow}", lambda request: Response(drip(), direct_passthrough=True)))
    started = time.monotonic()
    with pytest.raises(SyncRetryError, match="not read within"):
        invoke(handler, seconds_left=61)
    assert time.monotonic() - started < 5
    assert meta.sync_cursor(REPO, "main") is None


def drip() -> Iterator[bytes]:
    for _ in range(40):
        time.sleep(0.25)
        yield b" "
