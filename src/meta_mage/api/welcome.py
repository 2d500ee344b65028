"""The ``/welcome`` payload: tool catalog, formats with data, workflows with examples, and a
welcome message (LLM-written when a model is given, templated otherwise). A model writes the message once per
model, day and catalog, kept in memory and in the LocksTable: visits cost no model request.

Imports no LLM library and no agent code, so the small WelcomeFunction can use it; a model is passed in, if any.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from meta_mage.api.bodies import ToolDetail, WelcomeBody, WorkflowCard
from meta_mage.models.json import JsonObject
from meta_mage.tools.catalog import workflow_tools
from meta_mage.tools.workflows import WORKFLOWS

logger = logging.getLogger(__name__)

WELCOME_PROMPT = """Write a short, friendly welcome (under 120 words) for a player opening MTG Meta Mage, a Magic: The
Gathering coach. Mention what it can do, using the workflows and example questions given, and the formats
with data. Plain markdown, no headings.

Workflows: {workflows}
Formats: {formats}"""


def workflows_with_tools(catalog: list[JsonObject]) -> list[WorkflowCard]:
    """The workflows, each with the name and description of its tools from ``catalog`` (the tools their
    records in ``tools.catalog`` let it call: get_deck_matchup_stats is listed under both)."""
    return [
        WorkflowCard(
            name=workflow.name,
            description=workflow.description,
            example_queries=list(workflow.example_queries),
            tool_details=[
                ToolDetail(name=tool["name"], description=tool["description"])
                for tool in catalog
                if tool["name"] in workflow_tools(workflow.name)
            ],
        )
        for workflow in WORKFLOWS
    ]


def templated_message(formats: list[str], tool_count: int, offline: bool) -> str:
    text = (
        "Welcome to MTG Meta Mage, your Magic: The Gathering coach. I answer from real tournament results "
        f"({', '.join(formats) or 'no formats loaded yet'}): ask for the top decks of a format or how one "
        "archetype fares against another; paste your decklist for its matchup spread, a plan for a matchup, "
        f"or mainboard and sideboard changes; or ask about a cube draft's pool. I have {tool_count} tools."
    )
    if offline:
        text += (
            " I'm running in offline mode, without a language model: my answers are built from the data by templates."
        )
    return text


def welcome_prompt(workflows: list[WorkflowCard], formats: list[str]) -> str:
    """The prompt asking the LLM for the welcome message."""
    brief = [{"name": w.name, "description": w.description, "examples": w.example_queries} for w in workflows]
    return WELCOME_PROMPT.format(workflows=json.dumps(brief, ensure_ascii=False), formats=", ".join(formats))


class MessageStore(Protocol):
    """Where a written welcome is kept for every instance (``storage.locks.WelcomeMessages``)."""

    def get(self, key: str) -> str | None: ...

    def put(self, key: str, message: str, seconds: int) -> str: ...


KEPT_SECONDS = 2 * 24 * 3600  # a day's message outlives its day a little (the key names the day)
RETRY_AFTER_SECONDS = 300  # after a failed model request, the templated welcome until then
_written: dict[str, str] = {}  # in this process: key -> message
_failed: dict[str, float] = {}  # in this process: key -> when the model last failed
_writing = threading.Lock()


def forget_written() -> None:
    """Forget this process's written welcomes and failures (a new instance; tests)."""
    _written.clear()
    _failed.clear()


def message_key(model: Any, prompt: str, catalog: list[JsonObject], day: str) -> str:
    """One model's welcome for one day and one catalog (the prompt holds the workflows and formats)."""
    model_name = str(getattr(model, "model_id", None) or getattr(model, "model", None) or type(model).__name__)
    tools = json.dumps(sorted(tool["name"] for tool in catalog))
    digest = hashlib.sha256(f"{prompt}\n{tools}".encode()).hexdigest()[:16]
    return f"{model_name}#{day}#{digest}"


def written_message(
    model: Any, prompt: str, key: str, store: MessageStore | None = None, clock: Callable[[], float] = time.time
) -> str | None:
    """The welcome ``model`` writes for ``prompt``: once per ``key`` (this process's memory, then ``store``, where
    the first instance's message wins), else one request, one at a time in this process; None when the model failed
    (the templated welcome is used, and the model is left alone for ``RETRY_AFTER_SECONDS``)."""
    if key in _written:
        return _written[key]
    with _writing:  # visits at once in this process (local serve's threads) wait for the one request
        if key in _written:
            return _written[key]
        stored = store.get(key) if store is not None else None
        if stored:
            _written[key] = stored
            return stored
        if clock() - _failed.get(key, float("-inf")) < RETRY_AFTER_SECONDS:
            return None
        message = _ask(model, prompt)
        if not message:
            _failed[key] = clock()
            return None
        _written[key] = store.put(key, message, KEPT_SECONDS) if store is not None else message
        return _written[key]


def _ask(model: Any, prompt: str) -> str:
    try:
        reply = model.invoke(prompt)
        return str(getattr(reply, "text", "") or reply.content).strip()
    except Exception as exc:  # the welcome must not fail because the LLM did
        logger.warning("welcome message from the LLM failed: %s", exc)
        return ""


def build_welcome(
    catalog: list[JsonObject],
    formats: list[str],
    model: Any | None = None,
    *,
    max_tokens: int = 300,
    store: MessageStore | None = None,
    day: str | None = None,
) -> WelcomeBody:
    """The spec's /welcome body (without ``conversation_id``, which the caller adds). With a model, its message is
    written once per model, ``day`` (default: today, UTC) and catalog, and served to every visitor."""
    workflows = workflows_with_tools(catalog)
    message = None
    if model is not None:
        prompt = welcome_prompt(workflows, formats)
        today = day or dt.datetime.now(dt.UTC).date().isoformat()
        message = written_message(model, prompt, message_key(model, prompt, catalog, today), store)
    return WelcomeBody(
        message=message or templated_message(formats, len(catalog), offline=model is None),
        available_formats=formats,
        workflows=workflows,
        tool_count=len(catalog),
        tool_catalog=catalog,
        mode="llm" if model is not None else "offline",
    )
