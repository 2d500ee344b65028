"""The meta-mage command against moto (same code path as a real table)."""

import json
import tarfile
from pathlib import Path
from typing import Any

import pytest

from meta_mage.cli import main
from tests.conftest import demo_members, write_members


def test_cli_tables_ingest_and_tool(dynamodb: Any, tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tables", "create"]) == 0
    assert "already exist" in capsys.readouterr().out
    files = write_members(demo_members(formats=("Legacy",))[:2], tmp_path)
    (tmp_path / "broken.json").write_text("{")
    assert main(["ingest", "tournaments", str(tmp_path)]) == 1  # one bad file: non-zero, others stored
    out = capsys.readouterr().out
    assert "2 added" in out and "broken.json: invalid JSON" in out
    assert main(["tool", "list_formats"]) == 0
    formats = json.loads(capsys.readouterr().out)["formats"]
    assert formats[0]["format"] == "Legacy" and formats[0]["tournaments"] == len(files)
    assert main(["tool", "get_format_meta_rankings", '{"format": "Legacy", "current_days": 0}']) == 2
    error = json.loads(capsys.readouterr().err)
    assert error["error"] == "invalid_argument" and error["field"] == "current_days"


def test_cli_ingest_names_an_archive_without_tournament_files(
    dynamodb: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given an archive holding only a README (as the drop zone would also refuse)
    (tmp_path / "README.txt").write_text("not a tournament")
    with tarfile.open(tmp_path / "empty.tar.gz", "w:gz") as archive:
        archive.add(tmp_path / "README.txt", arcname="README.txt")
    # When it is ingested, Then the command fails naming it, and nothing is stored
    assert main(["ingest", "tournaments", str(tmp_path / "empty.tar.gz")]) == 1
    assert "empty.tar.gz: archive holds no .json or .json.gz file" in capsys.readouterr().out
    assert main(["tool", "list_formats"]) == 0
    assert json.loads(capsys.readouterr().out)["formats"] == []


def test_tool_list_prints_the_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tool", "--list"]) == 0
    assert "get_draft_pool" in capsys.readouterr().out


def test_cli_ask_streams_one_turn_and_continues_it(
    modern_world: dict[str, Any], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    names = modern_world["settings"]
    monkeypatch.setattr("meta_mage.cli.get_settings", lambda: names)
    assert main(["ask", "What are the top decks in Modern?"]) == 0
    first = capsys.readouterr().out
    assert "offline mode" in first and "How many days" in first
    conversation = first.rsplit("--conversation ", 1)[1].strip(" )\n")
    assert main(["ask", "30 days", "--conversation", conversation]) == 0
    second = capsys.readouterr().out
    assert "→ get_format_meta_rankings" in second and "✓ get_format_meta_rankings" in second and "| 1 |" in second
    assert main(["ask", "hi", "--conversation", "not-an-id"]) == 2
    assert "conversation_id must be" in capsys.readouterr().out
