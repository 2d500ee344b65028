"""Table snapshots: every item of some tables written to one gzipped JSON-lines file, and loaded back.

The demo's embedded DynamoDB starts from one (``local/seed.py``) instead of re-running the ingest.
The file's first line is a header (what the snapshot was made from, how many items per table, and a
SHA-256 of every later line's bytes); each later line is ``{"table": <logical id>, "item": <item in
DynamoDB's typed JSON>}``, sorted by table and key, so the same tables give the same bytes. A file that is
not what ``write_snapshot`` wrote (cut, edited, not gzip) is refused whole before any item is used.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import io
import json
import os
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boto3.dynamodb.table import BatchWriter
from boto3.dynamodb.types import TypeSerializer

from meta_mage.errors import MetaMageError
from meta_mage.models.json import JsonObject
from meta_mage.storage.dynamo import Item, all_pages, default_session, sdk_errors

SNAPSHOT_FORMAT = 2  # 2: the header holds ``items_digest``
REBUILD = "reinstall, or run scripts/build_demo_snapshot.py"
_SERIALISER = TypeSerializer()
_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")


class SnapshotDamaged(MetaMageError):
    """A snapshot file that is not what ``write_snapshot`` wrote; the message is one line naming the file,
    what is wrong and what to do."""

    code = "snapshot_damaged"

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path} is damaged ({reason}): {REBUILD}")
        self.path = path


@dataclass(frozen=True)
class Snapshot:
    """A snapshot file's header and its items by table logical id, in DynamoDB's typed JSON as the wire
    carries it (``{"pk": {"S": ...}, "data": {"B": <base64>}}``)."""

    source_digest: str
    items: dict[str, list[Item]]

    @property
    def counts(self) -> dict[str, int]:
        return {table: len(items) for table, items in self.items.items()}


def dump_tables(dynamodb: Any, names: dict[str, str]) -> dict[str, list[Item]]:
    """Every item of each table (``names``: logical id → physical name) in typed JSON, sorted by key."""
    dumped: dict[str, list[Item]] = {}
    with sdk_errors("reading the tables for a snapshot"):
        for logical_id, name in names.items():
            table = dynamodb.Table(name)
            keys = [k["AttributeName"] for k in table.key_schema]
            items = all_pages(table.scan)
            items.sort(key=lambda item: [str(item.get(k)) for k in keys])
            dumped[logical_id] = [_to_json({k: _SERIALISER.serialize(v) for k, v in item.items()}) for item in items]
    return dumped


def load_items(dynamodb: Any, names: dict[str, str], items: dict[str, list[Item]]) -> int:
    """Put ``items`` (typed JSON, by logical id) into the tables; return how many were written."""
    # The items are in DynamoDB's own typed form already: a plain client (no resource's conversion to Python
    # values and back) writes them as they are, through boto3's batch writer (25 a request, unprocessed retried)
    resource_client = dynamodb.meta.client
    client = default_session().client(
        "dynamodb", region_name=resource_client.meta.region_name, endpoint_url=resource_client.meta.endpoint_url
    )
    written = 0
    with sdk_errors("loading the snapshot"):
        for logical_id, table_items in items.items():
            with BatchWriter(names[logical_id], client) as batch:
                for item in table_items:
                    batch.put_item(Item=_from_json(item))
            written += len(table_items)
    return written


def item_counts(dynamodb: Any, names: dict[str, str]) -> dict[str, int]:
    """How many items each table holds, by logical id (DescribeTable; DynamoDB itself updates the figure
    about every six hours, moto at once)."""
    with sdk_errors("counting the tables' items"):
        return {
            logical_id: int(dynamodb.meta.client.describe_table(TableName=name)["Table"]["ItemCount"])
            for logical_id, name in names.items()
        }


def write_snapshot(path: Path, snapshot: Snapshot) -> None:
    """Write ``snapshot`` to ``path`` (gzip without a timestamp, so equal snapshots are equal files), its
    header holding the digest of its item lines; the file is replaced whole, never left half written."""
    lines = [
        (json.dumps({"table": table, "item": item}, sort_keys=True, ensure_ascii=False) + "\n").encode()
        for table, items in snapshot.items.items()
        for item in items
    ]
    header = {
        "format": SNAPSHOT_FORMAT,
        "source_digest": snapshot.source_digest,
        "counts": snapshot.counts,
        "items_digest": items_digest(lines),
    }
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=9) as out:
        out.write((json.dumps(header, sort_keys=True) + "\n").encode())
        out.writelines(lines)
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(buffer.getvalue())
    os.replace(partial, path)


def items_digest(lines: Iterable[bytes]) -> str:
    """The SHA-256 of a snapshot's item lines, as its header records it."""
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line)
    return digest.hexdigest()


def read_header(path: Path) -> JsonObject:
    """The snapshot's first line: format, ``source_digest``, item counts per table and ``items_digest``
    (of any format: its ``source_digest`` tells a stale one); ``SnapshotDamaged`` when it cannot be read."""
    with _reading(path) as stream:
        return _header(path, stream.readline())


def read_snapshot(path: Path) -> Snapshot:
    """The whole snapshot, checked before any item is used: its lines against the header's digest, then
    their shape; raises ``SnapshotDamaged`` (one line naming the file) when it is not what was written."""
    with _reading(path) as stream:
        header = _header(path, stream.readline())
        lines = stream.readlines()
    if header.get("format") != SNAPSHOT_FORMAT:
        raise SnapshotDamaged(path, f"snapshot format {header.get('format')!r}, this version reads {SNAPSHOT_FORMAT}")
    if not isinstance(header.get("items_digest"), str):
        raise SnapshotDamaged(path, "its header holds no items digest")
    if items_digest(lines) != header["items_digest"]:
        raise SnapshotDamaged(path, "items digest differs from its header")
    counts = header.get("counts")
    if not isinstance(counts, dict) or not all(isinstance(n, int) for n in counts.values()):
        raise SnapshotDamaged(path, "its header holds no item counts")
    items: dict[str, list[Item]] = {table: [] for table in counts}
    for number, line in enumerate(lines, start=2):
        table, item = _record(path, number, line)
        if table not in items:
            raise SnapshotDamaged(path, f"line {number}: table {table!r} is not in its header")
        items[table].append(item)
    snapshot = Snapshot(header["source_digest"], items)
    if snapshot.counts != counts:
        raise SnapshotDamaged(path, f"holds {snapshot.counts} items, its header says {counts}")
    return snapshot


@contextmanager
def _reading(path: Path) -> Iterator[gzip.GzipFile]:
    """``gzip.open(path, "rb")`` whose failures (missing, not gzip, cut short, corrupt) are ``SnapshotDamaged``."""
    try:
        with gzip.open(path, "rb") as stream:
            yield stream
    except FileNotFoundError as exc:
        raise SnapshotDamaged(path, "missing") from exc
    except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError
        raise SnapshotDamaged(path, f"not a whole gzip file: {exc}") from exc


def _header(path: Path, line: bytes) -> JsonObject:
    try:
        header = json.loads(line)
    except ValueError:
        header = None
    if not isinstance(header, dict) or not isinstance(header.get("source_digest"), str):
        raise SnapshotDamaged(path, "its first line is not a snapshot header")
    return header


def _record(path: Path, number: int, line: bytes) -> tuple[str, Item]:
    """One item line's table and item, its typed JSON checked (a wrong type fails here, not in a load)."""
    try:
        record = json.loads(line)
    except ValueError:
        raise SnapshotDamaged(path, f"line {number} is not JSON") from None
    if not isinstance(record, dict) or not isinstance(record.get("table"), str):
        raise SnapshotDamaged(path, f"line {number} is not a table's item")
    item = record.get("item")
    if not isinstance(item, dict) or not item or not all(_well_typed(value) for value in item.values()):
        raise SnapshotDamaged(path, f"line {number}: an attribute is not DynamoDB typed JSON")
    return record["table"], item


def _well_typed(value: Any) -> bool:
    """Whether ``value`` is one attribute in DynamoDB's typed JSON (binaries as base64)."""
    if not isinstance(value, dict) or len(value) != 1:
        return False
    ((kind, payload),) = value.items()
    well_typed = _PAYLOADS.get(kind)
    return well_typed is not None and well_typed(payload)


def _is_base64(text: str) -> bool:
    try:
        binascii.a2b_base64(text, strict_mode=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _is_string(payload: Any) -> bool:
    return isinstance(payload, str)


def _is_number(payload: Any) -> bool:
    return isinstance(payload, str) and bool(_NUMBER.fullmatch(payload))


def _is_binary(payload: Any) -> bool:
    return isinstance(payload, str) and _is_base64(payload)


def _is_bool(payload: Any) -> bool:
    return isinstance(payload, bool)


def _set_of(kind: str) -> Callable[[Any], bool]:
    """A set's payload check (``SS``, ``NS``, ``BS``): a list whose members are each of ``kind``."""
    return lambda payload: isinstance(payload, list) and all(_well_typed({kind: member}) for member in payload)


def _is_map(payload: Any) -> bool:
    return isinstance(payload, dict) and all(_well_typed(v) for v in payload.values())


def _is_list(payload: Any) -> bool:
    return isinstance(payload, list) and all(_well_typed(v) for v in payload)


# Each type descriptor of DynamoDB's typed JSON, and the check of its payload.
_PAYLOADS: dict[str, Callable[[Any], bool]] = {
    "S": _is_string,
    "N": _is_number,
    "B": _is_binary,
    "BOOL": _is_bool,
    "NULL": _is_bool,
    "SS": _set_of("S"),
    "NS": _set_of("N"),
    "BS": _set_of("B"),
    "M": _is_map,
    "L": _is_list,
}


def _to_json(item: Item) -> Item:
    """An item in DynamoDB's typed JSON with Binary (``B``, ``BS``) as base64 text."""
    return {name: _typed(value, _binary_text) for name, value in item.items()}


def _from_json(item: Item) -> Item:
    return {name: _typed(value, base64.b64decode) for name, value in item.items()}


def _typed(value: Item, convert: Any) -> Item:
    """One typed value (``{"S": ...}``, ``{"M": {...}}``...) with ``convert`` applied to its binaries."""
    ((kind, payload),) = value.items()
    if kind == "B":
        return {kind: convert(payload)}
    if kind == "BS":
        return {kind: [convert(blob) for blob in payload]}
    if kind == "M":
        return {kind: {name: _typed(v, convert) for name, v in payload.items()}}
    if kind == "L":
        return {kind: [_typed(v, convert) for v in payload]}
    return value


def _binary_text(blob: Any) -> str:
    return base64.b64encode(bytes(blob)).decode("ascii")
