"""The stream events nodes send as they work: ``thinking`` lines and a composed answer's ``content``."""

from __future__ import annotations

import re

from langgraph.config import get_stream_writer


def _paragraphs(text: str) -> list[str]:
    """``text`` cut after each blank line: a paragraph, a list or a whole table per piece."""
    return [piece for piece in re.split(r"(?<=\n\n)(?=\S)", text) if piece] or [text]


def say(text: str) -> None:
    """A composed answer (offline, or a guard's question) as ``content`` events, a paragraph (or table) each;
    an LLM's answer streams as the model writes it."""
    writer = get_stream_writer()
    for piece in _paragraphs(text):
        writer({"event": "content", "data": {"text": piece}})


def thinking(text: str) -> None:
    """A ``thinking`` event for the user when called inside the graph's run (outside one, nothing)."""
    try:
        writer = get_stream_writer()
    except RuntimeError:  # outside a graph run (a bare lookup): there is no one to tell
        return
    writer({"event": "thinking", "data": {"content": text}})
