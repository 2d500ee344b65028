"""A cube draft as the DraftsTable stores it: plain frozen values, light to import for the read functions."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StoredPick:
    """One pick of a pool card as stored: its drafter (``REDACTED`` for an opt-out) and their pick number."""

    drafter: str
    pick_n: int


@dataclass(frozen=True)
class StoredPoolCard:
    """A cube card as a draft stores it: its details denormalised from the card data, its picks in order."""

    card_name: str
    quantity: int
    picks: tuple[StoredPick, ...]
    mana_cost: str | None
    type_line: str
    colors: tuple[str, ...]
    color_identity: str  # WUBRG letters, "C" for colourless


@dataclass(frozen=True)
class DraftHeader:
    """A stored draft's header: what ``list_drafts`` lists, opted-out drafters stored as ``REDACTED``."""

    draft_id: str
    draft_name: str
    draft_date: str
    drafters: tuple[str, ...]
    total_cards: int
    picks: int
