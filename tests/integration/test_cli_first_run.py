"""A newcomer's first commands: ``ask`` with no DynamoDB configured answers from the embedded one, a
configured DynamoDB that cannot serve gets one line saying what to do, and ``demo`` draws its answers on a
terminal and stops on Ctrl-C in one line."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from meta_mage.cli import main
from meta_mage.cli.coach import NO_DYNAMODB
from meta_mage.config import Settings
from tests.api.test_terminal_client import Terminal
from tests.servers import free_port

COMMAND = [sys.executable, "-m", "meta_mage.cli"]


def nothing_configured(home: Path, **variables: str) -> dict[str, str]:
    """The environment of a machine without AWS: no AWS variable, no ~/.aws, no instance metadata."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("AWS_")}
    nowhere = str(home / "no-such-file")
    env.update(HOME=str(home), AWS_CONFIG_FILE=nowhere, AWS_SHARED_CREDENTIALS_FILE=nowhere)
    env.update(AWS_EC2_METADATA_DISABLED="true", META_MAGE_MODEL="offline", PYTHONUNBUFFERED="1", **variables)
    return env


def test_ask_with_nothing_configured_answers_from_the_embedded_demo_data(tmp_path: Path) -> None:
    done = subprocess.run(
        [*COMMAND, "ask", "top decks in Modern"],
        env=nothing_configured(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.splitlines()[0] == NO_DYNAMODB  # said once, first
    assert done.stdout.count("AWS_ENDPOINT_URL_DYNAMODB") == 1
    assert "| 1 | Jeskai Blink |" in done.stdout  # the demo's rankings, over the default window
    assert "How many days" not in done.stdout
    assert "(the demo data's last 30 days, change it with --days;" in done.stdout  # the one default, said


def test_ask_against_a_dynamodb_that_is_not_running_says_what_to_do(tmp_path: Path) -> None:
    # Given an endpoint set (no credentials: a local DynamoDB takes any) where nothing listens
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    done = subprocess.run(
        [*COMMAND, "ask", "top decks in Modern"],
        env=nothing_configured(tmp_path, AWS_ENDPOINT_URL_DYNAMODB=endpoint),
        capture_output=True,
        text=True,
        timeout=60,
    )
    # Then one line names the endpoint, why, and both ways on
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"ask: DynamoDB at {endpoint} is not answering (connection refused): start it (e.g. 'meta-mage dynamodb "
        f"--port {port}'), or unset AWS_ENDPOINT_URL_DYNAMODB to answer from the embedded one with the demo data"
    ]


def test_ask_names_missing_tables_and_notes_empty_ones(
    dynamodb: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a configured DynamoDB without the meta table
    monkeypatch.setattr("meta_mage.cli.shared.get_settings", lambda: Settings(meta_table="nope"))
    assert main(["ask", "top decks in Modern over the last 14 days"]) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "ask: DynamoDB at AWS (us-east-1) lacks the table nope: 'meta-mage seed' creates the tables and loads the "
        "demo data ('meta-mage tables create' creates them empty)"
    ]
    # Given every table, all empty: a note, then the turn
    monkeypatch.setattr("meta_mage.cli.shared.get_settings", Settings)
    assert main(["ask", "top decks in Modern over the last 14 days"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == (
        "(the tables at AWS (us-east-1) hold no data: 'meta-mage seed' loads the demo data, 'meta-mage ingest' yours)"
    )
    assert err == ""


def test_ctrl_c_while_the_demo_loads_stops_in_one_line(tmp_path: Path) -> None:
    demo = subprocess.Popen(
        [*COMMAND, "demo"],
        env=nothing_configured(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert demo.stdout is not None
        seen = []
        for line in demo.stdout:  # piped: each step is a line of its own
            seen.append(line)
            if line.startswith("Loading the demo data"):
                break
        assert seen[0] == "Starting the embedded DynamoDB…\n", seen
        demo.send_signal(signal.SIGINT)
        _, err = demo.communicate(timeout=30)
    finally:
        demo.kill()
    # a shell shows both as status 130: the process returned it, or (rarely, when the interrupt lands while the
    # interpreter is already finishing) died of the SIGINT itself, after the one line
    assert demo.returncode in (130, -signal.SIGINT) and err.strip() == "Stopped.", err


def test_the_demo_draws_its_answers_on_a_terminal() -> None:
    term = Terminal(*COMMAND, "demo")
    try:
        term.read_until("Loading the demo data…")  # a spinner while the data loads
        screen = term.read_until("You: How does")  # the first answer is out
        first = screen.split("You: What are the top decks in Modern?")[1]
        assert "|---|" not in first and "**Top decks" not in first  # markdown drawn, not printed
        assert re.search(r"Archetype +Meta share.*\n *─{20,}", first) and "Jeskai Blink" in first
        assert re.search(r"loaded from its snapshot in [\d.]+s: [\d,]+ cards, [\d,]+ tournaments, 1 draft \(", screen)
        term.process.send_signal(signal.SIGINT)  # Ctrl-C, during the next answers
        screen = term.read_until("Stopped.", timeout=30)
        assert term.process.wait(20) == 130 and "Traceback" not in screen
    finally:
        term.close()
