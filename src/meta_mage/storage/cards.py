"""CardsTable repository: one item per card plus a compressed index of every name."""

from __future__ import annotations

import json
from typing import Any

from meta_mage.models.cards import Card
from meta_mage.storage.dynamo import pack, storage_operation, unpack

NAMES_KEY = "#NAMES"
_BATCH_GET_LIMIT = 100


class CardsRepository:
    """All reads and writes of the CardsTable."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self._names: list[str] | None = None

    @storage_operation
    def put_cards(self, cards: list[Card]) -> None:
        """Store cards (overwriting same keys), then merge their names into the index."""
        with self.table.batch_writer(overwrite_by_pkeys=["pk"]) as batch:
            for card in cards:
                batch.put_item(Item={"pk": card.key, "name": card.name, "card": card.model_dump_json()})
        names = set(self.all_names()) | {card.name for card in cards}
        self.table.put_item(Item={"pk": NAMES_KEY, "count": len(names), "data": pack(sorted(names))})
        self._names = sorted(names)

    @storage_operation
    def get_many(self, keys: list[str]) -> dict[str, Card]:
        """Cards by normalised key (BatchGetItem, 100 keys per request)."""
        wanted = list(dict.fromkeys(k for k in keys if k and k != NAMES_KEY))
        found: dict[str, Card] = {}
        client = self.table.meta.client
        for start in range(0, len(wanted), _BATCH_GET_LIMIT):
            request: dict[str, dict[str, object]] = {
                self.table.name: {"Keys": [{"pk": k} for k in wanted[start : start + _BATCH_GET_LIMIT]]}
            }
            while request:
                response = client.batch_get_item(RequestItems=request)
                for item in response.get("Responses", {}).get(self.table.name, []):
                    found[item["pk"]] = Card.model_validate(json.loads(item["card"]))
                request = response.get("UnprocessedKeys") or {}
        return found

    @storage_operation
    def all_names(self) -> list[str]:
        """Every stored card name (one GetItem, cached for the life of the repository)."""
        if self._names is None:
            item = self.table.get_item(Key={"pk": NAMES_KEY}).get("Item")
            self._names = unpack(item["data"]) if item else []
        return self._names

    @storage_operation
    def count(self) -> int:
        item = self.table.get_item(
            Key={"pk": NAMES_KEY}, ProjectionExpression="#c", ExpressionAttributeNames={"#c": "count"}
        ).get("Item")
        return int(item["count"]) if item else 0
