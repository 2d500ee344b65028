"""``meta-mage chat`` under a pseudo-terminal: a pasted decklist is one message, and answers are drawn
as markdown (a table with box lines, not pipes)."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

from tests.agent.conftest import modern_deck
from tests.browser.conftest import server  # noqa: F401  (the fixture: the app on a free port)

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


def test_a_pasted_decklist_is_one_message_and_tables_are_drawn(server: str, tmp_path: Path) -> None:  # noqa: F811
    deck, _ = modern_deck("Boros Energy")
    command = ["chat", "--url", server, "--format", "Modern", "--days", "30"]
    term = Terminal(sys.executable, "-m", "meta_mage.cli", *command)
    try:
        term.read_until("you> ")
        term.type(deck + "\n")  # a paste: every line at once
        screen = term.read_until("Is that right?")
        term.read_until("you> ", timeout=10)
        assert screen.count("Is that right?") == 1 and "I can help in three ways" not in screen
        term.type("What are the top decks in Modern over the last 30 days?\n")
        screen = term.read_until("Offline mode")
        answer = screen.split("Is that right?")[-1]
        assert "|---|" not in answer and "**Top decks" not in answer  # markdown drawn, not printed
        assert re.search(r"Archetype +Meta share.*\n *─{20,}", answer) and "Jeskai Blink" in answer  # a drawn table
        (tmp_path / "terminal.txt").write_text(screen)
    finally:
        term.close()
