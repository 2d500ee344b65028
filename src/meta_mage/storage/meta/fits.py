"""Derived data stored beside the figures: each window's matchup model, the look-alike archetypes, and the
format's provisional archetypes (one versioned item)."""

from __future__ import annotations

from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError

from meta_mage.models.meta import FittedModel, Lookalike, PairFit, WindowFit
from meta_mage.storage.dynamo import Item, pack, query_all, storage_operation, unpack
from meta_mage.storage.meta.keys import LOOKALIKES_SK, MAX_ITEM_BYTES, item_size, model_key, models_pk, provisional_key
from meta_mage.storage.meta.records import ItemTooLarge
from meta_mage.storage.meta.writes import TableAccess, condition_failed, unchanged_since


class Fits(TableAccess):
    """Matchup models, look-alikes and provisional archetypes."""

    @storage_operation
    def put_matchup_models(self, fmt: str, end: str, fits: list[WindowFit]) -> None:
        """Store fitted window models, replacing the previous fit of each window length (one batch: they are
        derived data, which ``repair`` refits if a write is lost)."""
        with self.table.batch_writer() as batch:
            for fit in fits:
                batch.put_item(
                    Item={
                        **model_key(fmt, fit.days),
                        "end": end,
                        "fingerprint": fit.fingerprint,
                        "data": pack(_model_json(fit.model)),
                    }
                )

    @storage_operation
    def fitted_windows(self, fmt: str) -> dict[int, tuple[str, str]]:
        """The ``(end, fingerprint)`` of each stored window fit of the format, by window length (one Query,
        without the models)."""
        items = query_all(
            self.table,
            KeyConditionExpression=Key("pk").eq(models_pk(fmt)),
            ProjectionExpression="sk, #end, fingerprint",
            ExpressionAttributeNames={"#end": "end"},
        )
        return {
            int(item["sk"]): (str(item.get("end", "")), str(item.get("fingerprint", "")))
            for item in items
            if item["sk"].isdigit()
        }

    @storage_operation
    def matchup_model(self, fmt: str, days: int, end: str, fingerprint: str) -> FittedModel | None:
        """The stored fit of the window, or None when there is none for exactly these figures."""
        item = self.table.get_item(Key=model_key(fmt, days)).get("Item")
        if not item or item.get("end") != end or item.get("fingerprint") != fingerprint:
            return None
        return _model_of(unpack(item["data"]))

    @storage_operation
    def put_lookalikes(self, fmt: str, found: list[Lookalike]) -> None:
        """Store the format's archetypes that are possibly one deck (``analytics/lookalikes.py``)."""
        rows = [item.model_dump() for item in found]
        self.table.put_item(Item={"pk": models_pk(fmt), "sk": LOOKALIKES_SK, "data": pack(rows)})

    @storage_operation
    def lookalikes(self, fmt: str) -> list[Lookalike]:
        item = self.table.get_item(Key={"pk": models_pk(fmt), "sk": LOOKALIKES_SK}).get("Item")
        return [Lookalike.model_validate(row) for row in unpack(item["data"])] if item else []

    @storage_operation
    def provisional_archetypes(self, fmt: str) -> tuple[int, list[Item]]:
        """The version of the format's provisional archetypes (0: none stored yet) and their rows."""
        item = self.table.get_item(Key=provisional_key(fmt), ConsistentRead=True).get("Item")
        if item is None:
            return 0, []
        rows: list[Item] = unpack(item["data"])
        return int(item.get("version", 0)), rows

    @storage_operation
    def put_provisional_archetypes(self, fmt: str, rows: list[Item], version_read: int) -> bool:
        """Replace the format's provisional archetypes, on condition that they are still at ``version_read``;
        False when another writer replaced them meanwhile (read them again and retry)."""
        item = {**provisional_key(fmt), "version": version_read + 1, "data": pack(rows)}
        if (size := item_size(item)) > MAX_ITEM_BYTES:
            raise ItemTooLarge(f"{fmt}'s provisional archetypes would be stored as {size / 1024:,.0f} KB")
        try:
            self.table.put_item(Item=item, ConditionExpression=unchanged_since(version_read or None))
        except ClientError as exc:
            if condition_failed(exc):
                return False
            raise
        return True


def _model_json(model: FittedModel) -> Item:
    return {
        "tau": model.tau,
        "strengths": {name: list(pair) for name, pair in model.strengths.items()},
        "pairs": [[p.a, p.b, p.deviation, p.variance, p.matches] for p in model.pairs],
    }


def _model_of(data: Item) -> FittedModel:
    return FittedModel(
        tau=float(data["tau"]),
        strengths={name: (float(pair[0]), float(pair[1])) for name, pair in data["strengths"].items()},
        pairs=tuple(PairFit(a, b, float(value), float(var), int(n)) for a, b, value, var, n in data["pairs"]),
    )
