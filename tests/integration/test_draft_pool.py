"""get_draft_pool rules (spec/get-draft-pool-design.md) on the demo tarkir draft in moto."""

import json
from dataclasses import FrozenInstanceError
from pathlib import Path
from typing import Any

import pytest
from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError

from meta_mage.config import DEMO_DATA_DIR, Settings
from meta_mage.drafts.pool import major_types
from meta_mage.ingest.drafts import draft_items, ingest_draft, load_draft
from meta_mage.ingest.errors import InputFileError
from meta_mage.models.drafts import REDACTED, DraftImport
from meta_mage.storage.drafts import DraftsRepository
from tests.conftest import call

TARKIR = json.loads((DEMO_DATA_DIR / "drafts" / "tarkir.json").read_text())
# The demo's unnamed opt-out given a made-up name and listed in opt_outs: the named form of the same draft.
OPTED_OUT = "hooded_ainok_9"
NAMED = dict(
    TARKIR,
    drafters=[OPTED_OUT if d == REDACTED else d for d in TARKIR["drafters"]],
    picks=[dict(p, drafter=OPTED_OUT) if p["drafter"] == REDACTED else p for p in TARKIR["picks"]],
    opt_outs=[OPTED_OUT],
)


def _taken_by(card: dict[str, Any]) -> list[str]:
    return [who for who in [card["drafted_by"], *(p["drafted_by"] for p in card.get("additional_picks") or [])] if who]


def test_minimal_call_returns_the_whole_pool_flat(modern_world: dict[str, Any]) -> None:
    pool = call(modern_world, "get_draft_pool", draft_id="tarkir")
    assert (pool["draft_name"], pool["draft_date"], pool["total_cards"]) == ("Tarkir", "2025-12-01", 540)
    assert pool["grouped"] is None and len(pool["cards"]) == 540
    assert [c["card_name"] for c in pool["cards"]] == sorted(c["card_name"] for c in pool["cards"])
    card = pool["cards"][0]
    assert set(card) == {"card_name", "quantity", "drafted", "drafted_by", "drafted_pick_n"}
    assert card["drafted_by"] is None and card["drafted_pick_n"] is None
    picked = {p["card"] for p in TARKIR["picks"]}
    assert sum(c["drafted"] for c in pool["cards"]) == len(picked)


def test_draft_results_are_annotated_and_opt_outs_redacted(modern_world: dict[str, Any]) -> None:
    pool = call(modern_world, "get_draft_pool", draft_id="tarkir", include_draft_results=True)
    by_name = {c["card_name"]: c for c in pool["cards"]}
    pick = next(p for p in TARKIR["picks"] if p["drafter"] != REDACTED)
    first_pick_of_card = min((p for p in TARKIR["picks"] if p["card"] == pick["card"]), key=lambda p: p["pick_n"])
    assert by_name[pick["card"]]["drafted_by"] == first_pick_of_card["drafter"]
    # the demo's opted-out drafter is unnamed in the file: their 45 picks are served as REDACTED
    unnamed = [p for p in TARKIR["picks"] if p["drafter"] == REDACTED]
    assert len(unnamed) == 45 and TARKIR["opt_outs"] == []
    assert sum(_taken_by(c).count(REDACTED) for c in pool["cards"]) == len(unnamed)
    for hidden in unnamed:
        assert REDACTED in _taken_by(by_name[hidden["card"]])
    listed = call(modern_world, "list_drafts")["drafts"]
    assert [(d["drafters"], d["picks"]) for d in listed if d["draft_id"] == "tarkir"] == [(9, 405)]


def test_a_named_opt_out_is_stored_exactly_as_the_unnamed_form(modern_world: dict[str, Any]) -> None:
    # Given the demo draft as it ships (opt-out unnamed) and the same draft naming the drafter in opt_outs
    cards = modern_world["context"].cards
    unnamed = draft_items(DraftImport.model_validate(TARKIR), cards, "tarkir.json")
    named = draft_items(DraftImport.model_validate(NAMED), cards, "named.json")
    # Then ingest stores both the same way: every read path (pool, list, agent) serves the same data
    assert named == unnamed
    assert OPTED_OUT not in repr(named)
    assert unnamed[0].drafters.count(REDACTED) == 1 and len(unnamed[0].drafters) == 9


def test_filters_apply_before_grouping_by_type(modern_world: dict[str, Any]) -> None:
    pool = call(
        modern_world, "get_draft_pool", draft_id="tarkir", color="G", group_by="type", include_card_details=True
    )
    assert pool["cards"] is None
    grouped = pool["grouped"]
    distinct = {c["card_name"] for cards in grouped.values() for c in cards}
    assert pool["total_cards"] == len(distinct)
    assert list(grouped) == [
        t for t in ("Creature", "Planeswalker", "Artifact", "Enchantment", "Instant", "Sorcery", "Land") if t in grouped
    ]
    for group, cards in grouped.items():
        for card in cards:
            assert "G" in card["color_identity"] and group in major_types(card["type_line"])
            assert set(card) >= {"mana_cost", "type_line", "colors", "color_identity", "drafted"}
    assert "Llanowar Elves" in {c["card_name"] for c in grouped["Creature"]}
    multi = [
        c for cards in grouped.values() for c in cards if "Artifact" in c["type_line"] and "Creature" in c["type_line"]
    ]
    for card in multi:  # an artifact creature sits in both groups
        assert card in grouped["Artifact"] and card in grouped["Creature"]


def test_colour_identity_groups_are_wubrg_ordered(modern_world: dict[str, Any]) -> None:
    pool = call(modern_world, "get_draft_pool", draft_id="tarkir", group_by="color_identity")
    keys = list(pool["grouped"])
    assert keys[:5] == ["W", "U", "B", "R", "G"] and "C" in keys
    for key in keys:
        assert key == "C" or key == "".join(c for c in "WUBRG" if c in key)
    assert sum(len(v) for v in pool["grouped"].values()) == pool["total_cards"] == 540  # each card in one group


def test_name_and_type_filters(modern_world: dict[str, Any]) -> None:
    pool = call(modern_world, "get_draft_pool", draft_id="tarkir", name_contains="ABRUPT", type_contains="instant")
    assert [c["card_name"] for c in pool["cards"]] == ["Abrupt Decay"] and pool["total_cards"] == 1
    colourless = call(modern_world, "get_draft_pool", draft_id="tarkir", color="c", include_card_details=True)
    assert colourless["total_cards"] > 0 and all(c["color_identity"] == "C" for c in colourless["cards"])


def test_import_errors_name_the_problem(tmp_path: Path) -> None:
    bad = dict(TARKIR, picks=[*TARKIR["picks"], {"pick_n": 46, "drafter": "arborist77", "card": "Not A Real Card"}])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(InputFileError, match="'Not A Real Card', which is not in the cube"):
        load_draft(path)


@pytest.mark.parametrize(("draft", "opt_outs"), [(TARKIR, []), (NAMED, [OPTED_OUT])], ids=["unnamed", "named"])
def test_csv_pair_import(tmp_path: Path, draft: dict[str, Any], opt_outs: list[str]) -> None:
    (tmp_path / "pool.csv").write_text(
        "name,quantity\n" + "".join(f'"{c["name"]}",{c["quantity"]}\n' for c in draft["cube"])
    )
    (tmp_path / "picks.csv").write_text(
        "pick_n,drafter,card\n" + "".join(f'{p["pick_n"]},{p["drafter"]},"{p["card"]}"\n' for p in draft["picks"])
    )
    (tmp_path / "header.json").write_text(
        json.dumps(
            {
                "draft_id": "tarkir-csv",
                "draft_name": "Tarkir CSV",
                "draft_date": "2025-12-02",
                "pool_csv": "pool.csv",
                "picks_csv": "picks.csv",
                "opt_outs": opt_outs,
            }
        )
    )
    loaded = load_draft(tmp_path / "header.json")
    assert len(loaded.cube) == 540 and len(loaded.picks) == 405 and len(loaded.drafters) == 9
    assert loaded.opt_outs == opt_outs and sum(p.drafter in (REDACTED, *opt_outs) for p in loaded.picks) == 45


class _HeaderWriteFails:
    """The drafts table, except that writing a draft's header fails as DynamoDB throttling does."""

    def __init__(self, table: Any) -> None:
        self._table = table

    def __getattr__(self, name: str) -> Any:
        return getattr(self._table, name)

    def put_item(self, **kwargs: Any) -> Any:
        if kwargs["Item"]["sk"] == "#META":
            error = {"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"}}
            raise ClientError(error, "PutItem")  # type: ignore[arg-type]
        return self._table.put_item(**kwargs)


def test_a_reimport_that_fails_part_way_leaves_the_previous_pool_whole(
    dynamodb: Any, settings: Settings, modern_world: dict[str, Any]
) -> None:
    # Given the tarkir draft stored
    table = dynamodb.Table(settings.drafts_table)
    cards = modern_world["context"].cards
    assert ingest_draft(DraftImport.model_validate(TARKIR), "tarkir.json", DraftsRepository(table), cards).ok
    stored = DraftsRepository(table).get_pool("tarkir")
    assert stored is not None
    header, pool = stored

    # When a corrected copy is imported and writing its header fails (after its cards are written)
    corrected = DraftImport.model_validate(dict(TARKIR, draft_name="Tarkir (corrected)"))
    failed = ingest_draft(corrected, "tarkir.json", DraftsRepository(_HeaderWriteFails(table)), cards)
    assert not failed.ok

    # Then readers still see the whole previous pool
    assert DraftsRepository(table).get_pool("tarkir") == (header, pool)

    # and a retry replaces it, leaving no card of the old version behind
    assert ingest_draft(corrected, "tarkir.json", DraftsRepository(table), cards).ok
    replaced = DraftsRepository(table).get_pool("tarkir")
    assert replaced is not None and replaced[0].draft_name == "Tarkir (corrected)"
    assert sorted(c.card_name for c in replaced[1]) == sorted(c.card_name for c in pool)
    items = table.query(KeyConditionExpression=Key("pk").eq("DRAFT#tarkir"), Select="COUNT")["Count"]
    assert items == len(pool) + 1  # the cards and the header


class _ThenAnotherImport:
    """The drafts table, running a whole second import right after this import flips the header."""

    def __init__(self, table: Any, second: Any) -> None:
        self._table, self._second = table, second

    def __getattr__(self, name: str) -> Any:
        return getattr(self._table, name)

    def put_item(self, **kwargs: Any) -> Any:
        result = self._table.put_item(**kwargs)
        if kwargs["Item"]["pk"] == "DRAFTS" and self._second is not None:
            second, self._second = self._second, None
            second()  # before this import deletes the cards of the version it replaced
        return result


def test_two_reimports_at_once_leave_the_newest_pool_whole(
    dynamodb: Any, settings: Settings, modern_world: dict[str, Any]
) -> None:
    table = dynamodb.Table(settings.drafts_table)
    cards = modern_world["context"].cards
    assert ingest_draft(DraftImport.model_validate(TARKIR), "tarkir.json", DraftsRepository(table), cards).ok
    second = DraftImport.model_validate(dict(TARKIR, draft_name="Tarkir (second)"))
    third = DraftImport.model_validate(dict(TARKIR, draft_name="Tarkir (third)"))

    def third_import() -> None:
        assert ingest_draft(third, "third.json", DraftsRepository(table), cards).ok

    assert ingest_draft(second, "second.json", DraftsRepository(_ThenAnotherImport(table, third_import)), cards).ok
    stored = DraftsRepository(table).get_pool("tarkir")
    assert stored is not None and stored[0].draft_name == "Tarkir (third)"
    assert len(stored[1]) == len({c["name"] for c in TARKIR["cube"]})


def test_a_pool_is_read_once_per_version_and_a_reimport_at_once(
    dynamodb: Any, settings: Settings, modern_world: dict[str, Any]
) -> None:
    # Given the tarkir draft stored and read once
    table = dynamodb.Table(settings.drafts_table)
    drafts, cards = DraftsRepository(table), modern_world["context"].cards
    assert ingest_draft(DraftImport.model_validate(TARKIR), "tarkir.json", drafts, cards).ok
    first = drafts.get_pool("tarkir")
    assert first is not None

    # When it is read again, the requests are counted
    calls: list[str] = []
    table.meta.client.meta.events.register("before-call.dynamodb.*", lambda model, **_: calls.append(model.name))
    again = drafts.get_pool("tarkir")

    # Then the same pool comes from one small read of its header, as values no caller can change
    assert again == first and calls == ["GetItem"]
    assert again is not None
    with pytest.raises(FrozenInstanceError):
        again[1][0].card_name = "changed by a caller"  # type: ignore[misc]
    assert isinstance(again[1], tuple) and drafts.get_pool("tarkir") == first

    # and a re-import (another version) is what the next read gives
    renamed = {**TARKIR, "draft_name": "Tarkir, re-imported", "cube": TARKIR["cube"][:-1]}
    renamed["picks"] = [p for p in TARKIR["picks"] if p["card"] != TARKIR["cube"][-1]["name"]]
    assert ingest_draft(DraftImport.model_validate(renamed), "tarkir.json", drafts, cards).ok
    after = drafts.get_pool("tarkir")
    assert after is not None and after[0].draft_name == "Tarkir, re-imported"
    assert len(after[1]) == len(first[1]) - 1
