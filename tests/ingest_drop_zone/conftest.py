"""A moto world for the drop zone: the template's DynamoDB tables, the IngestBucket and the failure queue."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
import pytest

from meta_mage.config import Settings, get_settings
from meta_mage.ingest import lambda_handler
from meta_mage.storage.cards import CardsRepository
from meta_mage.storage.drafts import DraftsRepository
from meta_mage.storage.meta import MetaRepository
from tests.lambda_helpers import FakeLambdaContext, Handler, entry_point

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"
BUCKET = "meta-mage-ingest"  # the bucket of events/ingest_s3_put.json


def ingest_entry_point() -> Handler:
    """``functions/ingest/app.py``'s ``lambda_handler``, loaded the way the runtime does."""
    return entry_point("ingest")


def s3_event(*keys: str, bucket: str = BUCKET, event_name: str = "ObjectCreated:Put") -> dict[str, Any]:
    """An S3 notification with one record per key, keys URL-encoded the way S3 sends them."""
    from urllib.parse import quote_plus

    template = json.loads((EVENTS / "ingest_s3_put.json").read_text())["Records"][0]
    records = []
    for key in keys:
        record = json.loads(json.dumps(template))
        record["eventName"] = event_name
        record["s3"]["bucket"]["name"] = bucket
        record["s3"]["bucket"]["arn"] = f"arn:aws:s3:::{bucket}"
        record["s3"]["object"]["key"] = quote_plus(key, safe="/")
        records.append(record)
    return {"Records": records}


@dataclass
class DropWorld:
    """Clients and repositories over one moto account."""

    settings: Settings
    db: Any
    s3: Any
    sqs: Any
    queue_url: str
    handler: Callable[[dict[str, Any], Any], dict[str, Any]]
    tables: list[str] = field(default_factory=list)

    def put(self, key: str, data: bytes) -> None:
        self.s3.put_object(Bucket=BUCKET, Key=key, Body=data)

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        return self.handler(event, FakeLambdaContext("IngestFunction", 1024, remaining_millis=300_000))

    def drop(self, key: str, data: bytes) -> dict[str, Any]:
        """Put an object and deliver its notification; return the one object result."""
        self.put(key, data)
        objects: list[dict[str, Any]] = self.invoke(s3_event(key))["objects"]
        assert len(objects) == 1
        return objects[0]

    def messages(self) -> list[dict[str, Any]]:
        """Every message on the failure queue (received and deleted)."""
        found: list[dict[str, Any]] = []
        while True:
            batch = self.sqs.receive_message(
                QueueUrl=self.queue_url, MaxNumberOfMessages=10, MessageAttributeNames=["All"]
            ).get("Messages", [])
            if not batch:
                return found
            for message in batch:
                body = json.loads(message["Body"])
                assert message["MessageAttributes"]["error_code"]["StringValue"] == body["error_code"]
                found.append(body)
                self.sqs.delete_message(QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"])

    def scan(self, table: str) -> list[dict[str, Any]]:
        """Every item of a table (all pages), in key order."""
        items: list[dict[str, Any]] = []
        kwargs: dict[str, Any] = {}
        while True:
            page = self.db.Table(table).scan(**kwargs)
            items += page["Items"]
            if "LastEvaluatedKey" not in page:
                return sorted(items, key=lambda i: (str(i.get("pk")), str(i.get("sk", ""))))
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        """Every item of every table (to prove a failed file wrote nothing)."""
        return {name: self.scan(name) for name in self.tables}

    @property
    def meta(self) -> MetaRepository:
        return MetaRepository(self.db.Table(self.settings.meta_table))

    @property
    def cards(self) -> CardsRepository:
        return CardsRepository(self.db.Table(self.settings.cards_table))

    @property
    def drafts(self) -> DraftsRepository:
        return DraftsRepository(self.db.Table(self.settings.drafts_table))


@pytest.fixture()
def world(dynamodb: Any, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[DropWorld]:
    """Fresh tables (the shared ``dynamodb`` fixture, inside mock_aws), bucket and queue, env for the function."""
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket=BUCKET)
    sqs = boto3.client("sqs", region_name="us-east-1")
    queue_url = sqs.create_queue(QueueName="meta-mage-ingest-failures")["QueueUrl"]
    monkeypatch.setenv("META_MAGE_INGEST_FAILURE_QUEUE_URL", queue_url)
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "MetaMageTest")
    get_settings.cache_clear()
    lambda_handler.runtime.cache_clear()
    yield DropWorld(
        settings=settings,
        db=dynamodb,
        s3=s3,
        sqs=sqs,
        queue_url=queue_url,
        handler=ingest_entry_point(),
        tables=[settings.meta_table, settings.cards_table, settings.drafts_table],
    )
    lambda_handler.runtime.cache_clear()
    get_settings.cache_clear()
    for obj in s3.list_objects_v2(Bucket=BUCKET).get("Contents", []):
        s3.delete_object(Bucket=BUCKET, Key=obj["Key"])
    s3.delete_bucket(Bucket=BUCKET)
    sqs.delete_queue(QueueUrl=queue_url)
