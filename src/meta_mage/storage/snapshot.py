"""Table snapshots: every item of some tables written to one gzipped JSON-lines file, and loaded back.

The demo's embedded DynamoDB starts from one (``local/seed.py``) instead of re-running the ingest.
The file's first line is a header (what the snapshot was made from, and how many items per table);
each later line is ``{"table": <logical id>, "item": <item in DynamoDB's typed JSON>}``, sorted by
table and key, so the same tables give the same bytes.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

from meta_mage.storage.dynamo import all_pages, sdk_errors

SNAPSHOT_FORMAT = 1
_SERIALISER, _DESERIALISER = TypeSerializer(), TypeDeserializer()


@dataclass(frozen=True)
class Snapshot:
    """A snapshot file's header and its items by table logical id, in DynamoDB's typed JSON as the wire
    carries it (``{"pk": {"S": ...}, "data": {"B": <base64>}}``)."""

    source_digest: str
    items: dict[str, list[dict[str, Any]]]

    @property
    def counts(self) -> dict[str, int]:
        return {table: len(items) for table, items in self.items.items()}


def dump_tables(dynamodb: Any, names: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
    """Every item of each table (``names``: logical id → physical name) in typed JSON, sorted by key."""
    dumped: dict[str, list[dict[str, Any]]] = {}
    with sdk_errors("reading the tables for a snapshot"):
        for logical_id, name in names.items():
            table = dynamodb.Table(name)
            keys = [k["AttributeName"] for k in table.key_schema]
            items = all_pages(table.scan)
            items.sort(key=lambda item: [str(item.get(k)) for k in keys])
            dumped[logical_id] = [_to_json({k: _SERIALISER.serialize(v) for k, v in item.items()}) for item in items]
    return dumped


def load_items(dynamodb: Any, names: dict[str, str], items: dict[str, list[dict[str, Any]]]) -> int:
    """Put ``items`` (typed JSON, by logical id) into the tables; return how many were written."""
    written = 0
    with sdk_errors("loading the snapshot"):
        for logical_id, table_items in items.items():
            with dynamodb.Table(names[logical_id]).batch_writer() as batch:  # 25 a request, unprocessed retried
                for item in table_items:
                    batch.put_item(Item={k: _DESERIALISER.deserialize(v) for k, v in _from_json(item).items()})
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
    """Write ``snapshot`` to ``path`` (gzip without a timestamp, so equal snapshots are equal files)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=9) as out:
        header = {"format": SNAPSHOT_FORMAT, "source_digest": snapshot.source_digest, "counts": snapshot.counts}
        out.write((json.dumps(header, sort_keys=True) + "\n").encode())
        for table, items in snapshot.items.items():
            for item in items:
                line = json.dumps({"table": table, "item": item}, sort_keys=True, ensure_ascii=False)
                out.write((line + "\n").encode())
    path.write_bytes(buffer.getvalue())


def read_header(path: Path) -> dict[str, Any]:
    """The snapshot's first line: format, ``source_digest`` and item counts per table."""
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return _header(path, lines.readline())


def read_snapshot(path: Path) -> Snapshot:
    """The whole snapshot; raises ``ValueError`` naming the file when its item counts do not add up."""
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        header = _header(path, lines.readline())
        items: dict[str, list[dict[str, Any]]] = {table: [] for table in header["counts"]}
        for line in lines:
            record = json.loads(line)
            items[record["table"]].append(record["item"])
    snapshot = Snapshot(header["source_digest"], items)
    if snapshot.counts != header["counts"]:
        raise ValueError(f"{path}: holds {snapshot.counts} items, its header says {header['counts']} (truncated?)")
    return snapshot


def _header(path: Path, line: str) -> dict[str, Any]:
    header: dict[str, Any] = json.loads(line)
    if header.get("format") != SNAPSHOT_FORMAT:
        raise ValueError(f"{path}: snapshot format {header.get('format')!r}, expected {SNAPSHOT_FORMAT}")
    return header


def _to_json(item: dict[str, Any]) -> dict[str, Any]:
    """An item in DynamoDB's typed JSON with Binary (``B``, ``BS``) as base64 text."""
    return {name: _typed(value, _binary_text) for name, value in item.items()}


def _from_json(item: dict[str, Any]) -> dict[str, Any]:
    return {name: _typed(value, base64.b64decode) for name, value in item.items()}


def _typed(value: dict[str, Any], convert: Any) -> dict[str, Any]:
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
