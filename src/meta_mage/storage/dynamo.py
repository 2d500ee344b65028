"""boto3 resource factory and the small helpers the repositories share."""

from __future__ import annotations

import json
import zlib
from typing import Any

import boto3

from meta_mage.config import Settings


def dynamodb_resource(settings: Settings) -> Any:
    """A DynamoDB service resource.

    boto3 honours ``AWS_ENDPOINT_URL_DYNAMODB`` itself, so pointing that variable at a local
    server redirects every command and test.
    """
    return boto3.resource("dynamodb", region_name=settings.aws_region)


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
