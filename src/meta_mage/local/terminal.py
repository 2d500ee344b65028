"""Render the agent's events in a terminal: the answer as it streams, tool calls as they happen. On a
real terminal with ``rich`` installed (the ``local`` extra) the answer is drawn as markdown (tables,
bold) while it streams; piped output stays plain text."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any, TextIO, TypedDict

from meta_mage.models.json import JsonObject


class TurnSummary(TypedDict, total=False):
    """What a drawn turn leaves: the conversation's id, its final ``state`` event, or its ``error`` event."""

    conversation_id: str
    state: JsonObject
    error: JsonObject


def can_draw(out: TextIO | None = None) -> bool:
    """Whether answers can be drawn as markdown: ``out`` is a terminal and ``rich`` is installed."""
    if not (out or sys.stdout).isatty():
        return False
    try:
        import rich  # noqa: F401
    except ImportError:
        return False
    return True


@contextmanager
def waiting(text: str, plain: bool = True) -> Iterator[None]:
    """Say ``text`` while the block runs: a spinner on a terminal (gone when the block ends), else a line
    of its own (nothing unless ``plain``)."""
    if can_draw():
        from rich.console import Console

        with Console().status(text, spinner="dots"):
            yield
        return
    if plain:
        print(text, flush=True)
    yield


def _step(kind: str, data: JsonObject) -> str | None:
    """The one-line text of a thinking, tool_call or grounding event."""
    if kind == "thinking":
        return f"  … {data['content']}"
    if kind == "tool_call":
        if data["status"] == "calling":
            return f"  → {data['tool']} {json.dumps(data.get('arguments') or {}, ensure_ascii=False)}"
        mark = "✓" if data["status"] == "complete" else "✗"
        return f"  {mark} {data['tool']}: {data.get('summary', '')}"
    if kind == "grounding" and data.get("unmatched"):  # an LLM's figures no tool result holds
        figures = ", ".join(f"{u['figure']} ({u['kind']})" for u in data["unmatched"])
        return f"  ⚠ Not found in this turn's data, so check before relying on them: {figures}."
    return None


async def draw(events: AsyncIterator[Any]) -> TurnSummary:
    """Like ``render``, with the answer drawn as markdown by ``rich`` (redrawn as it streams), and a
    spinner until it starts."""
    from rich.console import Console
    from rich.live import Live
    from rich.markdown import Markdown
    from rich.spinner import Spinner
    from rich.text import Text

    console = Console()
    summary: TurnSummary = {}
    text = ""
    thinking = Spinner("dots", Text("Thinking…", style="dim"))
    with Live(thinking, console=console, refresh_per_second=8, vertical_overflow="visible") as live:
        try:
            async for event in events:
                kind, data = event.event, event.data
                if kind == "metadata":
                    summary["conversation_id"] = data["conversation_id"]
                elif (line := _step(kind, data)) is not None:
                    console.print(line, style="dim", markup=False, highlight=False)
                elif kind == "content":
                    text += data["text"]
                    live.update(Markdown(text))
                elif kind == "state":
                    summary["state"] = data
                elif kind == "error":
                    summary["error"] = data
                    console.print(f"error: {data.get('message', data)}", style="red", markup=False)
        finally:
            live.transient = not text  # no answer (an error, a lost connection): no spinner left behind
    return summary


async def render(events: AsyncIterator[Any], out: TextIO | None = None) -> TurnSummary:
    """Print each event (to ``out``, else the ``sys.stdout`` of the moment); return a summary
    (conversation id, final state, error if any)."""
    out = out or sys.stdout  # not a default argument: that would keep the stdout of import time
    summary: TurnSummary = {}
    for_line_start = True
    async for event in events:
        kind, data = event.event, event.data
        if kind == "metadata":
            summary["conversation_id"] = data["conversation_id"]
        elif (line := _step(kind, data)) is not None:
            out.write(("" if for_line_start else "\n") + line + "\n")
            for_line_start = True
        elif kind == "content":
            out.write(data["text"])
            for_line_start = data["text"].endswith("\n")
        elif kind == "state":
            summary["state"] = data
        elif kind == "error":
            summary["error"] = data
            out.write(f"error: {data.get('message', data)}\n")
        out.flush()
    if not for_line_start:
        out.write("\n")
    return summary
