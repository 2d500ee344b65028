"""Settings read from the environment: the AWS region every client uses."""

from __future__ import annotations

import boto3
import pytest

from meta_mage.config import Settings
from meta_mage.storage.dynamo import aws_region


def test_aws_region_comes_from_aws_region_before_the_sdk_default(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given the region as the AWS CLI docs and Lambda set it, next to an older default
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    # Then the clients use AWS_REGION
    assert aws_region(Settings()) == "eu-west-1"
    # and META_MAGE_AWS_REGION wins over both
    monkeypatch.setenv("META_MAGE_AWS_REGION", "ap-southeast-2")
    assert aws_region(Settings()) == "ap-southeast-2"


def test_without_a_region_setting_the_sdk_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "sa-east-1")  # what a profile or the SDK's environment gives
    assert Settings().aws_region == "sa-east-1"
    monkeypatch.delenv("AWS_DEFAULT_REGION")
    assert Settings().aws_region is None
    assert aws_region(Settings()) == (boto3.Session().region_name or "us-east-1")
