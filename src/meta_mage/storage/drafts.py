"""DraftsTable repository: one partition per draft, plus a registry partition.

``DRAFT#<id>`` / ``#META`` holds the header and the current ``version``; ``DRAFT#<id>`` /
``CARD#<version>#<name>`` holds each pool card of that version with its details and picks. A
re-import writes its cards under new keys, then flips the header, then deletes the old version's
cards; readers keep only cards of the header's version. So a re-import in progress, or one that
failed part way, leaves the previous pool whole. ``DRAFTS`` / ``<id>`` lists drafts for ``list_drafts``.

A pool read is one GetItem of the header, then, only when its version is not the one this process last
read, one Query of that version's cards: a version's cards never change, so the repository keeps the last
pools it read (``POOLS_KEPT``) and every further question about the draft costs one small read.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from boto3.dynamodb.conditions import Key

from meta_mage.models.stored_drafts import DraftHeader, StoredPick, StoredPoolCard
from meta_mage.storage.dynamo import query_all, storage_operation

POOLS_KEPT = 8  # drafts whose current pool a process keeps (a cube pool is ~500 items)
READS = 3  # a header, then its version's cards: again when a re-import replaced the version in between


class DraftsRepository:
    """All reads and writes of the DraftsTable."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self._pools: OrderedDict[str, tuple[str, tuple[StoredPoolCard, ...]]] = OrderedDict()  # id -> version, cards
        self._kept = threading.Lock()  # tools run in worker threads

    @storage_operation
    def put_draft(self, header: DraftHeader, cards: list[StoredPoolCard], version: str) -> None:
        """Store a draft's pool as ``version``: cards first, then the header, then drop the cards of the
        version it replaced (only those: an import running at the same time keeps its own)."""
        pk = f"DRAFT#{header.draft_id}"
        replaced = self.get_version(header.draft_id)
        with self.table.batch_writer(overwrite_by_pkeys=["pk", "sk"]) as batch:
            for card in cards:
                sk = f"CARD#{version}#{card.card_name}"
                batch.put_item(Item={"pk": pk, "sk": sk, "version": version, **asdict(card)})
        self.table.put_item(Item={"pk": pk, "sk": "#META", "version": version, **asdict(header)})
        self.table.put_item(Item={"pk": "DRAFTS", "sk": header.draft_id, "version": version, **asdict(header)})
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
    def get_pool(self, draft_id: str) -> tuple[DraftHeader, tuple[StoredPoolCard, ...]] | None:
        """Header and current cards of a draft, or None: the header, then its version's cards (kept per version,
        shared: they are frozen)."""
        for _ in range(READS):
            header = self.table.get_item(Key={"pk": f"DRAFT#{draft_id}", "sk": "#META"}).get("Item")
            if header is None:
                return None
            cards = self._cards(draft_id, str(header["version"]))
            if len(cards) == int(header.get("total_cards", len(cards))):
                return _header(header), cards
            with self._kept:  # a re-import replaced the version while it was read: read again
                self._pools.pop(draft_id, None)
        raise RuntimeError(f"draft {draft_id!r} kept changing while it was read; try again")

    def _cards(self, draft_id: str, version: str) -> tuple[StoredPoolCard, ...]:
        with self._kept:
            kept = self._pools.get(draft_id)
            if kept is not None and kept[0] == version:
                self._pools.move_to_end(draft_id)
                return kept[1]
        items = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(f"DRAFT#{draft_id}") & Key("sk").begins_with(f"CARD#{version}#"),
        )
        cards = tuple(_pool_card(item) for item in items)
        with self._kept:
            self._pools[draft_id] = (version, cards)
            while len(self._pools) > POOLS_KEPT:
                self._pools.popitem(last=False)
        return cards

    @storage_operation
    def list_drafts(self) -> list[DraftHeader]:
        """Every draft's header (one Query)."""
        return [_header(item) for item in query_all(self.table, KeyConditionExpression=Key("pk").eq("DRAFTS"))]


def _header(item: Mapping[str, Any]) -> DraftHeader:
    return DraftHeader(
        draft_id=str(item["draft_id"]),
        draft_name=str(item["draft_name"]),
        draft_date=str(item["draft_date"]),
        drafters=tuple(str(d) for d in item.get("drafters") or ()),
        total_cards=int(item["total_cards"]),
        picks=int(item.get("picks", 0)),
    )


def _pool_card(item: Mapping[str, Any]) -> StoredPoolCard:
    return StoredPoolCard(
        card_name=str(item["card_name"]),
        quantity=int(item["quantity"]),
        picks=tuple(StoredPick(str(p["drafter"]), int(p["pick_n"])) for p in item.get("picks") or ()),
        mana_cost=item.get("mana_cost"),
        type_line=item.get("type_line") or "",
        colors=tuple(item.get("colors") or ()),
        color_identity=item.get("color_identity") or "C",
    )
