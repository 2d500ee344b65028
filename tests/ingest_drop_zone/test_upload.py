"""upload(): local files → the drop zone under the right prefix, checked before anything is sent."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from meta_mage.config import DEMO_DATA_DIR, get_settings
from meta_mage.ingest.drop_zone import DropZoneError, UploadedObject, UploadFailed, guess_kind, plan_upload, upload
from meta_mage.storage.objects import DropZoneBucket
from tests.conftest import archive_of
from tests.ingest_drop_zone.conftest import BUCKET, DropWorld, s3_event
from tests.ingest_drop_zone.test_handler import format_members, tarkir_cards

TARKIR = DEMO_DATA_DIR / "drafts" / "tarkir.json"


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    """A user's folder: tournament files in dated subfolders, an archive, a corpus and a draft."""
    root = tmp_path / "mtg"
    for name, data in format_members("Pioneer")[:2]:
        path = root / "events" / Path(name).parent.name / Path(name).name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    archive_of(list(format_members("Vintage")[:2]), root / "vintage.tar.gz")
    (root / "corpus").mkdir()
    (root / "corpus" / "cube-cards.json.gz").write_bytes(tarkir_cards())
    (root / "tarkir.json").write_bytes(TARKIR.read_bytes())
    (root / "notes.txt").write_text("not picked up from a folder")
    return root


def bucket_keys(world: DropWorld) -> list[str]:
    return sorted(o["Key"] for o in world.s3.list_objects_v2(Bucket=BUCKET).get("Contents", []))


def test_a_folder_goes_up_under_guessed_prefixes_keeping_its_layout(world: DropWorld, folder: Path) -> None:
    uploaded = upload([folder], BUCKET, DropZoneBucket(world.s3))

    pioneer = sorted(p.relative_to(folder).as_posix() for p in (folder / "events").rglob("*.json"))
    assert (
        sorted(u.key for u in uploaded)
        == bucket_keys(world)
        == sorted(
            [
                "cards/corpus/cube-cards.json.gz",
                "drafts/tarkir.json",
                *(f"tournaments/{p}" for p in pioneer),
                "tournaments/vintage.tar.gz",
            ]
        )
    )
    draft = next(u for u in uploaded if u.kind == "drafts")
    size = TARKIR.stat().st_size
    assert draft == UploadedObject(folder / "tarkir.json", BUCKET, "drafts/tarkir.json", "drafts", size)
    body = world.s3.get_object(Bucket=BUCKET, Key="drafts/tarkir.json")
    assert body["Body"].read() == TARKIR.read_bytes() and body["ContentType"] == "application/json"


def test_uploaded_files_are_ingested_by_the_function(world: DropWorld, folder: Path) -> None:
    uploaded = upload([folder], BUCKET, DropZoneBucket(world.s3))
    order = {"cards": 0, "tournaments": 1, "drafts": 2}  # a draft needs its cards first

    keys = [u.key for u in sorted(uploaded, key=lambda u: order[u.kind])]
    results = world.invoke(s3_event(*keys))["objects"]

    assert [r["status"] for r in results] == ["ingested"] * len(keys)
    assert sorted((f.format, f.tournaments) for f in world.meta.list_formats()) == [("Pioneer", 2), ("Vintage", 2)]
    assert [d.draft_id for d in world.drafts.list_drafts()] == ["tarkir"]
    assert world.messages() == []


def test_files_named_directly_and_an_explicit_kind(world: DropWorld, folder: Path, tmp_path: Path) -> None:
    odd = tmp_path / "weird.json"
    odd.write_text(json.dumps({"what": "is this"}))

    uploaded = upload([folder / "tarkir.json", odd], BUCKET, DropZoneBucket(world.s3), kind="drafts")

    assert [(u.key, u.kind) for u in uploaded] == [("drafts/tarkir.json", "drafts"), ("drafts/weird.json", "drafts")]
    assert upload([folder / "vintage.tar.gz"], BUCKET, DropZoneBucket(world.s3))[0].key == "tournaments/vintage.tar.gz"


def test_guess_kind(folder: Path, tmp_path: Path) -> None:
    assert guess_kind(folder / "vintage.tar.gz") == "tournaments"
    assert guess_kind(next((folder / "events").rglob("*.json"))) == "tournaments"
    assert guess_kind(folder / "corpus" / "cube-cards.json.gz") == "cards"
    assert guess_kind(folder / "tarkir.json") == "drafts"
    atomic = tmp_path / "AtomicCards.json.gz"
    atomic.write_bytes(gzip.compress(b'{"meta": {}, "data": {}}'))
    assert guess_kind(atomic) == "cards"


@pytest.mark.parametrize(
    ("make", "kind", "message"),
    [
        (lambda d: d / "missing", None, "no such file or folder"),
        (lambda d: write(d / "x.json", b'{"foo": 1}'), None, "cannot tell what .* holds: not a tournament file"),
        (lambda d: write(d / "x.json", b'{"foo": '), None, "cannot tell what .* invalid JSON.*--kind"),
        (lambda d: write(d / "pool.csv", b"name,quantity\n"), "drafts", "the drop zone reads .json, .json.gz"),
        (lambda d: write(d / "x.tar.gz", b""), "cards", "cards files must end with .json, .json.gz"),
        (lambda d: write(d / "empty" / "readme.md", b"").parent, None, "holds no .json"),
        (
            lambda d: write(d / "t.json", json.dumps({"draft_id": "t", "pool_csv": "p.csv"}).encode()),
            None,
            r"p\.csv: cannot read",  # a CSV-form draft is read (and checked) before anything goes up
        ),
    ],
)
def test_nothing_is_uploaded_when_a_path_is_wrong(
    world: DropWorld, folder: Path, tmp_path: Path, make: object, kind: str | None, message: str
) -> None:
    bad = make(tmp_path)  # type: ignore[operator]
    with pytest.raises(DropZoneError, match=message):
        upload([bad, folder], BUCKET, DropZoneBucket(world.s3), kind=kind)  # type: ignore[arg-type]
    assert bucket_keys(world) == []


def test_a_csv_form_draft_goes_up_as_one_json_file_and_is_ingested(world: DropWorld, tmp_path: Path) -> None:
    # Given a draft as a header naming its pool and picks CSV files
    tarkir = json.loads(TARKIR.read_bytes())
    draft = tmp_path / "tarkir-csv"
    write(
        draft / "pool.csv",
        ("name,quantity\n" + "".join(f'"{c["name"]}",{c["quantity"]}\n' for c in tarkir["cube"])).encode(),
    )
    picks = "".join(f'{p["pick_n"]},{p["drafter"]},"{p["card"]}"\n' for p in tarkir["picks"])
    write(draft / "picks.csv", ("pick_n,drafter,card\n" + picks).encode())
    header = {k: tarkir[k] for k in ("draft_id", "draft_name", "draft_date", "opt_outs")}
    write(draft / "header.json", json.dumps({**header, "pool_csv": "pool.csv", "picks_csv": "picks.csv"}).encode())

    # When it is uploaded (the card data first, as a draft needs it)
    cards = tmp_path / "cards.json.gz"
    cards.write_bytes(tarkir_cards())
    uploaded = upload([cards, draft / "header.json"], BUCKET, DropZoneBucket(world.s3))

    # Then one JSON document goes up, the function ingests it, and the pool is the JSON draft's
    assert [(u.key, u.kind) for u in uploaded] == [("cards/cards.json.gz", "cards"), ("drafts/header.json", "drafts")]
    sent = json.loads(world.s3.get_object(Bucket=BUCKET, Key="drafts/header.json")["Body"].read())
    assert set(sent) == {"draft_id", "draft_name", "draft_date", "cube", "drafters", "picks", "opt_outs"}
    results = world.invoke(s3_event("cards/cards.json.gz", "drafts/header.json"))["objects"]
    assert [r["status"] for r in results] == ["ingested", "ingested"]
    stored = world.drafts.get_pool("tarkir")
    assert stored is not None and len(stored[1]) == len(tarkir["cube"]) and world.messages() == []


def test_two_files_for_one_key_is_an_error(folder: Path, tmp_path: Path) -> None:
    other = write(tmp_path / "elsewhere" / "tarkir.json", TARKIR.read_bytes() + b" ")
    with pytest.raises(DropZoneError, match=r"would both be uploaded as drafts/tarkir\.json"):
        plan_upload([folder / "tarkir.json", other])
    assert len(plan_upload([folder / "tarkir.json", folder / "tarkir.json"])) == 1
    with pytest.raises(DropZoneError, match="kind must be one of tournaments, cards, drafts"):
        plan_upload([folder], kind="decks")  # type: ignore[arg-type]


def test_an_s3_failure_names_what_went_up(world: DropWorld, folder: Path) -> None:
    with pytest.raises(UploadFailed, match=r"s3://no-such-bucket/drafts/tarkir\.json failed after 0 file") as caught:
        upload([folder / "tarkir.json"], "no-such-bucket", DropZoneBucket(world.s3))
    assert caught.value.uploaded == []


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_cli_upload_puts_files_under_their_prefix_and_refuses_bad_paths(
    world: DropWorld, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from meta_mage.cli import main

    # Given the drop-zone bucket named in the settings
    monkeypatch.setenv("META_MAGE_INGEST_BUCKET", BUCKET)
    get_settings.cache_clear()

    # When the user uploads a draft with the CLI
    assert main(["upload", "--kind", "drafts", str(TARKIR)]) == 0
    assert f"1 file(s) to s3://{BUCKET} (1 drafts)" in capsys.readouterr().out
    keys = [o["Key"] for o in world.s3.list_objects_v2(Bucket=BUCKET)["Contents"]]
    assert keys == ["drafts/tarkir.json"]

    # Then a file the CLI cannot place is refused before anything is sent
    assert main(["upload", str(TARKIR.parent / "missing.json")]) != 0
    assert [o["Key"] for o in world.s3.list_objects_v2(Bucket=BUCKET)["Contents"]] == keys

    # and without a bucket the command says which setting is missing (no guessed bucket name)
    monkeypatch.delenv("META_MAGE_INGEST_BUCKET")
    get_settings.cache_clear()
    assert main(["upload", "--kind", "drafts", str(TARKIR)]) == 2
    assert "give --bucket or set META_MAGE_INGEST_BUCKET" in capsys.readouterr().err
    get_settings.cache_clear()
