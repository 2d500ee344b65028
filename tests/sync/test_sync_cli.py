"""``meta-mage sync``: over a real local git clone (``--git-dir``) and over the loopback GitHub (``--github``)."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from meta_mage.cli import main
from meta_mage.config import Settings, get_settings
from meta_mage.storage.meta import MetaRepository
from meta_mage.sync.git import cursor_name
from tests.sync.conftest import files, scan, tournaments_per_format
from tests.sync.fake_github import FakeGitHub, day

REPO = "fbettega/MTG_decklistcache"


def git(clone: Path, *args: str, when: dt.datetime | None = None) -> str:
    stamp = (when or dt.datetime(2025, 11, 1, tzinfo=dt.UTC)).isoformat()
    env = {**os.environ, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    identity = ["-c", "user.name=bot", "-c", "user.email=bot@example.invalid", "-c", "commit.gpgsign=false"]
    done = subprocess.run(["git", *identity, "-C", str(clone), *args], env=env, capture_output=True, check=True)
    return done.stdout.decode().strip()


def commit(clone: Path, changes: dict[str, bytes], when: dt.datetime) -> str:
    for path, data in changes.items():
        (clone / path).parent.mkdir(parents=True, exist_ok=True)
        (clone / path).write_bytes(data)
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "auto update", when=when)
    return git(clone, "rev-parse", "HEAD")


@pytest.fixture()
def clone(tmp_path: Path) -> Path:
    path = tmp_path / "MTG_decklistcache"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "remote", "add", "origin", f"https://github.com/{REPO}.git")
    return path


@pytest.fixture()
def fresh_settings() -> Iterator[None]:
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_git_dir_syncs_all_files_then_what_changed(
    clone: Path, meta: MetaRepository, capsys: pytest.CaptureFixture[str], fresh_settings: None
) -> None:
    # Given a clone with two commits (and a file outside Tournaments/)
    commit(clone, {**files(0, 3), "README.md": b"cache"}, day(1))
    first_head = commit(clone, files(3, 5), day(2))
    # When it is synced for the first time, without --since: every file under Tournaments/
    assert main(["sync", "--git-dir", str(clone)]) == 0
    out = capsys.readouterr().out
    assert "2 commits, 5 files listed, 5 ingested" in out and "(advanced)" in out
    # keyed like the GitHub sync of the same repository, so either can take over from the other
    assert meta.sync_cursor(REPO, "main") == first_head
    # When a commit adds two files and a truncated one
    path, data = next(iter(files(7, 8).items()))
    head = commit(clone, {**files(5, 7), path: data[:100]}, day(3))
    assert main(["sync", "--git-dir", str(clone)]) == 1
    out = capsys.readouterr().out
    assert "1 commit, 3 files listed, 2 ingested" in out and f"FAILED {path}: invalid JSON" in out
    assert meta.sync_cursor(REPO, "main") == head  # a bad file is reported, not retried
    # Then a run with nothing new writes nothing
    before = scan(meta.table)
    assert main(["sync", "--git-dir", str(clone)]) == 0
    assert "0 files listed" in capsys.readouterr().out
    assert scan(meta.table) == before
    assert sum(tournaments_per_format(meta).values()) == 7


def test_git_dir_first_sync_since_a_date(
    clone: Path, meta: MetaRepository, capsys: pytest.CaptureFixture[str], fresh_settings: None
) -> None:
    commit(clone, files(0, 3), day(1))
    commit(clone, files(3, 5), day(2))
    commit(clone, files(5, 6), day(3))
    assert main(["sync", "--git-dir", str(clone), "--since", "2025-11-02"]) == 0
    assert "2 commits, 3 files listed, 3 ingested" in capsys.readouterr().out


def test_git_dir_of_no_repository_fails_clearly(
    tmp_path: Path, dynamodb: Any, capsys: pytest.CaptureFixture[str], fresh_settings: None
) -> None:
    assert main(["sync", "--git-dir", str(tmp_path)]) == 1
    assert "sync: FAILED git rev-parse failed" in capsys.readouterr().err


def test_github_sync_sends_the_token_and_filters(
    github: FakeGitHub,
    meta: MetaRepository,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fresh_settings: None,
) -> None:
    github.repository.commit(files(0, 8), day(1))
    monkeypatch.setenv("META_MAGE_SYNC_API_URL", github.api_url)
    monkeypatch.setenv("META_MAGE_SYNC_RAW_URL", github.raw_url)
    monkeypatch.setenv("MY_TOKEN", "s3cret")
    argv = ["sync", "--github", REPO, "--token-env", "MY_TOKEN", "--format", "modern"]
    assert main(argv) == 1
    assert "give the date the first sync starts from" in capsys.readouterr().err
    assert main([*argv, "--since", "2025-11-01"]) == 0
    out = capsys.readouterr().out
    assert "8 files listed" in out and "skipped (other format)" in out
    assert set(tournaments_per_format(meta)) == {"Modern"}
    assert {entry.headers.get("Authorization") for entry in github.log} == {"Bearer s3cret"}
    assert main(["sync", "--github", REPO, "--format", "Cube"]) == 2
    assert "unknown format 'Cube'" in capsys.readouterr().err


def test_cursor_names_of_clones(tmp_path: Path) -> None:
    assert cursor_name(f"git@github.com:{REPO}.git", tmp_path) == REPO
    assert cursor_name(f"https://x-access-token:abc@github.com/{REPO}", tmp_path) == REPO
    assert cursor_name("https://user:pw@git.example.org/a/b.git", tmp_path) == "https://git.example.org/a/b.git"
    assert cursor_name("", tmp_path) == str(tmp_path.resolve())


def test_sync_settings_read_comma_separated_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("META_MAGE_SYNC_SOURCES", "mtgo, melee")
    monkeypatch.setenv("META_MAGE_SYNC_FORMATS", "Modern")
    monkeypatch.setenv("META_MAGE_SYNC_START_DATE", "2025-11-01")
    settings = Settings()
    assert settings.sync_sources == ("mtgo", "melee") and settings.sync_formats == ("Modern",)
    assert settings.sync_start_date == dt.date(2025, 11, 1)
