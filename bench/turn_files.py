"""Benchmark: how many of the project's source files one offline chat turn runs code in.

Loads the demo data into the embedded DynamoDB (in this process), then runs a few representative offline
turns (the format's rankings, a matchup question, a pasted deck and its confirmation, a cube pool question),
each in a new conversation after one unmeasured warm-up turn, with a profiler hook that records the
``src/meta_mage`` files whose functions are called. Prints a table: turn, files, files under ``agent/``;
then the files of the largest turn. Target (issue 22): at most 12 files per turn.

Run: .venv/bin/python bench/turn_files.py
"""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from rich.console import Console
from rich.table import Table

import meta_mage
from meta_mage.config import Settings
from meta_mage.local.embedded import embedded_dynamodb
from meta_mage.local.seed import seed_demo
from meta_mage.storage.dynamo import dynamodb_resource
from meta_mage.wiring import Wiring

SOURCE = Path(meta_mage.__file__).resolve().parent
TARGET = 12
EMBEDDED_SERVER = "local/embedded.py"  # the local DynamoDB runs in this process: its frames are not the turn's
DECK = """4 Guide of Souls
4 Ocelot Pride
4 Ajani, Nacatl Pariah
4 Phlage, Titan of Fire's Fury
4 Galvanic Discharge
4 Goblin Bombardment
3 Ragavan, Nimble Pilferer
4 Seasoned Pyromancer
2 Static Prison
4 Lightning Bolt
4 Arid Mesa
4 Sacred Foundry
4 Inspiring Vantage
4 Arena of Glory
3 Mountain
4 Plains

Sideboard
3 Wear // Tear
3 Blood Moon
3 Surgical Extraction
3 Celestial Purge
3 High Noon"""
TURNS: list[tuple[str, list[str]]] = [
    ("rankings", ["What are the top decks in Modern over the last 30 days?"]),
    ("matchup", ["How does Boros Energy do against Jeskai Blink in Modern over the last 30 days?"]),
    ("deck and confirmation", [f"What are my worst matchups in Modern over the last 30 days?\n{DECK}", "yes"]),
    ("cube pool", ["What green creatures were in the Tarkir draft?"]),
]


def files_of(conversations: Any, messages: list[str]) -> set[str]:
    """The project files with a function called while ``messages`` are answered (one conversation)."""
    seen: set[str] = set()

    def hook(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            name = frame.f_code.co_filename
            if name.startswith(str(SOURCE)) and not name.endswith(EMBEDDED_SERVER):
                seen.add(str(Path(name).relative_to(SOURCE)))

    async def run() -> None:
        conversation_id = None
        for message in messages:
            async for event in conversations.turn(message, conversation_id):
                if event.event == "metadata":
                    conversation_id = event.data["conversation_id"]

    # every thread: tools run in worker threads
    set_all = getattr(threading, "setprofile_all_threads", None)
    if set_all is not None:
        set_all(hook)
    threading.setprofile(hook)
    sys.setprofile(hook)
    try:
        asyncio.run(run())
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
        if set_all is not None:
            set_all(None)
    return seen


def main() -> int:
    settings = Settings(model="offline")
    with embedded_dynamodb():
        db = dynamodb_resource(settings)
        seed_demo(settings, db)
        conversations = Wiring(settings, db).coach()
        files_of(conversations, ["What are the top decks in Pioneer over the last 7 days?"])  # warm-up
        results = [(name, files_of(conversations, messages)) for name, messages in TURNS]
    table = Table(title=f"Project files one offline turn runs code in (target {TARGET})")
    for column in ("turn", "files", "under agent/"):
        table.add_column(column, justify="right" if column != "turn" else "left")
    for name, files in results:
        table.add_row(name, str(len(files)), str(sum(f.startswith("agent/") for f in files)))
    console = Console(width=110)
    console.print(table)
    name, largest = max(results, key=lambda result: len(result[1]))
    console.print(f"files of the largest turn ({name}): " + ", ".join(sorted(largest)))
    return 0 if all(len(files) <= TARGET for _, files in results) else 1


if __name__ == "__main__":
    sys.exit(main())
