"""The draft import format's two ways to opt out: a name in ``opt_outs``, or no name at all (``[REDACTED]``)."""

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from meta_mage.ingest.drafts import load_draft
from meta_mage.ingest.errors import InputFileError
from meta_mage.models.drafts import REDACTED, DraftImport

CUBE = [{"name": "Abrade"}, {"name": "Counterspell", "quantity": 2}, {"name": "Duress"}]


def draft(**fields: Any) -> dict[str, Any]:
    """A small valid draft: two seats, one of them unnamed."""
    base: dict[str, Any] = {
        "draft_id": "mini",
        "draft_name": "Mini",
        "draft_date": "2025-12-01",
        "cube": CUBE,
        "drafters": ["ainok_rider", REDACTED],
        "picks": [
            {"pick_n": 1, "drafter": "ainok_rider", "card": "Abrade"},
            {"pick_n": 1, "drafter": REDACTED, "card": "Counterspell"},
        ],
    }
    return base | fields


def test_unnamed_picks_need_no_opt_outs_entry() -> None:
    parsed = DraftImport.model_validate(draft())
    assert parsed.opt_outs == [] and [p.drafter for p in parsed.picks] == ["ainok_rider", REDACTED]


def test_named_and_unnamed_opt_outs_mix() -> None:
    parsed = DraftImport.model_validate(draft(opt_outs=["ainok_rider"]))
    assert parsed.opt_outs == ["ainok_rider"]


def test_two_unnamed_seats_may_share_a_pick_number() -> None:
    picks = [{"pick_n": 1, "drafter": REDACTED, "card": c} for c in ("Abrade", "Counterspell")]
    assert len(DraftImport.model_validate(draft(drafters=[REDACTED, REDACTED], picks=picks)).picks) == 2


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        (
            {"opt_outs": [REDACTED]},
            r"opt_outs: \[REDACTED\] is already unnamed; opt_outs lists the names of drafters to redact",
        ),
        (
            {"drafters": ["ainok_rider"]},
            r"picks\.1: pick 1 is by an unnamed drafter \(\[REDACTED\]\) but drafters has no \[REDACTED\] seat",
        ),
        (
            {"picks": [{"pick_n": 2, "drafter": REDACTED, "card": c} for c in ("Abrade", "Duress")]},
            r"picks\.1: 2 picks numbered 2 by unnamed drafters \(\[REDACTED\]\) but drafters lists 1; "
            r"list \[REDACTED\] in drafters once per drafter who opted out unnamed",
        ),
        (
            {"drafters": [], "picks": [{"pick_n": 3, "drafter": REDACTED, "card": c} for c in ("Abrade", "Duress")]},
            r"but with no drafters list, 1 is assumed",
        ),
        (
            {"picks": [{"pick_n": 1, "drafter": "ainok_rider", "card": c} for c in ("Abrade", "Duress")]},
            r"picks\.1: drafter 'ainok_rider' has two picks numbered 1",
        ),
    ],
    ids=["marker in opt_outs", "no unnamed seat", "more unnamed picks than seats", "no drafters list", "named twice"],
)
def test_invalid_combinations_name_what_is_wrong(fields: dict[str, Any], says: str) -> None:
    with pytest.raises(ValidationError, match=says):
        DraftImport.model_validate(draft(**fields))


def test_the_file_error_carries_the_message(tmp_path: Path) -> None:
    path = tmp_path / "mini.json"
    path.write_text(json.dumps(draft(opt_outs=[REDACTED])))
    with pytest.raises(InputFileError) as caught:
        load_draft(path)
    assert caught.value.source == str(path)
    assert caught.value.reason.startswith("opt_outs: [REDACTED] is already unnamed")


def test_csv_picks_with_the_marker_seat_one_unnamed_drafter(tmp_path: Path) -> None:
    (tmp_path / "pool.csv").write_text("name,quantity\nAbrade,1\nDuress,1\n")
    (tmp_path / "picks.csv").write_text(f"pick_n,drafter,card\n1,ainok_rider,Abrade\n1,{REDACTED},Duress\n")
    header = {"draft_id": "mini", "draft_name": "Mini", "draft_date": "2025-12-01"}
    parsed = load_draft(None, header, pool_csv=tmp_path / "pool.csv", picks_csv=tmp_path / "picks.csv")
    assert parsed.drafters == ["ainok_rider", REDACTED] and parsed.opt_outs == []
