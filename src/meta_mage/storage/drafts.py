"""DraftsTable repository: one partition per draft, plus a registry partition.

``DRAFT#<id>`` / ``#META`` holds the header and the current ``version``; ``DRAFT#<id>`` /
``CARD#<version>#<name>`` holds each pool card of that version with its details and picks. A
re-import writes its cards under new keys, then flips the header, then deletes the old version's
cards; readers keep only cards of the header's version. So a re-import in progress, or one that
failed part way, leaves the previous pool whole. ``DRAFTS`` / ``<id>`` lists drafts for ``list_drafts``.
"""

from __future__ import annotations

from typing import Any

from boto3.dynamodb.conditions import Key

from meta_mage.storage.dynamo import query_all, storage_operation


class DraftsRepository:
    """All reads and writes of the DraftsTable."""

    def __init__(self, table: Any) -> None:
        self.table = table

    @storage_operation
    def put_draft(self, header: dict[str, Any], cards: list[dict[str, Any]], version: str) -> None:
        """Store a draft's pool as ``version``: cards first, then the header, then drop the cards of the
        version it replaced (only those: an import running at the same time keeps its own)."""
        pk = f"DRAFT#{header['draft_id']}"
        replaced = self.get_version(header["draft_id"])
        with self.table.batch_writer(overwrite_by_pkeys=["pk", "sk"]) as batch:
            for card in cards:
                batch.put_item(Item={"pk": pk, "sk": f"CARD#{version}#{card['card_name']}", "version": version, **card})
        self.table.put_item(Item={"pk": pk, "sk": "#META", "version": version, **header})
        self.table.put_item(Item={"pk": "DRAFTS", "sk": header["draft_id"], "version": version, **header})
        if replaced is None or replaced == version:
            return
        stale = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(pk) & Key("sk").begins_with("CARD#"),
            ProjectionExpression="sk, version",
        )
        with self.table.batch_writer(overwrite_by_pkeys=["pk", "sk"]) as batch:
            for item in stale:
                if item.get("version") == replaced:
                    batch.delete_item(Key={"pk": pk, "sk": item["sk"]})

    @storage_operation
    def get_version(self, draft_id: str) -> str | None:
        item = self.table.get_item(Key={"pk": f"DRAFT#{draft_id}", "sk": "#META"}, ProjectionExpression="version").get(
            "Item"
        )
        return str(item["version"]) if item else None

    @storage_operation
    def get_pool(self, draft_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """Header and current cards of a draft (one Query, a page or two), or None."""
        items = query_all(self.table, KeyConditionExpression=Key("pk").eq(f"DRAFT#{draft_id}"))
        header = next((i for i in items if i["sk"] == "#META"), None)
        if header is None:
            return None
        cards = [i for i in items if i["sk"].startswith("CARD#") and i.get("version") == header["version"]]
        return header, cards

    @storage_operation
    def list_drafts(self) -> list[dict[str, Any]]:
        """Every draft's header (one Query)."""
        return query_all(self.table, KeyConditionExpression=Key("pk").eq("DRAFTS"))
