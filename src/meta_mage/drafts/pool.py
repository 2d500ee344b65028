"""``get_draft_pool`` as ``spec/get-draft-pool-design.md`` defines it, over one DynamoDB partition."""

from __future__ import annotations

from typing import Any

from meta_mage.errors import NotFound
from meta_mage.models.drafts import (
    DraftPoolInput,
    DraftPoolResult,
    DraftSummary,
    ListDraftsOutput,
    PoolCard,
)
from meta_mage.storage.drafts import DraftsRepository

MAJOR_TYPES = ("Creature", "Planeswalker", "Artifact", "Enchantment", "Instant", "Sorcery", "Land")
_DETAIL_FIELDS = ("mana_cost", "type_line", "colors", "color_identity")


def major_types(type_line: str | None) -> list[str]:
    """Major card types on a type line (an Artifact Creature has two)."""
    front = (type_line or "").split("—")[0].split()
    return [t for t in MAJOR_TYPES if t in front]


def _matches_color(identity: str, wanted: str) -> bool:
    if wanted == "C":
        return identity == "C"
    if len(wanted) == 1:
        return wanted in identity
    return identity == wanted


def _pool_card(item: dict[str, Any], params: DraftPoolInput) -> dict[str, Any]:
    picks = sorted(item.get("picks") or [], key=lambda p: int(p["pick_n"]))
    card = PoolCard(card_name=item["card_name"], quantity=int(item["quantity"]), drafted=bool(picks))
    if params.include_draft_results and picks:
        card.drafted_by = str(picks[0]["drafter"])
        card.drafted_pick_n = int(picks[0]["pick_n"])
        if len(picks) > 1:
            card.additional_picks = [
                {"drafted_by": str(p["drafter"]), "drafted_pick_n": int(p["pick_n"])} for p in picks[1:]
            ]
    body = card.model_dump(exclude={"additional_picks", *_DETAIL_FIELDS})
    if card.additional_picks:
        body["additional_picks"] = card.additional_picks
    if params.include_card_details:
        body.update(
            mana_cost=item.get("mana_cost"),
            type_line=item.get("type_line"),
            colors=list(item.get("colors") or []),
            color_identity=item.get("color_identity"),
        )
    return body


class DraftPoolService:
    """The cube-draft tools."""

    def __init__(self, repository: DraftsRepository) -> None:
        self.repository = repository

    def list_drafts(self) -> ListDraftsOutput:
        rows = sorted(self.repository.list_drafts(), key=lambda d: (d["draft_date"], d["draft_id"]), reverse=True)
        return ListDraftsOutput(
            drafts=[
                DraftSummary(
                    draft_id=d["draft_id"],
                    draft_name=d["draft_name"],
                    draft_date=d["draft_date"],
                    total_cards=int(d["total_cards"]),
                    drafters=len(d.get("drafters") or []),
                    picks=int(d.get("picks", 0)),
                )
                for d in rows
            ]
        )

    def get_pool(self, params: DraftPoolInput) -> DraftPoolResult:
        """Filter first, then group; ``total_cards`` counts the cards left after filtering."""
        found = self.repository.get_pool(params.draft_id)
        if found is None:
            known = sorted(d["draft_id"] for d in self.repository.list_drafts())
            raise NotFound(
                f"unknown draft_id {params.draft_id!r}; known drafts: {', '.join(known) or 'none'}",
                field="draft_id",
                allowed=known,
            )
        header, items = found
        name_part = (params.name_contains or "").casefold()
        type_part = (params.type_contains or "").casefold()
        kept = [
            item
            for item in sorted(items, key=lambda i: i["card_name"])
            if (not params.color or _matches_color(item.get("color_identity") or "C", params.color))
            and (not type_part or type_part in (item.get("type_line") or "").casefold())
            and (not name_part or name_part in item["card_name"].casefold())
        ]
        cards: list[dict[str, Any]] | None = None
        grouped: dict[str, list[dict[str, Any]]] | None = None
        if params.group_by == "none":
            cards = [_pool_card(i, params) for i in kept]
        else:
            grouped = {}
            for item in kept:
                body = _pool_card(item, params)
                if params.group_by == "color_identity":
                    keys = [item.get("color_identity") or "C"]
                else:
                    keys = major_types(item.get("type_line")) or ["Other"]
                for key in keys:
                    grouped.setdefault(key, []).append(body)
            order = {
                "color_identity": lambda k: (len(k) if k != "C" else 1.5, ["WUBRGC".find(c) for c in k]),
                "type": lambda k: MAJOR_TYPES.index(k) if k in MAJOR_TYPES else 99,
            }[params.group_by]
            grouped = {k: grouped[k] for k in sorted(grouped, key=order)}  # type: ignore[arg-type]
        return DraftPoolResult(
            draft_id=header["draft_id"],
            draft_name=header["draft_name"],
            draft_date=header["draft_date"],
            total_cards=len(kept),
            cards=cards,
            grouped=grouped,
        )
