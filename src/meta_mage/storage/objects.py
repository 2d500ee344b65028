"""The drop-zone bucket (S3) and the ingest failure queue (SQS): the only code that calls those two
services. What the SDK raises after its retries comes out as domain errors, like the tables'
repositories do (``storage.dynamo.storage_operation``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from botocore.exceptions import BotoCoreError, ClientError

from meta_mage.errors import InvalidArgument, NotFound, StorageUnavailable
from meta_mage.storage.dynamo import sdk_errors, sdk_problem

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_sqs import SQSClient


class ObjectMissing(NotFound):
    """The object named in an event is gone (deleted or overwritten since the event)."""


class ObjectTooLarge(InvalidArgument):
    """The object is over the size the drop zone reads."""


class DropZoneBucket:
    """Reads and writes objects of the ingest drop zone."""

    def __init__(self, client: S3Client) -> None:
        self.client = client

    def read(self, bucket: str, key: str, max_bytes: int) -> bytes:
        """The object's bytes. ``ObjectMissing`` when it is gone, ``ObjectTooLarge`` over ``max_bytes``
        (without reading it), ``StorageUnavailable`` when S3 fails."""
        where = f"s3://{bucket}/{key}"
        try:
            response = self.client.get_object(Bucket=bucket, Key=key)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code", "") in ("NoSuchKey", "404", "NotFound"):
                raise ObjectMissing(f"{where} no longer exists") from exc
            raise StorageUnavailable(f"{sdk_problem(exc)} (cannot read {where})") from exc
        except BotoCoreError as exc:
            raise StorageUnavailable(f"{sdk_problem(exc)} (cannot read {where})") from exc
        size = int(response.get("ContentLength", 0))
        if size > max_bytes:
            response["Body"].close()
            raise ObjectTooLarge(f"{size} bytes is over the {max_bytes} byte limit; split it")
        with sdk_errors(f"cannot read {where}"):
            return response["Body"].read()

    def put(self, bucket: str, key: str, body: bytes, content_type: str) -> None:
        """Write ``body`` as one object."""
        with sdk_errors(f"cannot write s3://{bucket}/{key}"):
            self.client.put_object(Bucket=bucket, Key=key, Body=body, ContentType=content_type)

    def upload(self, path: Path, bucket: str, key: str, content_type: str) -> None:
        """Upload a local file (multipart when large)."""
        with sdk_errors(f"cannot upload {path} to s3://{bucket}/{key}"):
            self.client.upload_file(str(path), bucket, key, ExtraArgs={"ContentType": content_type})


class FailureQueue:
    """The queue that receives one message per file the drop zone could not ingest."""

    def __init__(self, client: SQSClient, url: str) -> None:
        self.client = client
        self.url = url

    def send(self, body: str, error_code: str) -> None:
        """Send one failure report; ``StorageUnavailable`` when SQS refuses it."""
        with sdk_errors("the failure queue refused the report"):
            self.client.send_message(
                QueueUrl=self.url,
                MessageBody=body,
                MessageAttributes={"error_code": {"DataType": "String", "StringValue": error_code}},
            )
