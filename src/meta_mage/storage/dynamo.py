"""boto3 resource factory and the small helpers the repositories share."""

from __future__ import annotations

import json
import zlib
from typing import Any

import boto3

from meta_mage.config import Settings


def default_session() -> boto3.Session:
    """boto3's default session, the one ``boto3.resource`` and ``boto3.client`` use. Every client of the
    process is made from it, so the SDK's endpoint and service data are parsed once (each new session
    re-reads them: about 150 ms of a cold start each)."""
    if boto3.DEFAULT_SESSION is None:
        boto3.setup_default_session()
    assert boto3.DEFAULT_SESSION is not None
    return boto3.DEFAULT_SESSION


def aws_region(settings: Settings) -> str:
    """The region every client uses: ``META_MAGE_AWS_REGION``, ``AWS_REGION`` or ``AWS_DEFAULT_REGION``,
    else the profile's, else us-east-1 (the local embedded DynamoDB needs one)."""
    return settings.aws_region or default_session().region_name or "us-east-1"


def dynamodb_resource(settings: Settings) -> Any:
    """A DynamoDB service resource.

    boto3 honours ``AWS_ENDPOINT_URL_DYNAMODB`` itself, so pointing that variable at a local
    server redirects every command and test.
    """
    return default_session().resource("dynamodb", region_name=aws_region(settings))


def pack(value: Any) -> bytes:
    """Compress a JSON-able value for a Binary attribute (aggregates are large and sparse)."""
    return zlib.compress(json.dumps(value, separators=(",", ":"), sort_keys=True).encode(), 6)


def unpack(blob: Any) -> Any:
    """Inverse of :func:`pack`; accepts ``bytes`` or boto3's ``Binary`` wrapper."""
    raw = blob.value if hasattr(blob, "value") else blob
    return json.loads(zlib.decompress(bytes(raw)))


def query_all(table: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """Run a Query and follow its pages."""
    items: list[dict[str, Any]] = []
    while True:
        page = table.query(**kwargs)
        items.extend(page.get("Items", []))
        if "LastEvaluatedKey" not in page:
            return items
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
