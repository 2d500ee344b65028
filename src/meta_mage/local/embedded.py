"""Start moto's ``ThreadedMotoServer`` on loopback and point boto3 at it."""

from __future__ import annotations

import base64
import bisect
import copy
import functools
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from meta_mage.models.json import JsonObject

_MOTO_DYNAMODB = threading.Lock()
_running_url: str | None = None  # the URL of the embedded server this process runs, while it runs
# The requests that read items (sizing each, as moto pages a read at 1 MB) and change none
_READS = frozenset({"GetItem", "BatchGetItem", "Query", "Scan"})


class _Remembered:
    """When what a read remembers (an item's size, a table's key order) still holds: while a read runs, and no
    write came since it was taken (``generation`` counts the writes; every other request, and every bulk load,
    is one)."""

    generation = 0
    reading = False


def serialise_moto_dynamodb() -> None:
    """Make moto's DynamoDB take one request at a time, its transactions cheap and its answers quick to write.

    moto is not thread-safe where DynamoDB is atomic: ``TransactWriteItems`` deep-copies every table it
    touches (to roll back) while other request threads write to it, and fails with "dictionary changed
    size during iteration". moto's work is CPU-bound under the GIL anyway, so one lock costs little. And
    that deep copy of a whole table, made once per item of every transaction, made each write's time grow
    with the stored data: here a transaction keeps copies of the items it touches, and restores those.
    """
    import moto.dynamodb.models as models
    from moto.dynamodb.responses import DynamoHandler

    if getattr(DynamoHandler.call_action, "serialised", False):
        return
    unlocked = DynamoHandler.call_action
    transact = models.DynamoDBBackend.transact_write_items

    def call_action(self: Any) -> Any:
        with _MOTO_DYNAMODB:
            _Remembered.reading = self._get_action() in _READS
            if not _Remembered.reading:
                _Remembered.generation += 1
            try:
                return unlocked(self)
            finally:
                _Remembered.reading = False

    def transact_write_items(self: Any, transact_items: list[JsonObject]) -> None:
        before = _touched_items(self, transact_items)
        try:  # moto's only copy there is the rollback copy of each table touched: restored item by item instead
            with _no_deep_copies(models):
                return transact(self, transact_items)
        except Exception:
            _restore(before)
            raise

    call_action.serialised = True  # type: ignore[attr-defined]
    DynamoHandler.call_action = call_action  # type: ignore[method-assign]
    models.DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    read_quickly()
    write_plain_attributes_directly()
    parse_attributes_directly()
    size_items_once()


_Touched = tuple[Any, Any, Any, Any]  # table, hash key, range key, the item before (None: there was none)


def _touched_items(backend: Any, transact_items: list[JsonObject]) -> list[_Touched]:
    """A copy of each item a transaction names, as it is before the transaction. moto has parsed the request
    against the API's shapes by now; a key it would refuse is skipped (moto refuses it before writing)."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    touched: list[_Touched] = []
    for entry in transact_items:
        kind, operation = next(iter(entry.items()))
        table = backend.tables.get(operation.get("TableName"))
        key = operation.get("Item" if kind == "Put" else "Key") or {}
        if table is None or table.hash_key_attr not in key:
            continue
        try:
            hash_key = DynamoType(key[table.hash_key_attr])
            range_key = DynamoType(key[table.range_key_attr]) if table.range_key_attr in key else None
        except Exception:  # a malformed key: moto refuses the transaction before writing
            continue
        if table.range_key_attr is None:
            touched.append((table, hash_key, None, copy.deepcopy(table.items.get(hash_key))))
        elif range_key is not None:
            item = table.items.get(hash_key, {}).get(range_key)
            touched.append((table, hash_key, range_key, copy.deepcopy(item)))
    return touched


def _restore(touched: list[_Touched]) -> None:
    """Put every touched item back as it was (newest first, so a key named twice ends as it began)."""
    for table, hash_key, range_key, item in reversed(touched):
        partition = table.items if range_key is None else table.items[hash_key]
        key = hash_key if range_key is None else range_key
        if item is None:
            partition.pop(key, None)
        else:
            partition[key] = item


def read_quickly() -> None:
    """Make moto's Query and Scan cost what the items they return cost, answering as stock moto does.

    Stock moto sorts every item of the table on each Query (``Table.all_items``) and keeps those of the
    partition, so every read grows with the table; it sorts by comparing its typed values (each comparison
    converts both), deep-copies every item it returns, and projects an item by turning it into Python
    values and back. Here a Query on a table (not an index) sees only its partition, already in key order;
    a Scan's page starts at its start key (where moto compares every earlier item to it) in the table's
    key order, sorted by plain key values and remembered until a write; neither copies the items it returns
    (requests run one at a time, and each answer is written out before the next request starts); a
    projection of top-level attributes keeps those attributes as they are. moto does the rest (key
    conditions, filters, paging, sizes) as before. tests/integration/test_embedded_moto.py checks the pages
    against stock moto's.
    """
    import moto.dynamodb.models.table as table_module
    from moto.core import responses
    from moto.dynamodb.models.dynamo_type import Item, LimitedSizeDict
    from moto.dynamodb.models.table import Table

    stock_query, stock_scan, stock_project = Table.query, Table.scan, Item.project
    if getattr(stock_query, "stock", None):
        return

    def query(self: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        index_name = kwargs.get("index_name", args[6] if len(args) > 6 else None)
        if index_name is not None or hash_key is None:
            return stock_query(self, hash_key, *args, **kwargs)
        partition = self.items.get(hash_key)
        if partition is None:
            found = []
        elif self.range_key_attr:  # in moto's order already, so its own sort only confirms it
            found = sorted(partition.values(), key=lambda item: item.range_key.cast_value)
        else:
            found = [partition]
        self.all_items = lambda: found
        try:
            with _no_deep_copies(table_module):
                return stock_query(self, hash_key, *args, **kwargs)
        finally:
            del self.all_items

    def scan(self: Any, filters: Any, limit: Any, exclusive_start_key: Any, *args: Any, **kwargs: Any) -> Any:
        index_name = kwargs.get("index_name", args[1] if len(args) > 1 else None)
        start = None if index_name else _page_start(self, exclusive_start_key, kwargs.get("segments"))
        if start is None:
            with _no_deep_copies(table_module):
                return stock_scan(self, filters, limit, exclusive_start_key, *args, **kwargs)
        rest = _in_key_order(self)[0][start:]
        self.all_items = lambda: rest
        try:
            with _no_deep_copies(table_module):
                return stock_scan(self, filters, limit, None, *args, **kwargs)  # type: ignore[arg-type]
        finally:
            del self.all_items

    def all_items(self: Any) -> list[Any]:
        return list(_in_key_order(self)[0])

    def project(self: Any, projection_expressions: list[list[str]]) -> Any:
        if not all(len(path) == 1 and "[" not in path[0] for path in projection_expressions):
            return stock_project(self, projection_expressions)
        attrs = LimitedSizeDict.__new__(LimitedSizeDict)
        dict.__init__(attrs)
        for (name,) in projection_expressions:
            if name in self.attrs:
                dict.__setitem__(attrs, name, self.attrs[name])
        projected: Any = Item.__new__(Item)
        projected.hash_key, projected.range_key, projected.attrs = self.hash_key, self.range_key, attrs
        return projected

    query.stock = stock_query  # type: ignore[attr-defined]
    scan.stock = stock_scan  # type: ignore[attr-defined]
    all_items.stock = Table.all_items  # type: ignore[attr-defined]
    project.stock = stock_project  # type: ignore[attr-defined]
    Table.query, Table.scan, Table.all_items = query, scan, all_items  # type: ignore[method-assign]
    Item.project = project  # type: ignore[method-assign]
    # the handler's method names, listed afresh (by inspecting its class) for every request
    responses.method_names_from_class = functools.cache(responses.method_names_from_class)  # type: ignore[attr-defined]


def _in_key_order(table: Any) -> tuple[list[Any], list[Any]]:
    """The table's items in key order, and their keys as plain values; remembered from one read to the next
    until any write."""
    remembered = table.__dict__.get("_remembered_order")
    if _Remembered.reading and remembered is not None and remembered[0] == _Remembered.generation:
        return remembered[1], remembered[2]  # type: ignore[no-any-return]
    items = (
        [item for partition in table.items.values() for item in partition.values()]
        if table.range_key_attr
        else list(table.items.values())
    )
    items.sort(key=_key_values)
    keys = [_key_values(item) for item in items]
    if _Remembered.reading:
        table._remembered_order = (_Remembered.generation, items, keys)
    return items, keys


def _page_start(table: Any, exclusive_start_key: JsonObject | None, segments: Any) -> int | None:
    """Where a Scan of the whole table (no segments) resumes: the first item after ``exclusive_start_key`` in key
    order, where moto compares every earlier item to it; None where moto's own walk is left to do it."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    if segments not in (None, (None, None)):
        return None
    if not exclusive_start_key:
        return 0
    names = [table.hash_key_attr] + ([table.range_key_attr] if table.range_key_attr else [])
    if not all(isinstance(exclusive_start_key.get(name), dict) for name in names):
        return None
    try:
        values = [DynamoType(exclusive_start_key[name]).cast_value for name in names]
        return bisect.bisect_right(_in_key_order(table)[1], tuple(values) if len(values) > 1 else values[0])
    except (TypeError, ValueError, IndexError):  # a key of another type than the table's: moto's walk decides
        return None


def _key_values(item: Any) -> Any:
    """An item's keys as plain values, which order as moto's typed keys do (a key attribute has one type)."""
    return (item.hash_key.cast_value, item.range_key.cast_value) if item.range_key else item.hash_key.cast_value


@contextmanager
def _no_deep_copies(module: Any) -> Iterator[None]:
    """Within the block, ``copy.deepcopy`` in ``module`` hands back what it is given (safe: requests run one at
    a time under the lock)."""
    setattr(module, "copy", _NoDeepCopies)  # noqa: B010
    try:
        yield
    finally:
        setattr(module, "copy", copy)  # noqa: B010


class _NoDeepCopies:
    """Stands in for the ``copy`` module inside moto's Query and Scan (which deep-copy each item they return) and
    its ``transact_write_items`` (which deep-copies each table it touches, to roll back)."""

    copy = staticmethod(copy.copy)

    @staticmethod
    def deepcopy(value: Any, memo: Any = None) -> Any:
        return value


def size_items_once() -> None:
    """Make moto size an item once per attribute where it sized it again and again, answering as stock moto does.

    A new item checks the 400 KB limit as each attribute goes in, summing every attribute already in: an
    item of n attributes is sized n times over. Here it is summed once (the sum only grows, so it passes
    at the end exactly when it passed at every step). And a Query or Scan sizes every item of the partition
    it reads, some twice, on every request: here an item's size is remembered from one read to the next
    until any write (a write may change an item in place). tests/integration/test_embedded_moto.py checks
    the pages against stock moto's.
    """
    from moto.dynamodb.exceptions import ItemSizeTooLarge
    from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
    from moto.dynamodb.models.utilities import bytesize

    stock_init, stock_size = Item.__init__, Item.size
    if getattr(stock_size, "stock", None):
        return

    def init(self: Any, hash_key: Any, range_key: Any, attrs: JsonObject) -> None:
        self.hash_key, self.range_key = hash_key, range_key
        values = {key: DynamoType(value) for key, value in attrs.items()}
        if sum(bytesize(key) + value.size() for key, value in values.items()) > _ITEM_LIMIT:
            raise ItemSizeTooLarge
        self.attrs = LimitedSizeDict.__new__(LimitedSizeDict)
        dict.__init__(self.attrs, values)

    def size(self: Any) -> int:
        if not _Remembered.reading:
            return int(stock_size(self))
        remembered = self.__dict__.get("_remembered_size")
        if remembered is not None and remembered[0] == _Remembered.generation:
            return int(remembered[1])
        value = int(stock_size(self))
        self._remembered_size = (_Remembered.generation, value)
        return value

    init.stock = stock_init  # type: ignore[attr-defined]
    size.stock = stock_size  # type: ignore[attr-defined]
    Item.__init__, Item.size = init, size  # type: ignore[method-assign]


_ITEM_LIMIT = 405_000  # moto's own: DynamoDB's 400 KB, as measured between 409 and 410 KB


def write_plain_attributes_directly() -> None:
    """Make moto write an item's strings, numbers, booleans, nulls and binaries without its generic serializer.

    For every attribute of every item it returns, moto's serializer tries each of the ten members an
    AttributeValue may have under several spellings: most of the time a large Query spends. A value of
    one of these types is written here as that serializer writes it (a binary in base64); lists, maps
    and sets still go through it. tests/integration/test_embedded_moto.py checks both write the same.
    """
    from moto.core.serialize import BaseJSONSerializer

    stock = BaseJSONSerializer._serialize_type_structure
    if getattr(stock, "stock", None):
        return

    def structure(self: Any, serialized: Any, value: Any, shape: Any, key: str) -> None:
        if key and shape.name == "AttributeValue" and type(value) is dict and len(value) == 1:
            ((kind, plain),) = value.items()
            if kind in _AS_THEY_ARE and type(plain) in _AS_THEY_ARE[kind]:
                self._default_serialize(serialized, {kind: plain}, shape, key)
                return
            if kind == "B" and type(plain) is bytes:
                self._default_serialize(serialized, {kind: self._base64(plain)}, shape, key)
                return
        stock(self, serialized, value, shape, key)

    structure.stock = stock  # type: ignore[attr-defined]
    BaseJSONSerializer._serialize_type_structure = structure  # type: ignore[method-assign]


_AS_THEY_ARE = {"S": (str,), "N": (str,), "BOOL": (bool,), "NULL": (bool,)}


def parse_attributes_directly() -> None:
    """Make moto read an attribute's value by its one type where it tried every type an AttributeValue may have.

    For every attribute of every request, moto's parser looks up each of the ten members of the shape in the
    value. A value is one type (``{"S": "x"}``): here that member alone is parsed, as moto parses it; any other
    value goes through moto's walk. tests/integration/test_embedded_moto.py checks both store the same.
    """
    from moto.core.parse import BaseJSONParser

    stock = BaseJSONParser._parse_structure
    if getattr(stock, "stock", None):
        return

    def structure(self: Any, shape: Any, value: Any) -> Any:
        if shape.name == "AttributeValue" and type(value) is dict and len(value) == 1:
            ((kind, inner),) = value.items()
            member = shape.members.get(kind)
            if member is not None and inner is not None and member.serialization.get("name", kind) == kind:
                parsed = self.MAP_TYPE()
                parsed[kind] = self._parse_shape(member, inner)
                return parsed
        return stock(self, shape, value)  # type: ignore[no-untyped-call]

    structure.stock = stock  # type: ignore[attr-defined]
    BaseJSONParser._parse_structure = structure  # type: ignore[method-assign]


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


def bulk_load(region: str, names: dict[str, str], items: dict[str, list[JsonObject]]) -> bool:
    """Put items (DynamoDB's typed JSON, binaries as base64: the wire format) straight into the embedded
    server's tables when boto3 points at the one this process runs; False when it does not.

    This is the embedded server's bulk import, as ``ImportTable`` is DynamoDB's: the 16,000 demo items
    take about 1 s this way and 8 s as 650 BatchWriteItem requests over HTTP. Every later read and
    write goes through the DynamoDB API, and the caller checks the item counts through it.
    """
    if _running_url is None or os.environ.get("AWS_ENDPOINT_URL_DYNAMODB") != _running_url:
        return False
    return put_into_moto(region, names, items)


def put_into_moto(region: str, names: dict[str, str], items: dict[str, list[JsonObject]]) -> bool:
    """Put items straight into the tables of this process's moto (``names``: logical id to table name);
    False, putting nothing, when one of the tables is not there."""
    from moto.core.models import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    backend = dynamodb_backends[DEFAULT_ACCOUNT_ID][region]
    if any(names[logical_id] not in backend.tables for logical_id in items):
        return False  # another account or region than the caller's client uses: leave it to the API
    with _MOTO_DYNAMODB:
        _Remembered.generation += 1
        for logical_id, table_items in items.items():
            for item in table_items:
                backend.put_item(names[logical_id], {name: _as_parsed(value) for name, value in item.items()})
    return True


def copy_in_moto(region: str, source: str, target: str) -> None:
    """Every item of this process's moto table ``source`` copied into its (empty) table ``target``: what a Scan
    of one and a BatchWriteItem into the other store, without the requests (a test's snapshot restored)."""
    from moto.core.models import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    tables = dynamodb_backends[DEFAULT_ACCOUNT_ID][region].tables
    with _MOTO_DYNAMODB:
        _Remembered.generation += 1
        assert not tables[target].items, f"{target} is not empty"
        tables[target].items = copy.deepcopy(tables[source].items)


def _as_parsed(value: JsonObject) -> JsonObject:
    """A DynamoDB JSON value as moto holds one a request put: binaries as bytes, not base64 text."""
    (kind, inner), *_ = value.items()
    if kind == "B" and isinstance(inner, str):
        return {"B": base64.b64decode(inner)}
    if kind == "BS":
        return {"BS": [base64.b64decode(v) if isinstance(v, str) else v for v in inner]}
    if kind == "M":
        return {"M": {name: _as_parsed(v) for name, v in inner.items()}}
    if kind == "L":
        return {"L": [_as_parsed(v) for v in inner]}
    return value
