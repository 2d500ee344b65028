"""The agent's view of the tool registry: per-workflow tool sets, arguments filled from state,
calls with a timeout, one-line summaries, and the state each result updates."""

from __future__ import annotations

import asyncio
import copy
import json
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import ToolCall as LangChainToolCall
from pydantic import BaseModel

from meta_mage.agent.state import ConversationState
from meta_mage.deadline import deadline, timeout_message
from meta_mage.errors import MetaMageError, NotFound
from meta_mage.models.json import JsonObject
from meta_mage.tools.catalog import TOOLS, workflow_tools
from meta_mage.tools.context import ToolContext
from meta_mage.tools.registry import ToolRegistry
from meta_mage.tools.runner import run_tool

_HIDDEN = {"as_of"}

# In process a tool returns its output model; over MCP, its JSON (``AgentTools.run`` validates it back).
ToolExecutor = Callable[[str, JsonObject], Awaitable[BaseModel | JsonObject]]


@dataclass(frozen=True)
class ToolCall:
    """One planned call of a tool: its name and the arguments the plan sets (the state fills the ones it owns,
    ``AgentTools.fill_arguments``; the tool's input model checks them all)."""

    tool: str
    arguments: JsonObject = field(default_factory=dict)

    def for_message(self, caller: str) -> LangChainToolCall:
        """The call as an ``AIMessage`` carries it, its id marked with who planned it."""
        return {
            "name": self.tool,
            "args": dict(self.arguments),
            "id": f"{caller}-{uuid.uuid4().hex[:12]}",
            "type": "tool_call",
        }


@dataclass
class ToolOutcome:
    name: str
    arguments: JsonObject
    result: BaseModel | None  # the tool's output model
    error: str | None
    summary: str
    seconds: float
    not_found: bool = False  # the tool said "no such thing" (e.g. a format without data): an answer, not a fault

    @property
    def ok(self) -> bool:
        return self.error is None


def state_arguments(workflow: str, name: str | None = None) -> dict[str, str]:
    """Tool argument → state key for the arguments the state owns in ``workflow`` (of tool ``name``, or of
    any of the workflow's tools). The LLM never sees them, so it cannot guess them; the guard has made sure
    they are set before a tool that needs them runs."""
    names = [name] if name is not None else workflow_tools(workflow)
    owned: dict[str, str] = {}
    for each in names:
        if each in TOOLS:
            owned.update(TOOLS[each].state_arguments(workflow))
    return owned


def in_process_executor(registry: ToolRegistry, context: ToolContext) -> ToolExecutor:
    """Run registry tools in worker threads (they do blocking DynamoDB calls) through ``run_tool``: the
    CPU-heavy ones under the CPU limit, each under the deadline of ``AgentTools.run`` or its own."""

    async def execute(name: str, arguments: JsonObject) -> BaseModel:
        return await run_tool(registry, name, arguments, context)

    return execute


class AgentTools:
    """Tool specs for ``bind_tools``, argument filling, timed execution and result bookkeeping."""

    def __init__(self, registry: ToolRegistry, executor: ToolExecutor, timeout_seconds: float = 60) -> None:
        self.registry = registry
        self.executor = executor
        self.timeout_seconds = timeout_seconds
        self._specs: dict[str, list[JsonObject]] = {}

    def names(self, workflow: str) -> tuple[str, ...]:
        return workflow_tools(workflow)

    def specs(self, workflow: str) -> list[JsonObject]:
        """OpenAI-style function specs of the workflow's tools, without the state-owned arguments."""
        if workflow not in self._specs:
            self._specs[workflow] = self._build_specs(workflow)
        return self._specs[workflow]

    def _build_specs(self, workflow: str) -> list[JsonObject]:
        specs = []
        for name in self.names(workflow):
            owned = set(state_arguments(workflow, name)) | _HIDDEN
            tool = self.registry.get(name)
            schema = copy.deepcopy(tool.input_schema())
            properties = schema.get("properties", {})
            for key in owned & set(properties):
                del properties[key]
            schema["required"] = [r for r in schema.get("required", []) if r not in owned]
            if not schema["required"]:
                del schema["required"]
            specs.append(
                {"type": "function", "function": {"name": name, "description": tool.description, "parameters": schema}}
            )
        return specs

    def fill_arguments(self, name: str, arguments: JsonObject, known: ConversationState, workflow: str) -> JsonObject:
        """The LLM's (or guard's) arguments with the state-owned ones set from what the conversation knows."""
        accepted = set(self.registry.get(name).input_model.model_fields)
        filled = {k: v for k, v in (arguments or {}).items() if k not in _HIDDEN}
        for argument, key in state_arguments(workflow, name).items():
            value = known.state_value(key) if argument in accepted else None
            if value is not None:
                filled[argument] = value
        return filled

    async def run(self, name: str, arguments: JsonObject) -> ToolOutcome:
        """Call one tool with the timeout; failures become an outcome with an error, never a raise."""
        started = time.perf_counter()
        try:
            with deadline(self.timeout_seconds, name):  # an in-process tool stops there itself
                result = self.registry.get(name).output(
                    await asyncio.wait_for(self.executor(name, arguments), self.timeout_seconds)
                )
        except TimeoutError:
            error = timeout_message(name, self.timeout_seconds)
            return ToolOutcome(name, arguments, None, error, error, time.perf_counter() - started)
        except MetaMageError as exc:
            seconds = time.perf_counter() - started
            return ToolOutcome(name, arguments, None, exc.message, exc.message, seconds, isinstance(exc, NotFound))
        except Exception as exc:  # a tool bug must not end the conversation
            error = f"{name} failed: {type(exc).__name__}: {exc}"
            return ToolOutcome(name, arguments, None, error, error, time.perf_counter() - started)
        return ToolOutcome(name, arguments, result, None, summarise(name, result), time.perf_counter() - started)


def state_updates(name: str, workflow: str, result: BaseModel) -> JsonObject:
    """What a successful tool result changes in the conversation state (its record's ``writes``)."""
    spec = TOOLS.get(name)
    return spec.updates(workflow, result) if spec is not None else {}


def chart_data(name: str, result: BaseModel) -> JsonObject | None:
    """The picture data for the ``tool_call`` complete event (its record's ``chart``), or None."""
    spec = TOOLS.get(name)
    return spec.chart_data(result) if spec is not None else None


def summarise(name: str, result: BaseModel) -> str:
    """One line for the ``tool_call`` complete event (its record's ``summary``)."""
    spec = TOOLS.get(name)
    return spec.summary_line(result) if spec is not None else "done"


def compact_json(value: Any, limit: int = 12_000) -> str:
    """JSON for the LLM, with long lists shortened until it fits ``limit`` characters."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    keep = 40
    while len(text) > limit and keep >= 3:
        text = json.dumps(_shorten(value, keep), separators=(",", ":"), ensure_ascii=False)
        keep //= 2
    return text[:limit]


MODEL_RESULT_BUDGET = 24_000  # characters of one tool result the model reads (about 6,000 tokens)


def for_the_model(result: BaseModel | Any, budget: int = MODEL_RESULT_BUDGET) -> Any:
    """A tool result as the model reads it: every list of records as ``columns`` and ``rows`` (each key written
    once), every row while it fits ``budget`` characters of JSON; past that, the longest lists keep their first
    rows and say how many were left out."""
    value = result.model_dump(mode="json", exclude_none=True) if isinstance(result, BaseModel) else result
    table = _tabular(value)
    keep = _longest_list(table)
    while keep > 3 and len(json.dumps(table, separators=(",", ":"), ensure_ascii=False)) > budget:
        keep //= 2
        table = _tabular(_shorten(value, keep))
    return table


def _tabular(value: Any) -> Any:
    if _records(value):
        return _table(value)
    if isinstance(value, list):
        return [_tabular(v) for v in value]
    if isinstance(value, dict):
        return {k: _tabular(v) for k, v in value.items()}
    return value


def _records(value: Any) -> bool:
    """A list of two or more objects: written as one table."""
    return isinstance(value, list) and len(value) > 1 and all(isinstance(v, dict) for v in value)


def _table(records: list[JsonObject]) -> JsonObject:
    """``records`` as ``columns`` and ``rows``; a last ``{"left_out": …}`` (``_shorten``'s) said beside them."""
    cut = records[-1] if set(records[-1]) == {"left_out"} else None
    kept = records[:-1] if cut else records
    columns = list(dict.fromkeys(key for record in kept for key in record))
    table = {"columns": columns, "rows": [[_tabular(record.get(c)) for c in columns] for record in kept]}
    return {**table, **(cut or {})}


def _longest_list(value: Any) -> int:
    if isinstance(value, list):
        return max([len(value), *(_longest_list(v) for v in value)])
    if isinstance(value, dict):
        return max([0, *(_longest_list(v) for v in value.values())])
    return 0


def _shorten(value: Any, keep: int) -> Any:
    """``value`` with each list of records cut to its first ``keep`` (lists of plain values, such as colours, whole)."""
    if isinstance(value, list) and not _records(value):
        return [_shorten(v, keep) for v in value]
    if isinstance(value, list):
        head = [_shorten(v, keep) for v in value[:keep]]
        if len(value) <= keep:
            return head
        return [*head, {"left_out": f"{len(value) - keep} more rows, to fit the budget"}]
    if isinstance(value, dict):
        return {k: _shorten(v, keep) for k, v in value.items()}
    return value
