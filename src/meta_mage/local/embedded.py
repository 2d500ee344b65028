"""Start moto's ``ThreadedMotoServer`` on loopback and point boto3 at it."""

from __future__ import annotations

import copy
import logging
import os
import threading
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_MOTO_DYNAMODB = threading.Lock()
_running_url: str | None = None  # the URL of the embedded server this process runs, while it runs


def serialise_moto_dynamodb() -> None:
    """Make moto's DynamoDB take one request at a time, and its transactions cheap (idempotent).

    moto is not thread-safe where DynamoDB is atomic: ``TransactWriteItems`` deep-copies every table it
    touches (to roll back) while other request threads write to it, and fails with "dictionary changed
    size during iteration". moto's work is CPU-bound under the GIL anyway, so one lock costs little. And
    that deep copy of the whole CheckpointTable on every turn's fenced write made the embedded server's
    memory and time grow with the stored conversations: a transaction of puts and condition checks only
    replaces items, so its rollback needs copies of the tables' item maps, not of every item.
    """
    import moto.dynamodb.models as models
    from moto.dynamodb.responses import DynamoHandler

    if getattr(DynamoHandler.call_action, "serialised", False):
        return
    unlocked = DynamoHandler.call_action
    transact = models.DynamoDBBackend.transact_write_items

    def call_action(self: Any) -> Any:
        with _MOTO_DYNAMODB:
            return unlocked(self)

    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
        if any("Update" in item for item in transact_items):  # an update changes an item in place
            return transact(self, transact_items)
        setattr(models, "copy", _RollbackCopies)  # noqa: B010  # safe: requests run one at a time
        try:
            return transact(self, transact_items)
        finally:
            setattr(models, "copy", copy)  # noqa: B010

    call_action.serialised = True  # type: ignore[attr-defined]
    DynamoHandler.call_action = call_action  # type: ignore[method-assign]
    models.DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    read_one_partition()


def read_one_partition() -> None:
    """Make moto's Query on a table (not an index) read only the partition asked for.

    Stock moto sorts every item of the table on each Query (``Table.all_items``) and keeps those of the
    partition, so every read grows with the table. Here the query sees the partition's own items, and moto
    does the rest (sorting, key conditions, filters, paging, projections) as before. A Query
    on an index (the app's tables have none) is moto's own. Requests run one at a time, so the method can
    be shadowed for the length of one call.
    """
    from moto.dynamodb.models.table import Table

    stock = Table.query
    if getattr(stock, "one_partition", False):
        return

    def query(self: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        index_name = kwargs.get("index_name", args[6] if len(args) > 6 else None)
        if index_name is not None or hash_key is None:
            return stock(self, hash_key, *args, **kwargs)
        partition = self.items.get(hash_key)  # moto sorts the query's items itself
        found = [] if partition is None else list(partition.values()) if self.range_key_attr else [partition]
        self.all_items = lambda: found
        try:
            return stock(self, hash_key, *args, **kwargs)
        finally:
            del self.all_items

    query.one_partition = True  # type: ignore[attr-defined]
    query.stock = stock  # type: ignore[attr-defined]
    Table.query = query  # type: ignore[method-assign]


class _RollbackCopies:
    """Stands in for the ``copy`` module inside moto's ``transact_write_items`` (its only use there is
    the rollback copy of each table the transaction touches)."""

    @staticmethod
    def deepcopy(table: Any) -> Any:
        snapshot = copy.copy(table)
        snapshot.items = defaultdict(
            dict, {key: dict(value) if table.has_range_key else value for key, value in table.items.items()}
        )
        return snapshot


@contextmanager
def embedded_dynamodb(port: int = 0) -> Iterator[str]:
    """Run an in-memory DynamoDB on 127.0.0.1 for the duration of the block; yield its URL.

    Sets ``AWS_ENDPOINT_URL_DYNAMODB`` (and dummy credentials when none are configured) so every
    boto3 client made inside the block talks to it. moto never expires TTL items; the app does.
    """
    try:
        from moto.server import ThreadedMotoServer
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise RuntimeError("the embedded DynamoDB needs moto: pip install 'meta-mage[local]'") from exc

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    serialise_moto_dynamodb()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    host, bound_port = server.get_host_and_port()
    url = f"http://{host}:{bound_port}"
    saved = {
        k: os.environ.get(k)
        for k in ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION")
    }
    os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = url
    if not os.environ.get("AWS_ACCESS_KEY_ID"):
        os.environ["AWS_ACCESS_KEY_ID"] = os.environ["AWS_SECRET_ACCESS_KEY"] = "local"
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    global _running_url
    _running_url = url
    try:
        yield url
    finally:
        _running_url = None
        server.stop()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def bulk_load(region: str, names: dict[str, str], items: dict[str, list[dict[str, Any]]]) -> bool:
    """Put items (DynamoDB's typed JSON, binaries as base64: the wire format) straight into the embedded
    server's tables when boto3 points at the one this process runs; False when it does not.

    This is the embedded server's bulk import, as ``ImportTable`` is DynamoDB's: the 16,000 demo items
    take about 1 s this way and 8 s as 650 BatchWriteItem requests over HTTP. Every later read and
    write goes through the DynamoDB API, and the caller checks the item counts through it.
    """
    if _running_url is None or os.environ.get("AWS_ENDPOINT_URL_DYNAMODB") != _running_url:
        return False
    from moto.core.models import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    backend = dynamodb_backends[DEFAULT_ACCOUNT_ID][region]
    if any(names[logical_id] not in backend.tables for logical_id in items):
        return False  # another account or region than the caller's client uses: leave it to the API
    with _MOTO_DYNAMODB:
        for logical_id, table_items in items.items():
            for item in table_items:
                backend.put_item(names[logical_id], item)
    return True
