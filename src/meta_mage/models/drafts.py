"""Cube drafts: the import format and the ``get_draft_pool`` / ``list_drafts`` contracts."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from meta_mage.models.cards import card_key
from meta_mage.models.meta import WholeNumber
from meta_mage.models.names import PlainName

REDACTED = "[REDACTED]"  # stored in place of an opted-out drafter; in an import, a drafter the file does not name
DRAFT_ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"


class CubeEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=200)
    quantity: WholeNumber = Field(default=1, ge=1, le=20)


class Pick(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pick_n: WholeNumber = Field(ge=1, le=1000, description="The drafter's own pick number (1 = first pick)")
    drafter: Annotated[str, PlainName] = Field(
        min_length=1, max_length=100, description=f"The drafter's name, or {REDACTED!r} for one who opted out unnamed"
    )
    card: str = Field(min_length=1, max_length=200)


class DraftImport(BaseModel):
    """A cube draft as imported (see README "Cube draft format")."""

    model_config = ConfigDict(extra="forbid")
    draft_id: str = Field(pattern=DRAFT_ID_PATTERN)
    draft_name: Annotated[str, PlainName] = Field(min_length=1, max_length=200)
    draft_date: dt.date
    cube: list[CubeEntry] = Field(min_length=1, max_length=2000)
    drafters: list[Annotated[str, PlainName]] = Field(
        default_factory=list, max_length=64, description=f"Seats in order; {REDACTED!r} once per unnamed opt-out"
    )
    picks: list[Pick] = Field(default_factory=list)
    opt_outs: list[Annotated[str, PlainName]] = Field(
        default_factory=list, description="Named drafters to store as " + REDACTED
    )

    @field_validator("cube")
    @classmethod
    def _unique_cube(cls, cube: list[CubeEntry]) -> list[CubeEntry]:
        seen: set[str] = set()
        for entry in cube:
            if card_key(entry.name) in seen:
                raise ValueError(f"cube lists {entry.name!r} twice; use quantity instead")
            seen.add(card_key(entry.name))
        return cube

    @model_validator(mode="after")
    def _consistent(self) -> DraftImport:
        ledger = _PickLedger(self.cube, self.drafters)
        for index, pick in enumerate(self.picks):
            ledger.add(f"picks.{index}", pick)  # the field, as pydantic names a list item
        if REDACTED in self.opt_outs:
            raise ValueError(
                f"opt_outs: {REDACTED} is already unnamed; opt_outs lists the names of drafters to redact "
                f"(a drafter the file does not name is written {REDACTED} in drafters and picks instead)"
            )
        unknown = [o for o in self.opt_outs if o not in ledger.drafters and o not in {p.drafter for p in self.picks}]
        if unknown:
            raise ValueError(f"opt_outs: name unknown drafters: {', '.join(unknown)}")
        return self


class _PickLedger:
    """The picks of an import checked one at a time against its cube and its seats (``ValueError`` naming the
    pick's field at the first that does not fit)."""

    def __init__(self, cube: list[CubeEntry], drafters: list[str]) -> None:
        self.quantities = {card_key(e.name): e.quantity for e in cube}
        self.drafters = set(drafters)
        # Picks marked REDACTED may share a number once per unnamed seat: the file cannot tell those drafters apart.
        self.unnamed_seats = max(1, drafters.count(REDACTED))
        self.taken: Counter[str] = Counter()
        self.numbers: Counter[tuple[str, int]] = Counter()

    def add(self, where: str, pick: Pick) -> None:
        key = card_key(pick.card)
        if key not in self.quantities:
            raise ValueError(
                f"{where}: pick {pick.pick_n} by {pick.drafter!r} is {pick.card!r}, which is not in the cube"
            )
        self._check_drafter(where, pick)
        self.numbers[pick.drafter, pick.pick_n] += 1
        self._check_number(where, pick, self.numbers[pick.drafter, pick.pick_n])
        self.taken[key] += 1
        if self.taken[key] > self.quantities[key]:
            raise ValueError(
                f"{where}: {pick.card!r} is picked {self.taken[key]} times but the cube has {self.quantities[key]}"
            )

    def _check_drafter(self, where: str, pick: Pick) -> None:
        """With a drafters list, a pick's drafter must be one of its seats."""
        if not self.drafters or pick.drafter in self.drafters:
            return
        if pick.drafter == REDACTED:
            raise ValueError(
                f"{where}: pick {pick.pick_n} is by an unnamed drafter ({REDACTED}) but drafters has no "
                f"{REDACTED} seat; list {REDACTED} in drafters once per drafter who opted out unnamed"
            )
        raise ValueError(f"{where}: pick {pick.pick_n}: drafter {pick.drafter!r} is not in drafters")

    def _check_number(self, where: str, pick: Pick, same_number: int) -> None:
        """A drafter's pick numbers are their own; unnamed drafters' may repeat once per unnamed seat."""
        if pick.drafter == REDACTED and same_number > self.unnamed_seats:
            seats = f"drafters lists {self.unnamed_seats}" if self.drafters else "with no drafters list, 1 is assumed"
            raise ValueError(
                f"{where}: {same_number} picks numbered {pick.pick_n} by unnamed drafters ({REDACTED}) but "
                f"{seats}; list {REDACTED} in drafters once per drafter who opted out unnamed"
            )
        if pick.drafter != REDACTED and same_number > 1:
            raise ValueError(f"{where}: drafter {pick.drafter!r} has two picks numbered {pick.pick_n}")


def _pool_color(value: object) -> str | None:
    """A colour identity filter in WUBRG order ("GU" is "UG"), "C" for colourless; empty is none."""
    if value is None or value == "":
        return None
    letters = str(value).strip().upper()
    if letters == "C" or (letters and all(ch in "WUBRG" for ch in letters) and len(set(letters)) == len(letters)):
        return letters if letters == "C" else "".join(c for c in "WUBRG" if c in letters)
    raise ValueError(f"unknown color {value!r}; allowed: W, U, B, R, G, C or a combination such as 'UG'")


class DraftPoolInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    draft_id: str = Field(min_length=1, max_length=64, description="e.g. 'tarkir'")
    include_draft_results: bool = Field(default=False, description="Add drafted_by and drafted_pick_n")
    include_card_details: bool = Field(default=False, description="Add mana_cost, type_line, colors, color_identity")
    group_by: Literal["none", "color_identity", "type"] = "none"
    color: Annotated[str | None, BeforeValidator(_pool_color)] = Field(
        default=None,
        description="Colour identity filter: one of W, U, B, R, G (cards whose identity includes it), "
        "C (colourless), or several letters such as 'UG' (exactly that identity)",
    )
    type_contains: str | None = Field(default=None, max_length=100, description="Type line substring")
    name_contains: str | None = Field(default=None, max_length=100, description="Name substring (any case)")


class DraftPoolResult(BaseModel):
    draft_id: str
    draft_name: str
    draft_date: str
    total_cards: int
    cards: list[dict[str, object]] | None
    grouped: dict[str, list[dict[str, object]]] | None


class DraftSummary(BaseModel):
    draft_id: str
    draft_name: str
    draft_date: str
    total_cards: int
    drafters: int
    picks: int


class ListDraftsInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ListDraftsOutput(BaseModel):
    drafts: list[DraftSummary]
