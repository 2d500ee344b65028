"""boto3 resource factory and the small helpers the repositories share."""

from __future__ import annotations

import contextlib
import functools
import json
import zlib
from collections.abc import Callable, Iterator
from typing import Any, Concatenate, ParamSpec, TypeVar

import boto3
from boto3.exceptions import S3UploadFailedError
from botocore.exceptions import BotoCoreError, ClientError, EndpointConnectionError, NoCredentialsError

from meta_mage.config import Settings
from meta_mage.errors import StorageUnavailable

_P = ParamSpec("_P")
_R = TypeVar("_R")
_Repository = TypeVar("_Repository")

Item = dict[str, Any]
"""A raw DynamoDB item, or the JSON stored packed in one: used inside ``storage/`` only."""


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


def aws_client(settings: Settings, service: str) -> Any:
    """A boto3 client of ``service`` in the configured region, from the shared default session."""
    session: Any = default_session()  # boto3's stubs type client() per literal service name
    return session.client(service, region_name=aws_region(settings))


def dynamodb_resource(settings: Settings) -> Any:
    """A DynamoDB service resource.

    boto3 honours ``AWS_ENDPOINT_URL_DYNAMODB`` itself, so pointing that variable at a local
    server redirects every command and test.
    """
    return default_session().resource("dynamodb", region_name=aws_region(settings))


def pack(value: Any) -> bytes:
    """Compress a JSON-able value for a Binary attribute (aggregates are large and sparse)."""
    return zlib.compress(json.dumps(value, separators=(",", ":"), sort_keys=True).encode(), 6)


def binary_bytes(blob: Any) -> bytes:
    """A Binary attribute's bytes, from ``bytes`` or boto3's ``Binary`` wrapper."""
    return bytes(blob.value if hasattr(blob, "value") else blob)


def unpack(blob: Any) -> Any:
    """Inverse of :func:`pack`; accepts ``bytes`` or boto3's ``Binary`` wrapper."""
    return json.loads(zlib.decompress(binary_bytes(blob)))


def query_all(table: Any, **kwargs: Any) -> list[Item]:
    """Run a Query and follow its pages."""
    return all_pages(table.query, **kwargs)


def all_pages(operation: Callable[..., Item], **kwargs: Any) -> list[Item]:
    """The items of every page of a Query or Scan (``table.query``, ``table.scan``)."""
    items: list[Item] = []
    while True:
        page = operation(**kwargs)
        items.extend(page.get("Items", []))
        if "LastEvaluatedKey" not in page:
            return items
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def sdk_problem(exc: Exception) -> str:
    """One line for an SDK error, with the likely fix for the common first-run mistakes."""
    if isinstance(exc, ClientError):
        code = exc.response.get("Error", {}).get("Code", "")
        message = exc.response.get("Error", {}).get("Message", "")
        hint = " (create the tables with 'meta-mage tables create')" if code == "ResourceNotFoundException" else ""
        return f"{code}: {message}{hint}"
    if isinstance(exc, NoCredentialsError):
        return (
            f"{exc} (no AWS account configured: for a local run start 'meta-mage dynamodb' and set "
            "AWS_ENDPOINT_URL_DYNAMODB to its URL, or try 'meta-mage demo')"
        )
    if isinstance(exc, EndpointConnectionError):
        return f"{exc} (is the DynamoDB endpoint running? AWS_ENDPOINT_URL_DYNAMODB points the tools at it)"
    return f"{type(exc).__name__}: {exc}"


def sdk_failure(exc: BaseException) -> str | None:
    """One line for an SDK error (see :func:`sdk_problem`), or None when ``exc`` is not one."""
    return sdk_problem(exc) if isinstance(exc, BotoCoreError | ClientError) else None


def rejected_item(exc: StorageUnavailable) -> bool:
    """Whether DynamoDB refused a request for what it held (``ValidationException``: an attribute too
    large, an empty key), which no retry can fix, rather than failing to serve it."""
    cause = exc.__cause__
    return isinstance(cause, ClientError) and cause.response.get("Error", {}).get("Code") == "ValidationException"


@contextlib.contextmanager
def sdk_errors(where: str) -> Iterator[None]:
    """The SDK's errors (what is left after its retries) as ``StorageUnavailable``, naming ``where``
    (S3's upload errors too)."""
    try:
        yield
    except (ClientError, BotoCoreError, S3UploadFailedError) as exc:
        raise StorageUnavailable(f"{sdk_problem(exc)} ({where})") from exc


def storage_operation(
    method: Callable[Concatenate[_Repository, _P], _R],
) -> Callable[Concatenate[_Repository, _P], _R]:
    """A repository method whose SDK errors (what is left after the SDK's retries) raise
    ``StorageUnavailable`` naming its table (``self.table``) and the method."""

    @functools.wraps(method)
    def guarded(self: _Repository, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with sdk_errors(f"table {getattr(getattr(self, 'table', None), 'name', '?')}, {method.__name__}"):
            return method(self, *args, **kwargs)

    return guarded
