"""Tables come from template.yaml; ingest is idempotent, skips duplicates and never half-writes."""

import json
from pathlib import Path
from typing import Any

from botocore.exceptions import EndpointConnectionError

from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import DEMO_DATA_DIR, Settings
from meta_mage.ingest.card_ingest import ingest_cards
from meta_mage.ingest.tournament_ingest import ingest_tournaments
from meta_mage.storage.cards import CardsRepository
from meta_mage.storage.dynamo import storage_operation
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.tables import create_tables, table_definitions
from tests.conftest import demo_members, write_members


def test_tables_match_template_and_creation_is_idempotent(dynamodb: Any, settings: Settings) -> None:
    definitions = table_definitions()
    assert set(definitions) == {"MetaTable", "CardsTable", "DraftsTable", "CheckpointTable", "LocksTable"}
    for logical_id, name in settings.table_names().items():
        described = dynamodb.meta.client.describe_table(TableName=name)["Table"]
        assert described["KeySchema"] == definitions[logical_id]["KeySchema"]
    assert create_tables(dynamodb, settings) == []


def scan_count(table: Any) -> int:
    return int(table.scan(Select="COUNT")["Count"])


def test_reingest_and_renamed_or_redated_copies_change_nothing(
    dynamodb: Any, settings: Settings, tmp_path: Path
) -> None:
    # Given three real demo files
    files = write_members(demo_members(formats=("Pioneer",))[:3], tmp_path)
    repo = MetaRepository(dynamodb.Table(settings.meta_table))
    classifier = get_classifier(settings.archetype_rules_dir)
    first = ingest_tournaments(files, repo, classifier)
    assert first.outcomes["added"] == 3 and first.ok, first.summary()
    items = scan_count(dynamodb.Table(settings.meta_table))

    # When the same files come again, one of them under another name, and one re-dated
    renamed = tmp_path / "renamed.json"
    renamed.write_bytes(files[0].read_bytes())
    redated_doc = json.loads(files[1].read_bytes())
    redated_doc["Tournament"]["Date"] = "2025-12-31"
    redated = tmp_path / "redated.json"
    redated.write_text(json.dumps(redated_doc))
    again = ingest_tournaments([*files, renamed, redated], repo, classifier)

    # Then nothing is added
    assert again.outcomes["unchanged"] == 4 and again.outcomes["duplicates skipped"] == 1 and again.ok
    assert scan_count(dynamodb.Table(settings.meta_table)) == items


def test_bad_file_is_named_others_still_ingested_nothing_partial(
    dynamodb: Any, settings: Settings, tmp_path: Path
) -> None:
    good = write_members(demo_members(formats=("Vintage",))[:2], tmp_path)
    truncated = tmp_path / "truncated.json"
    truncated.write_bytes(good[0].read_bytes()[:5000])
    no_rounds_doc = json.loads(good[1].read_bytes())
    del no_rounds_doc["Rounds"]
    no_rounds = tmp_path / "no_rounds.json"
    no_rounds.write_text(json.dumps(no_rounds_doc))
    repo = MetaRepository(dynamodb.Table(settings.meta_table))

    report = ingest_tournaments(
        [truncated, good[0], no_rounds, tmp_path / "missing.json"], repo, get_classifier(settings.archetype_rules_dir)
    )

    assert not report.ok and report.outcomes["added"] == 1
    reasons = dict(report.failures)
    assert "invalid JSON" in reasons[str(truncated)]
    assert reasons[str(no_rounds)] == "missing 'Rounds'"
    assert "no such file" in reasons[str(tmp_path / "missing.json")]
    info = repo.list_formats()
    assert [f.tournaments for f in info] == [1]  # only the good event counts


def test_cards_ingest_and_duplicate_names_rejected(dynamodb: Any, settings: Settings, tmp_path: Path) -> None:
    repo = CardsRepository(dynamodb.Table(settings.cards_table))
    report = ingest_cards([DEMO_DATA_DIR / "cards.json.gz"], repo)
    assert report.ok and report.totals["cards stored"] > 4000
    scryfall = [
        {
            "object": "card",
            "name": "Fire // Ice",
            "layout": "split",
            "cmc": 4,
            "type_line": "Instant // Instant",
            "color_identity": ["U", "R"],
            "card_faces": [
                {"name": "Fire", "mana_cost": "{1}{R}", "colors": ["R"]},
                {"name": "Ice", "mana_cost": "{1}{U}", "colors": ["U"]},
            ],
        }
    ]
    (tmp_path / "scryfall.json").write_text(json.dumps(scryfall))
    assert ingest_cards([tmp_path / "scryfall.json"], repo).ok
    fire = repo.get_many(["fire"])["fire"]
    assert (fire.name, fire.mana_cost, fire.cmc, fire.color_identity) == ("Fire // Ice", "{1}{R}", 4.0, ["U", "R"])
    (tmp_path / "dupes.json").write_text(json.dumps(scryfall * 2))
    failed = ingest_cards([tmp_path / "dupes.json"], repo)
    assert failed.failures == [(str(tmp_path / "dupes.json"), "card name 'Fire // Ice' appears more than once")]

    # Scryfall's oracle cards repeat a name for Unstable's variants (set_type "funny"): those are skipped
    variant = {"object": "card", "name": "Very Cryptic Command", "layout": "normal", "cmc": 4, "set_type": "funny",
               "type_line": "Instant", "mana_cost": "{1}{U}{U}{U}", "color_identity": ["U"]}  # fmt: skip
    (tmp_path / "oracle.json").write_text(json.dumps([*scryfall, variant, {**variant, "oracle_id": "2"}]))
    assert ingest_cards([tmp_path / "oracle.json"], repo).ok
    assert repo.get_many(["very cryptic command"]) == {}


def _same_day_pair(fmt: str) -> list[tuple[str, bytes]]:
    by_day: dict[str, list[tuple[str, bytes]]] = {}
    for name, data in demo_members(formats=(fmt,)):
        by_day.setdefault(json.loads(data)["Tournament"]["Date"][:10], []).append((name, data))
    return next(files[:2] for files in by_day.values() if len(files) >= 2)


def test_an_event_whose_ingest_failed_before_its_header_is_not_counted(
    dynamodb: Any, settings: Settings, tmp_path: Path, monkeypatch: Any
) -> None:
    # Given two real Modern events of one day
    first, second = write_members(_same_day_pair("Modern"), tmp_path)
    repo = MetaRepository(dynamodb.Table(settings.meta_table))
    classifier = get_classifier(settings.archetype_rules_dir)

    # When the first one's run stops after its decks and aggregate are written, before its header
    real_rebuild = MetaRepository.rebuild_day

    def failing(self: MetaRepository, *args: Any, **kwargs: Any) -> None:
        raise EndpointConnectionError(endpoint_url="https://dynamodb.us-east-1.amazonaws.com")

    monkeypatch.setattr(MetaRepository, "rebuild_day", storage_operation(failing))  # as the repository reports it
    failed = ingest_tournaments([first], repo, classifier)
    assert not failed.ok and "DynamoDB error" in failed.failures[0][1]
    monkeypatch.setattr(MetaRepository, "rebuild_day", real_rebuild)

    # and the second one is ingested on its own
    assert ingest_tournaments([second], repo, classifier).ok
    [info] = repo.list_formats()
    [day] = repo.format_days("Modern", info.first_date, info.last_date)

    # Then the day counts the committed event only
    second_decks = len(json.loads(second.read_bytes())["Decks"])
    assert (info.tournaments, info.decks, day.data["tournaments"]) == (1, second_decks, 1)

    # and a retry of the first file commits it and counts both
    retried = ingest_tournaments([first], repo, classifier)
    assert retried.ok and retried.outcomes["added"] == 1  # no header yet: it was never committed
    [info] = repo.list_formats()
    first_decks = len(json.loads(first.read_bytes())["Decks"])
    assert (info.tournaments, info.decks) == (2, first_decks + second_decks)


def test_a_redated_copy_in_the_same_run_is_skipped_not_counted_twice(
    dynamodb: Any, settings: Settings, tmp_path: Path
) -> None:
    # Given a real event, a copy of it under another name, and a copy dated two weeks later
    [original] = write_members(demo_members(formats=("Pioneer",))[:1], tmp_path)
    renamed = tmp_path / "renamed.json"
    renamed.write_bytes(original.read_bytes())
    document = json.loads(original.read_bytes())
    document["Tournament"]["Date"] = "2025-12-31T00:00:00Z"
    redated = tmp_path / "redated.json"
    redated.write_text(json.dumps(document))
    repo = MetaRepository(dynamodb.Table(settings.meta_table))
    classifier = get_classifier(settings.archetype_rules_dir)

    # When all three come in one run
    report = ingest_tournaments([original, renamed, redated], repo, classifier)

    # Then the event is stored once, and the notes name the copy that was kept
    assert (report.outcomes["added"], report.outcomes["unchanged"], report.outcomes["duplicates skipped"]) == (1, 1, 1)
    assert any(
        line.startswith(f"  {redated}: duplicates skipped: another version of its event is kept")
        and line.endswith(f": {original}")
        for line in report.file_lines()
    )
    [info] = repo.list_formats()
    assert (info.tournaments, info.decks) == (1, len(document["Decks"]))
    again = ingest_tournaments([redated], repo, classifier)
    assert again.outcomes["duplicates skipped"] == 1 and repo.list_formats() == [info]
