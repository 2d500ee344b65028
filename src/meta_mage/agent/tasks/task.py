"""The record of one task the router can pick, what its answer writer is given, and what every task of a
workflow needs first."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from meta_mage.agent.reading import Reading
from meta_mage.agent.render import Answer
from meta_mage.agent.state import ConversationState, Route
from meta_mage.agent.tools import ToolCall
from meta_mage.tools.rules import FORMAT, Rule
from meta_mage.tools.tool import DECK_COACHING, META_RESEARCH, Tool

M = TypeVar("M", bound=BaseModel)
Calls = list[ToolCall]


class Results:
    """This turn's tool results, found by their output model (the last result of each model wins)."""

    def __init__(self, outputs: Iterable[BaseModel] = ()) -> None:
        self._by_model: dict[type[BaseModel], BaseModel] = {type(output): output for output in outputs}

    def get(self, model: type[M]) -> M | None:
        found = self._by_model.get(model)
        return found if isinstance(found, model) else None


Writer = Callable[[Route, ConversationState, Results], Answer]  # the task's offline answer, as blocks


def answered_from(model: type[M], write: Callable[[M, Route, ConversationState], Answer]) -> Writer:
    """The writer that answers from this turn's result of ``model`` with ``write`` (nothing without one)."""

    def writer(route: Route, known: ConversationState, done: Results) -> Answer:
        result = done.get(model)
        return write(result, route, known) if result is not None else Answer()

    return writer


@dataclass(frozen=True)
class Cue:
    """What in a question names a task: ``words`` (a regex, matched case-insensitively over the whole question),
    unless ``unless`` matches; with ``needs_name``, only when the question also names an archetype or an
    opponent; with ``by_opponent`` (``by_archetype``), naming an opponent (an archetype) names it too.
    ``by_card``, naming a card names it. ``rank`` orders the cues of one workflow when a question matches several
    (lowest first)."""

    rank: int
    words: str = ""
    unless: str = ""
    needs_name: bool = False
    by_opponent: bool = False
    by_archetype: bool = False
    by_card: bool = False

    def names(self, question: str, archetype: str | None, opponent: str | None, card: str | None = None) -> bool:
        if self.by_card:
            return bool(card)
        if self.unless and re.search(self.unless, question, re.I | re.S):
            return False
        if self.needs_name and not (archetype or opponent):
            return False
        named = (self.by_opponent and bool(opponent)) or (self.by_archetype and bool(archetype))
        return named or bool(self.words and re.search(self.words, question, re.I | re.S))


@dataclass(frozen=True)
class FollowUp:
    """ "and …?" after an answer of the task that carries it: when ``holds``, run ``task`` keeping ``keeps``."""

    name: str
    holds: Callable[[Reading, Route, str], bool]  # (the reading, the last route, the task the words name)
    task: str
    keeps: tuple[str, ...]  # slots carried from the last answer
    example: tuple[str, str]  # (the last question, the follow-up): the generated tests ask both


@dataclass(frozen=True)
class TaskSpec:
    """A task: its workflow, the rules it needs (after the workflow's own and, in deck coaching, the deck being
    read and its archetype confirmed), the tool calls it plans offline (``plans``, or ``planner`` when they
    depend on the question or the state), the writer of its offline answer, and the cues that name it in a
    question (the offline router's words for it); ``how_ranked`` explains how its answer is ordered and judged
    (asked "why …?" after it), ``follow_ups`` the "and …?" messages that run it again with one slot changed."""

    name: str
    workflow: str
    writer: Writer
    needs: tuple[Rule, ...] = ()
    plans: tuple[tuple[Tool[Any], Mapping[str, Any]], ...] = ()
    planner: Callable[[Route, ConversationState], Calls] | None = None
    cues: tuple[Cue, ...] = ()  # what names it in a question of its workflow; none: the workflow's default
    how_ranked: str = ""
    follow_ups: tuple[FollowUp, ...] = ()

    def plan(self, route: Route, known: ConversationState) -> Calls:
        if self.planner is not None:
            return self.planner(route, known)
        return [ToolCall(tool.name, dict(arguments)) for tool, arguments in self.plans]


# What every task of a workflow needs before its own rules (cube drafts need no format).
WORKFLOW_NEEDS: dict[str, tuple[Rule, ...]] = {META_RESEARCH: (FORMAT,), DECK_COACHING: (FORMAT,)}


def named_task(
    tasks: Iterable[TaskSpec], question: str, archetype: str | None, opponent: str | None, card: str | None = None
) -> str | None:
    """The task of ``tasks`` (one workflow's) whose cue, lowest rank first, the question matches; None: none does."""
    cued = [
        (cue.rank, task.name) for task in tasks for cue in task.cues if cue.names(question, archetype, opponent, card)
    ]
    return min(cued)[1] if cued else None
