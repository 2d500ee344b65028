"""``meta-mage chat`` under a pseudo-terminal: a pasted decklist is one message (its last line too when it
has no newline), answers are drawn as markdown (a table with box lines, not pipes), and a server that goes
away costs one line, not the session."""

from __future__ import annotations

import io
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from meta_mage.api.factory import build_app
from meta_mage.storage.tables import create_tables
from tests.agent.conftest import modern_deck
from tests.browser.conftest import server  # noqa: F401  (the fixture: the app on a free port)
from tests.conftest import prefixed_settings
from tests.servers import free_port, running

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal:
    """A process on a pseudo-terminal, read until some text shows up."""

    def __init__(self, *command: str) -> None:
        self.master, slave = pty.openpty()
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
        self.process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.seen = ""

    def read_until(self, text: str, timeout: float = 60) -> str:
        deadline = time.time() + timeout
        while text not in ANSI.sub("", self.seen):
            if time.time() > deadline:
                raise AssertionError(f"{text!r} did not show; the screen so far:\n{ANSI.sub('', self.seen)[-2000:]}")
            if select.select([self.master], [], [], 0.2)[0]:
                try:
                    self.seen += os.read(self.master, 65536).decode("utf-8", "replace")
                except OSError:
                    break
        return ANSI.sub("", self.seen)

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(10)
        os.close(self.master)


def chat(url: str, *options: str) -> Terminal:
    return Terminal(sys.executable, "-m", "meta_mage.cli", "chat", "--url", url, *options)


def test_a_pasted_decklist_is_one_message_and_tables_are_drawn(server: str, tmp_path: Path) -> None:  # noqa: F811
    deck, _ = modern_deck("Boros Energy")
    command = ["chat", "--url", server, "--format", "Modern", "--days", "30"]
    term = Terminal(sys.executable, "-m", "meta_mage.cli", *command)
    try:
        term.read_until("you> ")
        term.type(deck + "\n")  # a paste: every line at once
        screen = term.read_until("Is that right?")
        term.read_until("you> ", timeout=60)
        assert screen.count("Is that right?") == 1 and "I can help in three ways" not in screen
        term.type("What are the top decks in Modern over the last 30 days?\n")
        screen = term.read_until("Offline mode")
        answer = screen.split("Is that right?")[-1]
        assert "|---|" not in answer and "**Top decks" not in answer  # markdown drawn, not printed
        assert re.search(r"Archetype +Meta share.*\n *─{20,}", answer) and "Jeskai Blink" in answer  # a drawn table
        (tmp_path / "terminal.txt").write_text(screen)
    finally:
        term.close()


def test_a_paste_whose_last_line_has_no_newline_arrives_whole(server: str) -> None:  # noqa: F811
    # Given a decklist pasted without a newline after its last card (the terminal holds that line until Enter)
    deck, source = modern_deck("Boros Energy")
    main = sum(card["Count"] for card in source["Mainboard"])
    side = sum(card["Count"] for card in source["Sideboard"])
    term = chat(server, "--format", "Modern", "--days", "30")
    try:
        term.read_until("you> ")
        term.type(deck)
        # Then the coach got every card, the last line's included, in one message
        screen = term.read_until("Is that right?")
        assert f"get_enriched_deck: {main} mainboard and {side} sideboard cards" in screen, screen[-1500:]
        assert screen.count("Is that right?") == 1
        # and the next message is a message of its own, not glued to that last line
        term.read_until("you> ", timeout=60)
        term.type("What are the top decks in Modern over the last 30 days?\n")
        assert "Jeskai Blink" in term.read_until("Offline mode").split("Is that right?")[-1]
    finally:
        term.close()


def asked_for_the_format(url: str) -> Terminal:
    """``meta-mage chat`` against ``url``, having asked for the top decks and been asked the format (the window
    is the one default, sent with each message and said when the session starts)."""
    term = chat(url)
    try:
        term.read_until("(the last 30 days: start with --days to change it)")
        term.read_until("you> ")
        term.type("What are the top decks?\n")
        term.read_until("Which format should I look at?")
        term.read_until("you> ", timeout=60)
    except BaseException:
        term.close()
        raise
    return term


def test_chat_survives_the_server_going_away(modern_world: dict[str, Any]) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"

    def app() -> Any:
        return build_app(modern_world["settings"], modern_world["db"], serve_page=True)

    with running(app(), port):
        term = asked_for_the_format(url)
    try:
        # When the server has gone away, Then the message costs one line saying so, and the session goes on
        term.type("Modern\n")
        line = f"The server at {url} is not answering (connection refused); your message was not sent."
        screen = term.read_until(line)
        assert "Traceback" not in screen and term.process.poll() is None
        term.read_until("you> ", timeout=60)
        # and once it is back on the same port, the next message is answered in the same conversation
        with running(app(), port):
            term.type("Modern\n")
            answer = term.read_until("Offline mode").split(line)[-1]
        assert "Top decks in Modern" in answer and "Jeskai Blink" in answer, answer  # the question was remembered
        assert "Traceback" not in answer
    finally:
        term.close()


def test_chat_without_a_server_says_so_in_one_line() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    done = subprocess.run(
        [sys.executable, "-m", "meta_mage.cli", "chat", "--url", url],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"The server at {url} is not answering (connection refused): start it with 'meta-mage serve', "
        "or give its address with --url."
    ]


def test_chat_starts_a_new_conversation_when_the_server_forgot_it(modern_world: dict[str, Any]) -> None:
    """``meta-mage serve`` started again on its embedded DynamoDB has lost every conversation."""
    port = free_port()
    fresh = prefixed_settings("forgetful")
    create_tables(modern_world["db"], fresh)
    try:
        with running(build_app(modern_world["settings"], modern_world["db"]), port):
            term = asked_for_the_format(f"http://127.0.0.1:{port}")
        try:
            # When the server is back on tables that do not hold the conversation
            with running(build_app(fresh, modern_world["db"]), port):
                term.type("hello\n")
                screen = term.read_until("you> hello")
                screen = term.read_until("Which do you mean?").split("you> hello")[-1]
            # Then the message goes to a new conversation, said in one line, and gets its answer
            assert "The server no longer knows this conversation" in screen and "error:" not in screen, screen
        finally:
            term.close()
    finally:
        for name in fresh.table_names().values():
            modern_world["db"].Table(name).delete()


async def test_figures_the_data_does_not_hold_are_marked_in_the_terminal() -> None:
    from meta_mage.agent.conversation import AgentEvent
    from meta_mage.local.terminal import render

    async def events() -> Any:
        yield AgentEvent("content", {"text": "Boros Energy is 61-89-13."})
        yield AgentEvent("grounding", {"unmatched": [{"kind": "record", "figure": "61-89-13"}]})
        yield AgentEvent("grounding", {"unmatched": []})
        yield AgentEvent("content", {"text": "\n\n| a | b |"})

    out = io.StringIO()
    await render(events(), out)
    assert out.getvalue() == (
        "Boros Energy is 61-89-13.\n"
        "  ⚠ Not found in this turn's data, so check before relying on them: 61-89-13 (record).\n"
        "\n\n| a | b |\n"
    )
