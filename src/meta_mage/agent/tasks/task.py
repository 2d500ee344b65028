"""The record of one task the router can pick, what its answer writer is given, and what every task of a
workflow needs first."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from meta_mage.models.conversation import Known, Route
from meta_mage.tools.rules import FORMAT, Rule
from meta_mage.tools.tool import DECK_COACHING, META_RESEARCH, Tool

M = TypeVar("M", bound=BaseModel)
Calls = list[tuple[str, dict[str, Any]]]


class Results:
    """This turn's tool results, found by their output model (the last result of each model wins)."""

    def __init__(self, outputs: Iterable[BaseModel] = ()) -> None:
        self._by_model: dict[type[BaseModel], BaseModel] = {type(output): output for output in outputs}

    def get(self, model: type[M]) -> M | None:
        found = self._by_model.get(model)
        return found if isinstance(found, model) else None


Writer = Callable[[Route, Known, Results], str]


@dataclass(frozen=True)
class TaskSpec:
    """A task: its workflow, the rules it needs (after the workflow's own and, in deck coaching, the deck being
    read and its archetype confirmed), the tool calls it plans offline (``plans``, or ``planner`` when they
    depend on the question or the state) and the writer of its offline answer."""

    name: str
    workflow: str
    writer: Writer
    needs: tuple[Rule, ...] = ()
    plans: tuple[tuple[Tool[Any], Mapping[str, Any]], ...] = ()
    planner: Callable[[Route, Known], Calls] | None = None

    def plan(self, route: Route, known: Known) -> Calls:
        if self.planner is not None:
            return self.planner(route, known)
        return [(tool.name, dict(arguments)) for tool, arguments in self.plans]


# What every task of a workflow needs before its own rules (cube drafts need no format).
WORKFLOW_NEEDS: dict[str, tuple[Rule, ...]] = {META_RESEARCH: (FORMAT,), DECK_COACHING: (FORMAT,)}
