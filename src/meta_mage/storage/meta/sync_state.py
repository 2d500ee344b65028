"""The demo data's marker (``SEED``) and the sync's cursor (``SYNC#``)."""

from __future__ import annotations

import datetime as dt

from boto3.dynamodb.conditions import Attr
from botocore.exceptions import ClientError

from meta_mage.storage.dynamo import storage_operation
from meta_mage.storage.meta.keys import SEED_KEY, cursor_key
from meta_mage.storage.meta.writes import TableAccess, condition_failed


class SyncState(TableAccess):
    """What the seed and the sync remember of what they stored."""

    @storage_operation
    def holds_items(self) -> bool:
        """Whether any item is stored at all (a one-item Scan)."""
        return bool(self.table.scan(Limit=1, ProjectionExpression="pk").get("Items"))

    @storage_operation
    def seeded_digest(self) -> str | None:
        """The digest of the demo data last loaded here, or None."""
        item = self.table.get_item(Key=SEED_KEY).get("Item")
        return str(item["digest"]) if item else None

    @storage_operation
    def mark_seeded(self, digest: str) -> None:
        self.table.put_item(Item={**SEED_KEY, "digest": digest})

    @storage_operation
    def sync_cursor(self, repository: str, branch: str) -> str | None:
        """The last commit of ``repository``'s ``branch`` whose files are all stored, or None."""
        item = self.table.get_item(Key=cursor_key(repository, branch), ConsistentRead=True).get("Item")
        return str(item["sha"]) if item else None

    @storage_operation
    def advance_sync_cursor(self, repository: str, branch: str, sha: str, previous: str | None) -> bool:
        """Move the cursor from ``previous`` to ``sha``; False when another sync moved it meanwhile."""
        expected = Attr("pk").not_exists() if previous is None else Attr("sha").eq(previous)
        item = {**cursor_key(repository, branch), "sha": sha, "synced_at": dt.datetime.now(dt.UTC).isoformat()}
        try:
            self.table.put_item(Item=item, ConditionExpression=expected)
        except ClientError as exc:
            if condition_failed(exc):
                return False
            raise
        return True
