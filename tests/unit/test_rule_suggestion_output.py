"""`meta-mage rules suggest` writes safely (issue 21): never through a symbolic link, never inside the rules in
use, never over a README it did not write, every file whole or absent, and one-line errors (exit 2) for files,
devices and numbers out of range. No DynamoDB: the command must refuse before it reads any."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from meta_mage.cli import main
from meta_mage.config import DEMO_DATA_DIR, get_settings
from meta_mage.ingest.rule_suggestions import OutputRefused, RuleSuggestion, check_output, write_suggestions
from meta_mage.models.meta import FormatSummary

RULE = {
    "Name": "Ocelot",
    "IncludeColorInName": True,
    "Strategy": "aggro",
    "Conditions": [{"Type": "InMainboard", "Cards": ["Ocelot Pride"]}],
}


def _suggestion(stem: str = "Ocelot", fmt: str = "Modern") -> RuleSuggestion:
    return RuleSuggestion(
        format=fmt,
        name=stem,
        display_name=f"Boros {stem}",
        file_stem=stem,
        rule=dict(RULE, Name=stem),
        decks=6,
        events=2,
        matched=6,
        also_unnamed=0,
        cards=[],
        colors={"RW": 6},
        previous_names={"Aggro": 6},
        examples=[],
        overlaps={},
        takes_over={},
    )


def _rules(folder: Path) -> Path:
    (folder / "Formats/Modern/Archetypes").mkdir(parents=True)
    (folder / "Formats/Modern/Archetypes/Energy.json").write_text('{"Name": "Energy"}')
    return folder


def _tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()}


class _Meta:
    """One format with data; any other read means the command went on past a refusal."""

    def list_formats(self) -> list[FormatSummary]:
        return [FormatSummary(format="Modern", first_date="2025-11-01", last_date="2025-11-17", tournaments=2,
                              decks=12, matches=0)]  # fmt: skip

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the command read {name} after it should have refused")


@pytest.fixture
def no_database(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(settings: Any) -> Any:
        raise AssertionError("the command opened the database before checking its arguments")

    monkeypatch.setattr("meta_mage.ingest.rule_suggestions.command.open_meta", refuse)


@pytest.fixture
def one_format(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("meta_mage.ingest.rule_suggestions.command.open_meta", lambda settings: _Meta())


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: "), err  # one line, no traceback
    return code, err


# --- symbolic links ------------------------------------------------------------------------------------------


def test_the_readme_is_never_written_through_a_symbolic_link(tmp_path: Path) -> None:
    # Given an earlier output whose README.md is a link to another file (and one to a file not yet there)
    victim, missing = tmp_path / "victim.txt", tmp_path / "missing.txt"
    victim.write_text("keep me")
    for target in (victim, missing):
        out = tmp_path / f"out-{target.stem}"
        (out / "Formats/Modern").mkdir(parents=True)
        (out / "Formats/Modern/README.md").symlink_to(target)
        # When suggestions are written there, Then it is refused, naming the link, and nothing is written
        with pytest.raises(OutputRefused, match=r"README\.md is a symbolic link"):
            write_suggestions([_suggestion()], out)
        assert not (out / "Formats/Modern/Archetypes").exists() or not any(
            (out / "Formats/Modern/Archetypes").iterdir()
        )
    assert victim.read_text() == "keep me" and not missing.exists()


def test_the_command_refuses_a_symbolic_link_readme_before_clustering(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], one_format: None
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (tmp_path / "out/Formats/Modern").mkdir(parents=True)
    (tmp_path / "out/Formats/Modern/README.md").symlink_to(victim)
    code, err = _run(capsys, "rules", "suggest", "Modern", "--out", str(tmp_path / "out"))
    assert code == 2 and "README.md is a symbolic link" in err and victim.read_text() == "keep me"


@pytest.mark.parametrize("link", ["out", "out/Formats", "out/Formats/Modern", "out/Formats/Modern/Archetypes"])
def test_an_out_that_is_or_holds_a_symbolic_link_is_refused(tmp_path: Path, link: str) -> None:
    # Given an output folder where one folder on the way is a link to another directory
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / link).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / link).symlink_to(elsewhere)
    # When suggestions are written, Then it is refused and the linked directory stays empty
    with pytest.raises(OutputRefused, match=f"{tmp_path / link} is a symbolic link"):
        write_suggestions([_suggestion()], tmp_path / "out")
    assert not any(elsewhere.iterdir())


def test_an_out_passing_through_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(OutputRefused, match="link is a symbolic link"):
        write_suggestions([_suggestion()], tmp_path / "link/out")
    assert not (tmp_path / "real/out").exists()


def test_a_rule_file_name_taken_by_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    victim = tmp_path / "victim.json"
    victim.write_text("{}")
    (tmp_path / "out/Formats/Modern/Archetypes").mkdir(parents=True)
    (tmp_path / "out/Formats/Modern/Archetypes/Ocelot.suggested.json").symlink_to(victim)
    with pytest.raises(OutputRefused, match=r"Ocelot\.suggested\.json is a symbolic link"):
        write_suggestions([_suggestion()], tmp_path / "out")
    assert victim.read_text() == "{}"


# --- files, devices, the rules in use -------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "kind"), [("a-file", "a file"), ("/dev/null", "a device")])
def test_an_out_naming_a_file_or_device_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_database: None, name: str, kind: str
) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    out = name if name.startswith("/") else str(tmp_path / name)
    # When the command is given it as --out, Then it stops with exit 2 and one line, before reading any data
    code, err = _run(capsys, "rules", "suggest", "Modern", "--out", out)
    assert code == 2 and f"{out} is {kind}, not a directory" in err
    # And a file on the way is refused the same
    with pytest.raises(OutputRefused, match=f"is {kind}, not a directory"):
        write_suggestions([_suggestion()], Path(out) / "sub")
    assert (tmp_path / "a-file").read_text() == "not a folder"


def test_an_out_inside_the_rules_in_use_is_refused(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    no_database: None,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    rules = _rules(tmp_path / "rules")
    before = _tree(rules)
    # --rules-dir: the format's folder, the rules' root, a new folder below it
    for out in (rules / "Formats/Modern", rules, rules / "new"):
        code, err = _run(capsys, "--rules-dir", str(rules), "rules", "suggest", "Modern", "--out", str(out))
        assert code == 2 and "is inside the rules directory in use" in err
    # the rules named through a link, the output by their real path: resolved, still inside
    (tmp_path / "rules-link").symlink_to(rules)
    code, err = _run(capsys, "--rules-dir", str(tmp_path / "rules-link"), "rules", "suggest", "Modern", "--out",
                     str(rules / "Formats"))  # fmt: skip
    assert code == 2 and "is inside the rules directory in use" in err
    # META_MAGE_ARCHETYPE_RULES_DIR
    monkeypatch.setenv("META_MAGE_ARCHETYPE_RULES_DIR", str(rules))
    get_settings.cache_clear()
    request.addfinalizer(get_settings.cache_clear)
    code, err = _run(capsys, "rules", "suggest", "Modern", "--out", str(rules / "Formats/Modern/Archetypes"))
    assert code == 2 and "is inside the rules directory in use" in err
    assert _tree(rules) == before
    # the bundled rules, when nothing else is configured
    monkeypatch.delenv("META_MAGE_ARCHETYPE_RULES_DIR")
    get_settings.cache_clear()
    bundled = DEMO_DATA_DIR / "archetypes/Formats/Modern"
    code, err = _run(capsys, "rules", "suggest", "Modern", "--out", str(bundled))
    assert code == 2 and "is inside the rules directory in use" in err
    assert not (bundled / "Formats").exists()
    # And the library refuses the same, also for rules that sit inside the folder it would write
    with pytest.raises(OutputRefused, match="inside the rules directory in use"):
        write_suggestions([_suggestion()], rules / "Formats/Modern", rules_dir=rules)
    out = tmp_path / "out"
    with pytest.raises(OutputRefused, match="inside the rules directory in use"):
        write_suggestions([_suggestion()], out, rules_dir=out / "Formats/Modern/Archetypes")
    # while a folder beside the rules is fine
    check_output(tmp_path / "beside", rules, ["Modern"])


def test_a_format_name_that_is_no_folder_name_is_refused(tmp_path: Path) -> None:
    for fmt in ("../../escaped", "..", "a/b", "a\x00b"):
        with pytest.raises(OutputRefused, match="cannot be a folder name"):
            write_suggestions([_suggestion(fmt=fmt)], tmp_path / "out")
    assert not (tmp_path / "escaped").exists()


# --- numbers --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value", "largest"),
    [
        ("--days", "1000000000", 3650),
        ("--days", "3651", 3650),
        ("--days", "0", 3650),
        ("--days", "-5", 3650),
        ("--min-decks", "0", 3000),
        ("--min-decks", "99999999999999999999", 3000),
        ("--min-events", "0", 3000),
        ("--min-events", "1000000000", 3000),
    ],
)
def test_numbers_out_of_range_are_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_database: None, option: str, value: str, largest: int
) -> None:
    code, err = _run(capsys, "rules", "suggest", "Modern", option, value, "--out", str(tmp_path / "out"))
    assert code == 2 and err.strip() == f"error: {option} must be between 1 and {largest}, got {int(value)}"
    assert not (tmp_path / "out").exists()


# --- what is already there ------------------------------------------------------------------------------------


def test_a_readme_not_written_by_the_command_is_replaced_only_with_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], one_format: None
) -> None:
    # Given an --out whose Formats/Modern/README.md someone else wrote
    out = tmp_path / "out"
    readme = out / "Formats/Modern/README.md"
    readme.parent.mkdir(parents=True)
    readme.write_text("# my notes on Modern\n")
    # When the command runs, Then it stops before clustering, naming the file and --force
    code, err = _run(capsys, "rules", "suggest", "Modern", "--out", str(out))
    assert code == 2 and f"{readme} was not written by `meta-mage rules suggest`" in err and "--force" in err
    with pytest.raises(OutputRefused, match="--force"):
        write_suggestions([_suggestion()], out)
    assert readme.read_text() == "# my notes on Modern\n" and not (out / "Formats/Modern/Archetypes").exists()
    # And with force it is replaced; a README the command wrote is replaced on each run without it
    (path,) = write_suggestions([_suggestion()], out, force=True)
    assert "Boros Ocelot" in readme.read_text() and path.read_text().startswith("{")
    write_suggestions([_suggestion("Pride")], out)
    assert "Boros Pride" in readme.read_text()
    # And a README.md that is a folder is refused even with force
    (out / "Formats/Legacy/README.md").mkdir(parents=True)
    with pytest.raises(OutputRefused, match=r"README\.md is a directory, not a file"):
        write_suggestions([_suggestion(fmt="Legacy")], out, force=True)


def test_nothing_is_half_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a first run's output
    out = tmp_path / "out"
    write_suggestions([_suggestion()], out)
    before = _tree(out)
    names = sorted(os.listdir(out / "Formats/Modern/Archetypes"))

    # When the disk fills while the next run writes
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match="No space left"):
        write_suggestions([_suggestion("Pride")], out)
    # Then no new file appears, not even a temporary one, and the README is the whole old one
    assert _tree(out) == before and sorted(os.listdir(out / "Formats/Modern/Archetypes")) == names
    assert sorted(os.listdir(out / "Formats/Modern")) == ["Archetypes", "README.md"]
