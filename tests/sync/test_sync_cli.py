"""``meta-mage sync``: over a real local git clone (``--git-dir``) and over the loopback GitHub (``--github``)."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.wrappers import Response

from meta_mage.cli import main
from meta_mage.config import Settings, get_settings
from meta_mage.storage.meta import MetaRepository
from meta_mage.sync.git import cursor_name
from tests.sync.conftest import files, scan, tournaments_per_format
from tests.sync.fake_github import FakeGitHub, Override, day

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


def github_env(github: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("META_MAGE_SYNC_API_URL", github.api_url)
    monkeypatch.setenv("META_MAGE_SYNC_RAW_URL", github.raw_url)


def test_github_force_push_fails_naming_the_reset_which_works(
    github: FakeGitHub,
    meta: MetaRepository,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fresh_settings: None,
) -> None:
    # Given a synced branch that is then rewritten (force-pushed): the cursor's commit is gone
    github_env(github, monkeypatch)
    github.repository.commit(files(0, 3), day(1))
    assert main(["sync", "--github", REPO, "--since", "2025-11-01"]) == 0
    github.repository.commits.clear()
    github.repository.commit(files(0, 2), day(1))
    head = github.repository.commit(files(3, 5), day(2))
    capsys.readouterr()
    # When the next sync runs, it fails with one line naming the way out
    assert main(["sync", "--github", REPO]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not in the history of" in err
    assert f"meta-mage sync --github {REPO} --reset --since YYYY-MM-DD" in err
    # And --reset needs the date the new first sync starts from
    assert main(["sync", "--github", REPO, "--reset"]) == 2
    assert "--reset with --github needs --since" in capsys.readouterr().err
    # When it is reset from a date, every file of the new history is read again, the stored ones unchanged
    assert main(["sync", "--github", REPO, "--reset", "--since", "2025-11-01"]) == 0
    out = capsys.readouterr().out
    assert "2 commits, 4 files listed, 2 ingested, 2 unchanged" in out and "--reset: the cursor" in out
    assert meta.sync_cursor(REPO, "main") == head.sha
    assert sum(tournaments_per_format(meta).values()) == 5
    assert main(["sync", "--github", REPO]) == 0  # and the next run goes on from there
    assert "0 files listed" in capsys.readouterr().out


def test_git_dir_force_push_fails_naming_the_reset_which_works(
    clone: Path, meta: MetaRepository, capsys: pytest.CaptureFixture[str], fresh_settings: None
) -> None:
    commit(clone, files(0, 2), day(1))
    commit(clone, files(2, 4), day(2))
    assert main(["sync", "--git-dir", str(clone)]) == 0
    # When the last commit is replaced and pruned (a force-push, fetched with --prune and gc)
    git(clone, "reset", "-q", "--hard", "HEAD~1")
    head = commit(clone, files(4, 6), day(3))
    git(clone, "reflog", "expire", "--expire=now", "--all")
    git(clone, "gc", "-q", "--prune=now")
    capsys.readouterr()
    assert main(["sync", "--git-dir", str(clone)]) == 1
    err = capsys.readouterr().err
    assert "'git pull' first" in err and f"meta-mage sync --git-dir {clone} --reset" in err
    # --reset without --since: every file of the clone, those stored already unchanged
    assert main(["sync", "--git-dir", str(clone), "--reset"]) == 0
    assert "4 files listed, 2 ingested, 2 unchanged" in capsys.readouterr().out
    assert meta.sync_cursor(REPO, "main") == head
    assert sum(tournaments_per_format(meta).values()) == 6


def test_a_bad_file_can_be_retried_by_name(
    github: FakeGitHub,
    meta: MetaRepository,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fresh_settings: None,
) -> None:
    # Given a file larger than the configured cap among smaller ones
    github_env(github, monkeypatch)
    chosen = files(0, 4)
    largest = max(chosen, key=lambda path: len(chosen[path]))
    cap = max(len(data) for path, data in chosen.items() if path != largest)
    head = github.repository.commit(chosen, day(1))
    monkeypatch.setenv("META_MAGE_SYNC_MAX_FILE_BYTES", str(cap))
    assert main(["sync", "--github", REPO, "--since", "2025-11-01"]) == 1
    out = capsys.readouterr().out
    # Then it is reported with its reason and the command that reads it again, and the cursor moved past it
    assert f"FAILED {largest}: larger than {cap:,} bytes\n" in out
    assert f"meta-mage sync --github {REPO} --retry {largest}" in out
    assert meta.sync_cursor(REPO, "main") == head.sha
    # When the cap is raised and the file retried by name (with a refused path beside it)
    monkeypatch.delenv("META_MAGE_SYNC_MAX_FILE_BYTES")
    get_settings.cache_clear()
    assert main(["sync", "--github", REPO, "--retry", largest, "Tournaments/MTGO/../../x.json"]) == 1
    out = capsys.readouterr().out
    # Then it is stored, the refused path reported, and the cursor untouched
    assert "retry fbettega/MTG_decklistcache main: 0 commits, 2 files listed, 1 ingested" in out
    assert "FAILED Tournaments/MTGO/../../x.json: refused: its path has an empty, '.' or '..' segment" in out
    assert f"cursor {head.sha[:12]} (untouched)" in out
    assert meta.sync_cursor(REPO, "main") == head.sha
    assert sum(tournaments_per_format(meta).values()) == 4


def test_time_limit_bounds_a_cli_sync(
    github: FakeGitHub,
    meta: MetaRepository,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fresh_settings: None,
) -> None:
    github_env(github, monkeypatch)
    head = github.repository.commit(files(0, 3), day(1))
    slow = next(iter(files(1, 2)))

    def dripping(request: Any) -> Response:
        def chunks() -> Iterator[bytes]:
            for _ in range(40):
                time.sleep(0.25)
                yield b" "

        return Response(chunks(), 200, direct_passthrough=True)

    github.overrides.append(Override(f"/{head.sha}/{slow}", dripping))
    started = time.monotonic()
    assert main(["sync", "--github", REPO, "--since", "2025-11-01", "--time-limit", "1"]) == 1
    assert time.monotonic() - started < 5
    out = capsys.readouterr().out
    assert f"FAILED {slow}: not read within" in out and "(retried next run)" in out
    assert meta.sync_cursor(REPO, "main") is None
    with pytest.raises(SystemExit) as raised:
        main(["sync", "--github", REPO, "--time-limit", "0"])
    assert raised.value.code == 2 and "expected a number of seconds" in capsys.readouterr().err
