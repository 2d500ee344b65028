"""``get_draft_pool`` as ``spec/get-draft-pool-design.md`` defines it, over one DynamoDB partition."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from meta_mage.errors import NotFound
from meta_mage.models.drafts import (
    DraftPoolInput,
    DraftPoolResult,
    DraftSummary,
    ListDraftsOutput,
)
from meta_mage.models.stored_drafts import StoredPoolCard
from meta_mage.storage.drafts import DraftsRepository

MAJOR_TYPES = ("Creature", "Planeswalker", "Artifact", "Enchantment", "Instant", "Sorcery", "Land")


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


def _pool_card(card: StoredPoolCard, params: DraftPoolInput) -> dict[str, object]:
    """A pool card as ``get_draft_pool`` answers it: who drafted it when asked, its details when asked."""
    picks = sorted(card.picks, key=lambda p: p.pick_n)
    shown = picks if params.include_draft_results else []
    body: dict[str, object] = {
        "card_name": card.card_name,
        "quantity": card.quantity,
        "drafted": bool(picks),
        "drafted_by": shown[0].drafter if shown else None,
        "drafted_pick_n": shown[0].pick_n if shown else None,
    }
    if len(shown) > 1:
        body["additional_picks"] = [{"drafted_by": p.drafter, "drafted_pick_n": p.pick_n} for p in shown[1:]]
    if params.include_card_details:
        body.update(
            mana_cost=card.mana_cost,
            type_line=card.type_line,
            colors=list(card.colors),
            color_identity=card.color_identity,
        )
    return body


class DraftPoolService:
    """The cube-draft tools."""

    def __init__(self, repository: DraftsRepository) -> None:
        self.repository = repository

    def list_drafts(self) -> ListDraftsOutput:
        rows = sorted(self.repository.list_drafts(), key=lambda d: (d.draft_date, d.draft_id), reverse=True)
        return ListDraftsOutput(
            drafts=[
                DraftSummary(
                    draft_id=d.draft_id,
                    draft_name=d.draft_name,
                    draft_date=d.draft_date,
                    total_cards=d.total_cards,
                    drafters=len(d.drafters),
                    picks=d.picks,
                )
                for d in rows
            ]
        )

    def get_pool(self, params: DraftPoolInput) -> DraftPoolResult:
        """Filter first, then group; ``total_cards`` counts the cards left after filtering."""
        found = self.repository.get_pool(params.draft_id)
        if found is None:
            raise self._unknown_draft(params.draft_id)
        header, items = found
        kept = [card for card in sorted(items, key=lambda c: c.card_name) if _kept(card, params)]
        cards: list[dict[str, object]] | None = None
        grouped: dict[str, list[dict[str, object]]] | None = None
        if params.group_by == "none":
            cards = [_pool_card(i, params) for i in kept]
        else:
            grouped = _grouped(kept, params, _GROUPINGS[params.group_by])
        return DraftPoolResult(
            draft_id=header.draft_id,
            draft_name=header.draft_name,
            draft_date=header.draft_date,
            total_cards=len(kept),
            cards=cards,
            grouped=grouped,
        )

    def _unknown_draft(self, draft_id: str) -> NotFound:
        known = sorted(d.draft_id for d in self.repository.list_drafts())
        return NotFound(
            f"unknown draft_id {draft_id!r}; known drafts: {', '.join(known) or 'none'}",
            field="draft_id",
            allowed=known,
        )


def _kept(card: StoredPoolCard, params: DraftPoolInput) -> bool:
    """Whether a pool card passes the colour, type and name filters (each unset filter passes everything)."""
    if params.color and not _matches_color(card.color_identity, params.color):
        return False
    type_part = (params.type_contains or "").casefold()
    if type_part and type_part not in card.type_line.casefold():
        return False
    name_part = (params.name_contains or "").casefold()
    return not name_part or name_part in card.card_name.casefold()


@dataclass(frozen=True)
class _Grouping:
    """A ``group_by`` value: the keys one item is listed under, and the order of the keys."""

    keys: Callable[[StoredPoolCard], list[str]]
    order: Callable[[str], tuple[float, list[int]] | int]


def _color_keys(card: StoredPoolCard) -> list[str]:
    return [card.color_identity]


def _color_order(key: str) -> tuple[float, list[int]]:
    """Fewest colours first, colourless between one and two colours, then in WUBRG order."""
    return (len(key) if key != "C" else 1.5, ["WUBRGC".find(c) for c in key])


def _type_keys(card: StoredPoolCard) -> list[str]:
    return major_types(card.type_line) or ["Other"]


def _type_order(key: str) -> int:
    return MAJOR_TYPES.index(key) if key in MAJOR_TYPES else 99


_GROUPINGS = {
    "color_identity": _Grouping(_color_keys, _color_order),
    "type": _Grouping(_type_keys, _type_order),
}


def _grouped(
    kept: list[StoredPoolCard], params: DraftPoolInput, grouping: _Grouping
) -> dict[str, list[dict[str, object]]]:
    """The kept cards under their keys (a card under each key it has), keys in the grouping's order."""
    grouped: dict[str, list[dict[str, object]]] = {}
    for card in kept:
        body = _pool_card(card, params)
        for key in grouping.keys(card):
            grouped.setdefault(key, []).append(body)
    return {k: grouped[k] for k in sorted(grouped, key=grouping.order)}
