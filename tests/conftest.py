"""Shared fixtures: moto DynamoDB with tables built from template.yaml, demo data subsets."""

from __future__ import annotations

import functools
import io
import json
import signal
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from moto import mock_aws
from moto.core.config import default_user_config

from meta_mage.config import DEMO_DATA_DIR, Settings
from meta_mage.ingest.drafts import ingest_draft, load_draft
from meta_mage.local.embedded import put_into_moto, serialise_moto_dynamodb
from meta_mage.local.seed import DEMO_SNAPSHOT, snapshot_table_names
from meta_mage.models.drafts import REDACTED, DraftImport
from meta_mage.startup import starting_up
from meta_mage.storage.cards import CardsRepository
from meta_mage.storage.drafts import DraftsRepository
from meta_mage.storage.dynamo import aws_region, dynamodb_resource
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.snapshot import Snapshot, read_snapshot
from meta_mage.storage.tables import create_tables
from meta_mage.tools import build_registry
from meta_mage.wiring import Wiring

serialise_moto_dynamodb()  # the in-process mock shares moto's DynamoDB, thread-unsafe transactions and all
# Keep boto3's default session across mocks, as a process keeps it (moto resets it at each outermost mock by
# default, and a new session re-reads the SDK's endpoint and service data: ~0.1 s per test using `dynamodb`).
# Its clients still go to the mock: moto's handler is on every session made after moto is imported.
default_user_config["core"]["reset_boto3_session"] = False

# The Ctrl-C tests send SIGINT to the commands they start. A suite started as a background job by a shell
# without job control (`bash scripts/test.sh &` in a script) ignores SIGINT, and every process it starts
# inherits that, so those commands would never see the Ctrl-C. A handler, unlike an ignore, resets to the
# default in a started command.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The slowest files, slowest first (their seconds in one process on a busy 2-core machine, `--durations`).
# pytest-xdist hands whole files (``--dist loadfile``) to the workers in collection order (pytest_configure turns
# off its reordering by test count): started first, these keep both workers busy to the end, where a slow file
# of one or three tests handed out last left one worker running it alone. Tests keep their order in a file.
SLOWEST_FIRST = (
    "agent/test_journeys.py",  # 71
    "reliability/test_faults.py",  # 61
    "browser/test_chat_page.py",  # 55
    "reliability/test_decompression_bounds.py",  # 42
    "integration/test_provisional_archetypes.py",  # 34
    "reliability/test_schemathesis.py",  # 33
    "reliability/test_bad_input.py",  # 30
    "reliability/test_hostile_tournaments_hypothesis.py",  # 30
    "integration/test_demo_snapshot.py",  # 30
    "unit/test_routing_journeys.py",  # 29
    "integration/test_kill_at_every_write.py",  # 29
    "integration/test_cli.py",  # 25
    "integration/test_reseed_keeps_user_events.py",  # 24
    "integration/test_repair_commits_only_whole.py",  # 21
    "integration/test_guides_across_formats.py",  # 18
    "sync/test_sync_kill.py",  # 17
    "reliability/test_access.py",  # 17
    "integration/test_cli_first_run.py",  # 13
    "integration/test_provisional_kill_points.py",  # 13
    "integration/test_snapshot_integrity.py",  # 12
    "integration/test_event_versions.py",  # 11
    "integration/test_rule_suggestions.py",  # 10
)


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist, hand the files out in collection order, not ordered by how many tests each holds."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = item.path.as_posix()
        return next((n for n, slow in enumerate(SLOWEST_FIRST) if path.endswith(f"/tests/{slow}")), len(SLOWEST_FIRST))

    items.sort(key=rank)


SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
DEMO_TOURNAMENTS = DEMO_DATA_DIR / "tournaments.tar.gz"
SESSION_WORLDS = ("world-", "demo-")  # the prefixes of the session-wide worlds' tables, kept for the whole session

# A made-up opted-out drafter, named in an import so the redaction checks have a name to look for (the demo
# draft names none). Written here only: the tests import it, and test_opt_out_names keeps it out of the wheel.
NAMED_OPT_OUT = "mistveil_otter_58"
_TARKIR = json.loads((DEMO_DATA_DIR / "drafts" / "tarkir.json").read_text())
# The demo draft under another id and name, its unnamed seat given that name and listed in opt_outs
# (no word of the id or name is one of tarkir's, so "the tarkir draft" still means the demo).
NAMED_DRAFT: dict[str, Any] = dict(
    _TARKIR,
    draft_id="warband",
    draft_name="Warband",
    drafters=[NAMED_OPT_OUT if d == REDACTED else d for d in _TARKIR["drafters"]],
    picks=[dict(p, drafter=NAMED_OPT_OUT) if p["drafter"] == REDACTED else p for p in _TARKIR["picks"]],
    opt_outs=[NAMED_OPT_OUT],
)


@pytest.fixture(autouse=True)
def _no_welcome_written_yet() -> Iterator[None]:
    """Each test starts with no model-written welcome in this process's memory (``api/welcome.py``)."""
    from meta_mage.api import welcome

    welcome.forget_written()
    yield
    welcome.forget_written()


@pytest.fixture(autouse=True, scope="session")
def _aws_env() -> Iterator[None]:
    patcher = pytest.MonkeyPatch()
    for key in ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL", "AWS_PROFILE", "AWS_REGION", "META_MAGE_AWS_REGION"):
        patcher.delenv(key, raising=False)
    patcher.setenv("AWS_ACCESS_KEY_ID", "testing")
    patcher.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    patcher.setenv("AWS_DEFAULT_REGION", "us-east-1")
    yield
    patcher.undo()


def prefixed_settings(prefix: str) -> Settings:
    """Settings whose five tables are named ``<prefix>-meta`` and so on (tests sharing moto keep apart)."""
    kinds = ("meta", "cards", "drafts", "checkpoint", "locks")
    return Settings(**{f"{kind}_table": f"{prefix}-{kind}" for kind in kinds})


@pytest.fixture()
def settings() -> Settings:
    return Settings()


@pytest.fixture()
def dynamodb(settings: Settings) -> Iterator[Any]:
    """A fresh moto DynamoDB with every table of template.yaml; every table the test made is dropped afterwards
    (moto's backend is shared with the session-wide worlds below, whose tables are named ``world-…`` and
    ``demo-…``)."""
    with mock_aws():
        db = dynamodb_resource(settings)
        before = table_names(db) - set(settings.table_names().values())
        create_tables(db, settings)
        yield db
        for name in table_names(db) - before:
            if not name.startswith(SESSION_WORLDS):
                db.Table(name).delete()


def table_names(db: Any) -> set[str]:
    """Every table's name (ListTables pages at 100)."""
    pages = db.meta.client.get_paginator("list_tables").paginate()
    return {name for page in pages for name in page["TableNames"]}


def demo_members(prefix: str = "", formats: tuple[str, ...] = ()) -> list[tuple[str, bytes]]:
    """Files of the bundled demo tournament archive, optionally only some formats."""
    return [
        (name, data)
        for name, fmt, data in _demo_archive()
        if name.startswith(prefix) and (not formats or fmt in formats)
    ]


@functools.cache
def _demo_archive() -> tuple[tuple[str, str | None, bytes], ...]:
    """Each file of the demo archive with its format, read once per process."""
    with tarfile.open(DEMO_TOURNAMENTS) as archive:
        files = []
        for member in archive.getmembers():
            data = archive.extractfile(member).read()  # type: ignore[union-attr]
            files.append((member.name, json.loads(data)["Tournament"].get("Formats"), data))
        return tuple(files)


def top_eight(data: bytes) -> bytes:
    """A challenge file cut to the decks and standings of the players its rounds name (its top 8): every kind
    of item an ingest writes, at a quarter of the decks, for the tests that repeat an ingest at every write."""
    tournament = json.loads(data)
    players = {m[side] for r in tournament["Rounds"] for m in r["Matches"] for side in ("Player1", "Player2")}
    tournament["Decks"] = [deck for deck in tournament["Decks"] if deck["Player"] in players]
    tournament["Standings"] = [row for row in tournament["Standings"] if row["Player"] in players]
    return json.dumps(tournament).encode()


def write_members(members: list[tuple[str, bytes]], folder: Path) -> list[Path]:
    paths = []
    for name, data in members:
        path = folder / Path(name).name
        path.write_bytes(data)
        paths.append(path)
    return paths


def archive_of(members: list[tuple[str, bytes]], path: Path) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


@functools.cache
def demo_snapshot() -> Snapshot:
    """The shipped demo snapshot, read once per process."""
    return read_snapshot(DEMO_SNAPSHOT)


def put_demo_cards(settings: Settings) -> None:
    """The demo cards straight into this process's moto: the items an ingest of ``cards.json.gz`` stores
    (test_demo_snapshot holds the snapshot to that), at a tenth of the time of a card ingest."""
    assert put_into_moto(
        aws_region(settings), {"CardsTable": settings.cards_table}, {"CardsTable": demo_snapshot().items["CardsTable"]}
    )


def put_demo_format(settings: Settings, fmt: str) -> None:
    """One format's items of the demo snapshot straight into this process's moto: what an ingest of that
    format's demo files stores (its partitions, its events, its registry entry), at a tenth of the time."""
    items = demo_snapshot().items["MetaTable"]
    events = {"EVENT#" + item["sk"]["S"].split("#", 1)[1] for item in items if item["pk"]["S"] == f"FMT#{fmt}#EVENTS"}

    def of_format(pk: str, sk: str) -> bool:
        return (
            pk == f"FMT#{fmt}"
            or pk.startswith((f"FMT#{fmt}#", f"ARCH#{fmt}#"))
            or pk in events
            or (pk == "FORMATS" and sk == fmt)
        )

    kept = [item for item in items if of_format(item["pk"]["S"], item["sk"]["S"])]
    assert events and put_into_moto(aws_region(settings), {"MetaTable": settings.meta_table}, {"MetaTable": kept})


@pytest.fixture(scope="session")
def modern_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One moto DynamoDB per session holding demo cards, the demo Modern files and the tarkir draft."""
    settings = Settings(
        meta_table="world-meta",
        cards_table="world-cards",
        drafts_table="world-drafts",
        checkpoint_table="world-checkpoints",
        locks_table="world-locks",
    )
    folder = tmp_path_factory.mktemp("modern")
    archive = archive_of(demo_members(formats=("Modern",)), folder / "modern.tar.gz")
    with mock_aws():
        # built as the app starts (``starting_up``): no collector passes while it is made, then kept out of
        # the collector's sight, whose full passes over its million objects every later test would pay for
        with starting_up():
            db = dynamodb_resource(settings)
            create_tables(db, settings)
            put_demo_cards(settings)
            put_demo_format(settings, "Modern")
            draft_path = DEMO_DATA_DIR / "drafts" / "tarkir.json"
            drafts = DraftsRepository(db.Table(settings.drafts_table))
            cards = CardsRepository(db.Table(settings.cards_table))
            assert ingest_draft(load_draft(draft_path), str(draft_path), drafts, cards).ok
            world = {
                "db": db,
                "settings": settings,
                "context": Wiring(settings, db).tool_context,
                "registry": build_registry(),
                "archive": archive,
            }
        yield world


@pytest.fixture(scope="session")
def demo_world(modern_world: dict[str, Any]) -> dict[str, Any]:
    """Every bundled format: the demo snapshot put straight into tables of its own in the session's moto (as
    ``serve`` loads it into its embedded server; loading it through the API is test_demo_snapshot's)."""
    settings = prefixed_settings("demo")
    db = modern_world["db"]
    with starting_up():  # as modern_world is built
        create_tables(db, settings)
        snapshot = demo_snapshot()
        assert put_into_moto(aws_region(settings), snapshot_table_names(settings), snapshot.items)
        MetaRepository(db.Table(settings.meta_table)).mark_seeded(snapshot.source_digest)
        context = Wiring(settings, db).tool_context
    return {"db": db, "settings": settings, "context": context, "registry": build_registry()}


@pytest.fixture()
def named_opt_out_draft(modern_world: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """``NAMED_DRAFT`` imported into the session's world for one test, then removed: every item the import
    added is deleted, so the other tests still see the demo draft alone."""
    table = modern_world["db"].Table(modern_world["settings"].drafts_table)

    def keys() -> set[tuple[str, str]]:
        items: list[dict[str, Any]] = []
        page: dict[str, Any] = {"ProjectionExpression": "pk, sk"}
        while True:
            response = table.scan(**page)
            items += response["Items"]
            if "LastEvaluatedKey" not in response:
                return {(i["pk"], i["sk"]) for i in items}
            page["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    before = keys()
    assert not any(NAMED_DRAFT["draft_id"] in pk or NAMED_DRAFT["draft_id"] == sk for pk, sk in before)
    context = modern_world["context"]
    draft = DraftImport.model_validate(NAMED_DRAFT)
    try:
        assert ingest_draft(draft, "named.json", DraftsRepository(table), context.cards).ok
        yield NAMED_DRAFT
    finally:
        with table.batch_writer() as batch:
            for pk, sk in keys() - before:
                batch.delete_item(Key={"pk": pk, "sk": sk})
        assert keys() == before


@pytest.fixture(scope="session")
def mcp_url(modern_world: dict[str, Any]) -> Iterator[str]:
    """The MCP server (stateless streamable HTTP) over the Modern world, on loopback for the session."""
    from meta_mage.mcp.server import build_mcp_app
    from tests.servers import serving

    with serving(build_mcp_app(modern_world["settings"], modern_world["db"])) as base:
        yield f"{base}/mcp"


def call(world: dict[str, Any], name: str, **arguments: Any) -> dict[str, Any]:
    result: dict[str, Any] = world["registry"].call(name, arguments, world["context"])
    return result


def green_creatures(world: dict[str, Any]) -> dict[str, Any]:
    """The demo draft's green creatures with who took them: the pool the cube questions of the tests ask about."""
    return call(
        world, "get_draft_pool", draft_id="tarkir", color="G", type_contains="Creature", include_draft_results=True
    )


LISTENER = "http://127.0.0.1:18999"  # nothing listens there: a request to it is what a test looks for
HOSTILE_DRAFTER = f"<video poster={LISTENER}/x></video>[prize](https://evil.example)"
HOSTILE_DRAFT_NAME = "Hostile <b>cube</b> [link](https://evil.example/d)"
HOSTILE_DRAFTER_STORED = "[prize](https://evil.example)"  # the import drops the tags (models/names.py)


@contextmanager
def hostile_draft_tables(modern_world: dict[str, Any]) -> Iterator[tuple[Settings, Any]]:
    """Tables (in the moto the session runs) holding one cube draft, ``hostile``, whose drafter and draft names
    are markup; the card corpus is the session's (a cube card must be a real card: the importer refuses any other
    name, so a card name cannot carry markup in through a draft)."""
    settings = prefixed_settings("hostile").model_copy(update={"cards_table": modern_world["settings"].cards_table})
    db = dynamodb_resource(settings)
    create_tables(db, settings)
    draft = DraftImport.model_validate(
        {
            "draft_id": "hostile",
            "draft_name": HOSTILE_DRAFT_NAME,
            "draft_date": "2025-11-01",
            "cube": [{"name": "Lightning Bolt"}, {"name": "Counterspell"}],
            "drafters": [HOSTILE_DRAFTER],
            "picks": [{"pick_n": 1, "drafter": HOSTILE_DRAFTER, "card": "Lightning Bolt"}],
        }
    )
    drafts, cards = DraftsRepository(db.Table(settings.drafts_table)), CardsRepository(db.Table(settings.cards_table))
    assert ingest_draft(draft, "hostile.json", drafts, cards).ok
    try:
        yield settings, db
    finally:
        for name in (settings.meta_table, settings.drafts_table, settings.checkpoint_table, settings.locks_table):
            db.Table(name).delete()
