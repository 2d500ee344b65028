"""The meta-mage command against moto (same code path as a real table)."""

import json
import os
import re
import signal
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import httpx
import pytest

from meta_mage.cli import main
from meta_mage.config import Settings
from meta_mage.local.chat_client import sse_events
from tests.conftest import demo_members, write_members
from tests.servers import free_port, wait_until_answers


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
    monkeypatch.setattr("meta_mage.cli.shared.get_settings", lambda: names)
    assert main(["ask", "What are the top decks?"]) == 0
    first = capsys.readouterr().out
    assert "offline mode" in first and "Which format should I look at?" in first
    assert "(the last 30 days, change it with --days; conversation " in first  # the one default window, said
    conversation = first.rsplit("--conversation ", 1)[1].strip(" )\n")
    assert main(["ask", "Modern", "--conversation", conversation]) == 0
    second = capsys.readouterr().out
    assert "→ get_format_meta_rankings" in second and "✓ get_format_meta_rankings" in second and "| 1 |" in second
    assert "2025-10-19 to 2025-11-17" in second
    assert main(["ask", "hi", "--conversation", "not-an-id"]) == 2
    assert "conversation_id must be" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:  # refused where the command line is read, not dropped
        main(["ask", "top decks in Modern", "--days", "0"])
    assert refused.value.code == 2 and "expected a number of days from 1 to 365" in capsys.readouterr().err


def test_aws_errors_are_one_line_naming_the_fix(
    dynamodb: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given settings naming a table that does not exist
    monkeypatch.setattr("meta_mage.cli.shared.get_settings", lambda: Settings(meta_table="nope"))
    # When a tool reads it, Then the user gets one line with the fix, not a traceback
    assert main(["tool", "list_formats"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: AWS request failed: ResourceNotFoundException") and "tables create" in err
    assert "Traceback" not in err


def test_serve_without_demo_data_still_creates_the_tables(tmp_path: Path) -> None:
    # Given a fresh embedded DynamoDB and --no-seed
    port = free_port()
    env = {**os.environ, "META_MAGE_MODEL": "offline", "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "meta_mage.cli", "serve", "--no-seed", "--port", str(port)]
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_until_answers(process, f"http://127.0.0.1:{port}/healthz", log)
        # Then the endpoints answer from empty tables instead of failing
        assert httpx.get(f"http://127.0.0.1:{port}/formats").json() == {"formats": [], "details": []}
        # and only the page's own origin may call them from a browser: another site cannot drive the local coach
        own = f"http://127.0.0.1:{port}"
        for origin, allowed in ((own, own), ("https://evil.example", None)):
            headers = httpx.get(f"{own}/formats", headers={"origin": origin}).headers
            assert headers.get("access-control-allow-origin") == allowed, origin
        chat = httpx.post(f"http://127.0.0.1:{port}/chat", json={"message": "top decks in Modern?"}, timeout=30)
        assert chat.status_code == 200 and "event: done" in chat.text
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def _stop(process: subprocess.Popen[bytes] | None) -> int | None:
    if process is None:
        return None
    process.send_signal(signal.SIGINT)
    try:
        return process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        return None


def test_serve_starts_from_the_snapshot_and_answers_the_first_question(tmp_path: Path) -> None:
    # Given a fresh start of `meta-mage serve` (embedded DynamoDB, bundled demo data)
    port = free_port()
    env = {**os.environ, "META_MAGE_MODEL": "offline", "PYTHONUNBUFFERED": "1"}
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "meta_mage.cli", "serve", "--port", str(port)], env=env, stdout=out, stderr=out
        )
    try:
        wait_until_answers(server, f"http://127.0.0.1:{port}/healthz", log)
        # Then the data came from the snapshot, not from an ingest, counted as a user counts (one draft)
        loaded = r"Demo data loaded from its snapshot in [\d.]+s: [\d,]+ cards, [\d,]+ tournaments, 1 draft \([\d,]+ "
        assert re.search(loaded, log.read_text()), log.read_text()
        # and the page's first question (Days 14 in its context) gets the real rankings
        chat = httpx.post(
            f"http://127.0.0.1:{port}/chat",
            json={"message": "What are the top decks in Modern?", "context": {"format": "Modern", "days": 14}},
            timeout=30,
        )
        events = sse_events(chat.text)
        answer = "".join(data["text"] for kind, data in events if kind == "content")
        assert events[-1][0] == "done" and "| 1 | Jeskai Blink |" in answer and "Boros Energy" in answer, answer
    finally:
        _stop(server)


def test_serve_against_the_embedded_dynamodb_run_apart(tmp_path: Path) -> None:
    """``meta-mage dynamodb`` runs the embedded DynamoDB alone; a server in another process loads the demo
    data into it through the DynamoDB API, stores its turns there (each turn's checkpoint is a transaction,
    which stock moto is not safe for), and a second server start finds the data already stored."""
    dynamodb_port, port = free_port(), free_port()
    env = {**os.environ, "META_MAGE_MODEL": "offline", "PYTHONUNBUFFERED": "1"}
    log = tmp_path / "processes.log"
    with log.open("wb") as out:
        dynamodb = subprocess.Popen(
            [sys.executable, "-m", "meta_mage.cli", "dynamodb", "--port", str(dynamodb_port)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server: subprocess.Popen[bytes] | None = None
    endpoint = f"http://127.0.0.1:{dynamodb_port}"
    command = [sys.executable, "-m", "meta_mage.cli", "serve", "--port", str(port), "--dynamodb-endpoint", endpoint]

    def start() -> subprocess.Popen[bytes]:
        with log.open("ab") as out:
            started = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
        wait_until_answers(started, f"http://127.0.0.1:{port}/healthz", log)
        return started

    try:
        wait_until_answers(dynamodb, f"http://127.0.0.1:{dynamodb_port}/moto-api/", log)
        server = start()
        assert "Demo data loaded from its snapshot" in log.read_text()
        chat = httpx.post(f"http://127.0.0.1:{port}/chat", json={"message": "top decks in Modern?"}, timeout=30)
        assert chat.status_code == 200 and "event: done" in chat.text, chat.text
        cid = json.loads(chat.text.split("data: ", 1)[1].split("\n", 1)[0])["conversation_id"]
        stored = httpx.get(f"http://127.0.0.1:{port}/conversations/{cid}").json()
        assert [m["role"] for m in stored["messages"]] == ["user", "assistant"]
        # When the server starts again over the same DynamoDB, Then it does not load the data again
        _stop(server)
        server = start()
        assert "Demo data already stored (the same files and rules); --reseed loads it again" in log.read_text()
        assert httpx.get(f"http://127.0.0.1:{port}/conversations/{cid}").status_code == 200
    finally:
        _stop(server)
        assert _stop(dynamodb) == 0


def test_serve_on_a_busy_port_stops_before_loading_anything() -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        # a process of its own, to see what it imported: nothing of the server, no DynamoDB
        probe = (
            "import sys; from meta_mage.cli import main; code = main(['serve', '--port', sys.argv[1]]); "
            "print(code, [m for m in ('uvicorn', 'moto', 'meta_mage.api.factory') if m in sys.modules])"
        )
        done = subprocess.run([sys.executable, "-c", probe, str(port)], capture_output=True, text=True, timeout=60)
    assert done.stdout == "1 []\n"
    assert done.stderr == f"Port {port} is in use: pass --port N (another server listens on 127.0.0.1:{port})\n"


def test_the_demo_hint_names_a_command_that_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    from meta_mage.cli.serve import this_command

    # Given the virtualenv's bin not on PATH (scripts/demo.sh runs .venv/bin/meta-mage), the hint names its script
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    command = this_command()
    assert command == str(Path(sys.executable).parent / "meta-mage") and os.access(command, os.X_OK)
    # and on PATH, the plain name
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:/usr/bin:/bin")
    assert this_command() == "meta-mage"
