"""The command line's rough edges: a bad flag or value is named before anything starts, a closed pipe is no
error, and every argument says what it is."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from meta_mage import cli
from meta_mage.cli import coach, serve


def refused(argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> str:
    """The usage error ``argv`` gets; no command runs (none may boot a database for a bad command line)."""
    for module, name in ((coach, "cmd_ask"), (serve, "cmd_chat"), (serve, "cmd_demo"), (serve, "cmd_serve")):
        monkeypatch.setattr(module, name, lambda args: pytest.fail("the command ran"))
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    assert exit_.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--bogus"], "unrecognized arguments: --bogus"),
        ([], "a command is required"),
        (["ask", "--days", "-5", "top decks?"], "argument --days: expected a number of days from 1 to 365, got '-5'"),
        (["ask", "--days", "999", "top decks?"], "expected a number of days from 1 to 365, got '999'"),
        (["ask", "--format", "Commander", "top decks?"], "argument --format: expected one of"),
        (["chat", "--days", "0"], "expected a number of days from 1 to 365, got '0'"),
        (["demo", "--days", "x"], "expected a number of days from 1 to 365, got 'x'"),
        (["ask", "--bogus", "top decks?"], "unrecognized arguments: --bogus"),
    ],
)
def test_a_bad_command_line_is_named_before_anything_starts(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert said in refused(argv, capsys, monkeypatch)


def test_every_argument_says_what_it_is() -> None:
    parsers = [cli.build_parser()]
    unexplained = []
    while parsers:
        parser = parsers.pop()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                parsers += list(action.choices.values())
            elif not action.help and not isinstance(action, argparse._HelpAction):
                unexplained.append(f"{parser.prog} {'/'.join(action.option_strings) or action.dest}")
    assert unexplained == []


def test_a_reader_that_stops_early_is_no_error() -> None:
    # Given a command whose output goes to a reader that has gone ("meta-mage ask … | head -3")
    script = (
        "import sys\nfrom meta_mage import cli\nfrom meta_mage.cli import coach\n"
        "def closed(args):\n    raise BrokenPipeError(32, 'Broken pipe')\n"
        "coach.cmd_tool = closed\nsys.exit(cli.main(['tool', '--list']))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    # Then it ends quietly: no "connection lost", no traceback
    assert (done.returncode, done.stderr) == (0, "")


def test_an_ingest_with_no_dynamodb_says_so_once(tmp_path: Path) -> None:
    # Given no AWS account and no local DynamoDB configured
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "AWS_EC2_METADATA_DISABLED": "true"}
    event = tmp_path / "event.json"
    event.write_text("{}")

    done = subprocess.run(
        [sys.executable, "-m", "meta_mage.cli", "ingest", "tournaments", str(event)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )

    # Then one line says what is wrong and how to fix it, before any file is read
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "ingest: DynamoDB at AWS" in done.stderr
    assert "AWS_ENDPOINT_URL_DYNAMODB" in done.stderr
