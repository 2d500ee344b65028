"""The record of one tool: what the registry serves (name, description, input and output models, the function)
and what the coach knows about it (the workflows that may call it, the arguments the conversation state fills
in, the blocking rules that must hold first, what its result writes back into the state, its one-line
summary, its chart and its "thinking" line). Each tool's record is in ``tools/catalog/<family>.py``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic

from pydantic import BaseModel
from typing_extensions import TypeVar

from meta_mage.models.json import JsonObject
from meta_mage.tools.rules import Rule

if TYPE_CHECKING:
    from meta_mage.tools.context import ToolContext

# The coach's workflows: each tool names those that may call it.
META_RESEARCH, DECK_COACHING, CUBE_DRAFT = "meta_research", "deck_coaching", "cube_draft"
WORKFLOW_NAMES = (META_RESEARCH, DECK_COACHING, CUBE_DRAFT)

R = TypeVar("R", bound=BaseModel)
P = TypeVar("P", bound=BaseModel, default=Any)  # the arguments; Tool[R] alone takes any


@dataclass(frozen=True)
class InWorkflow(Generic[R]):
    """What a tool adds in one workflow: more state-owned arguments, more rules, a write to the state."""

    from_state: Mapping[str, str] = field(default_factory=dict)
    requires: tuple[Rule, ...] = ()
    writes: Callable[[R], JsonObject] | None = None


@dataclass(frozen=True)
class Tool(Generic[R, P]):
    """One tool of the catalog. The first six fields are the registry's (served in process, by the CLI and over
    MCP); the rest are the coach's, typed against the output model ``R``. ``run`` takes the validated
    arguments, an instance of ``input_model`` (``P``)."""

    name: str
    description: str  # written for an LLM
    input_model: type[P]
    output_model: type[R]
    run: Callable[[ToolContext, P], R]
    cpu_heavy: bool = False  # its cost grows with the request (card matching): runs under the CPU limit
    workflows: tuple[str, ...] = ()
    summary: Callable[[R], str] | None = None  # the ``tool_call`` complete event's line
    from_state: Mapping[str, str] = field(default_factory=dict)  # tool argument -> state key, hidden from the model
    requires: tuple[Rule, ...] = ()  # blocking rules checked before every call
    writes: Callable[[R], JsonObject] | None = None  # the state keys its result sets (JSON values)
    thinking: str = ""  # the "thinking" line when the coach calls it on its own
    only_in: Mapping[str, InWorkflow[R]] = field(default_factory=dict)
    chart: Callable[[R], BaseModel | None] | None = None  # picture data for the tool_call event (``charts``)

    def output(self, result: BaseModel | JsonObject) -> R:
        """``result`` as this tool's output model (a transport's JSON is validated back into it)."""
        return result if isinstance(result, self.output_model) else self.output_model.model_validate(result)

    def input_schema(self) -> JsonObject:
        return self.input_model.model_json_schema()

    def catalog_entry(self) -> JsonObject:
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema()}

    def state_arguments(self, workflow: str) -> dict[str, str]:
        """Tool argument -> state key for the arguments the state owns in ``workflow``."""
        return {**self.from_state, **self._in(workflow).from_state}

    def rules(self, workflow: str) -> tuple[Rule, ...]:
        return self.requires + self._in(workflow).requires

    def updates(self, workflow: str, result: BaseModel) -> JsonObject:
        """What a result of this tool changes in the conversation state when ``workflow`` called it."""
        writes = self.writes or self._in(workflow).writes
        return writes(self.output(result)) if writes else {}

    def summary_line(self, result: BaseModel) -> str:
        return self.summary(self.output(result)) if self.summary else "done"

    def chart_data(self, result: BaseModel) -> JsonObject | None:
        picture = self.chart(self.output(result)) if self.chart else None
        return picture.model_dump() if picture is not None else None

    def thinking_line(self) -> str:
        return self.thinking or f"Calling {self.name} first."

    def _in(self, workflow: str) -> InWorkflow[R]:
        return self.only_in.get(workflow) or InWorkflow()


@dataclass(frozen=True)
class ToolKind:
    """What the tools of one kind share (their workflows, blocking rules, state-owned arguments and CPU cost);
    ``tool`` makes one of them, which may name its own ``from_state`` or ``requires``."""

    workflows: tuple[str, ...]
    requires: tuple[Rule, ...] = ()
    from_state: Mapping[str, str] = field(default_factory=dict)
    cpu_heavy: bool = False

    def tool(
        self,
        name: str,
        description: str,
        input_model: type[P],
        output_model: type[R],
        run: Callable[[ToolContext, P], R],
        summary: Callable[[R], str],
        *,
        from_state: Mapping[str, str] | None = None,
        requires: tuple[Rule, ...] | None = None,
        writes: Callable[[R], JsonObject] | None = None,
        thinking: str = "",
        chart: Callable[[R], BaseModel | None] | None = None,
    ) -> Tool[R, P]:
        return Tool(
            name,
            description,
            input_model,
            output_model,
            run,
            cpu_heavy=self.cpu_heavy,
            workflows=self.workflows,
            summary=summary,
            from_state=self.from_state if from_state is None else from_state,
            requires=self.requires if requires is None else requires,
            writes=writes,
            thinking=thinking,
            chart=chart,
        )
