"""Offline mode: the tool calls a workflow needs, and answers written by templates from their results.

Used when no LLM is configured or reachable. Every figure comes from a tool result of this turn.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from langchain_core.messages import ToolMessage
from pydantic import BaseModel

from meta_mage.agent.render import Answer
from meta_mage.agent.state import ConversationState, Route
from meta_mage.agent.tasks import TASKS
from meta_mage.agent.tasks.task import Results
from meta_mage.agent.tools import ToolCall
from meta_mage.models.meta import MAX_DAYS
from meta_mage.models.name_text import name_markdown as plain  # a tool's error can quote a name

OFFLINE_NOTE = "_Offline mode: no language model is configured, so this answer is composed from the data by templates._"
# What the answer from the data says when a language model is configured but failed it
BROKE_OFF_NOTE = "_The language model's answer broke off; this answer is written from the data alone._"
NO_ANSWER_NOTE = "_The language model did not answer; this answer is written from the data alone._"


def results(turn: list[Any]) -> Results:
    """This turn's successful tool results (their output models), found by model (the last of each wins)."""
    return Results(m.artifact for m in turn if isinstance(m, ToolMessage) and isinstance(m.artifact, BaseModel))


def called(turn: list[Any]) -> set[str]:
    """Names of the tools called this turn, answered or failed: a failed tool is not planned again."""
    return {m.name for m in turn if isinstance(m, ToolMessage) and m.name}


def errors(turn: list[Any]) -> list[str]:
    return [str(m.content) for m in turn if isinstance(m, ToolMessage) and m.status == "error"]


def plan(task: str, route: Route, known: ConversationState, done: Collection[str]) -> list[ToolCall]:
    """The tool calls still needed for ``task`` (empty when the answer can be written); ``done`` names the
    tools already called this turn. The calls are the task's record's (``agent/tasks``)."""
    spec = TASKS.get(task)
    wanted = spec.plan(route, known) if spec is not None else []
    return [call for call in wanted if call.tool not in done]


def tables(task: str, route: Route, known: ConversationState, turn: list[Any]) -> Answer:
    """The tables of ``task``'s templated answer, each with the line that introduces it: in LLM mode they are
    shown after the model's prose, so every figure in a table is the tools' own."""
    spec = TASKS.get(task)
    body = spec.writer(route, known, results(turn)) if spec is not None else Answer()
    return body.tables()


def answer(task: str, route: Route, known: ConversationState, turn: list[Any], note: str = OFFLINE_NOTE) -> Answer:
    """The templated answer for ``task`` from this turn's tool results, by the writer its record names, with
    what the turn's route and failures add around it, and ``note`` (why the data answers) last."""
    problems = errors(turn)
    spec = TASKS.get(task)
    body = spec.writer(route, known, results(turn)) if spec is not None else Answer()
    if route.read_as and body:
        body = Answer.of(route.read_as, body)
    if route.days_asked is not None and route.days is not None and body:
        asked = (
            f"You asked for {route.days_asked} days; I can look at 1 to {MAX_DAYS} days, so this uses the last "
            f"{route.days}."
        )
        body = Answer.of(asked, body)
    if problems:
        said = " ".join(plain(p) if p.rstrip().endswith((".", "!", "?")) else f"{plain(p)}." for p in problems)
        failed = f"Something went wrong while fetching the data: {said} You can ask again, or ask something else; "
        body = Answer.of(body, failed + "the conversation is intact.")
    if not body:
        body = Answer.of("I have nothing to report for that yet.")
    return Answer.of(body, note)
