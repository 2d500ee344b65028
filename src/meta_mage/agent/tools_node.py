"""The tools node (the last message's tool calls, each checked first) and the finish node that closes a turn."""

from __future__ import annotations

import uuid
from typing import Literal, cast

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    RemoveMessage,
    ToolMessage,
)
from langgraph.config import get_stream_writer

from meta_mage.agent.deps import AgentDeps
from meta_mage.agent.guards import tool_precondition
from meta_mage.agent.state import (
    TURN_OPEN,
    ConversationState,
)
from meta_mage.agent.tool_specs import SHOWN_AS, WORKFLOWS
from meta_mage.agent.tools import chart_data, compact_json, state_updates
from meta_mage.agent.window import is_tool_traffic
from meta_mage.models.json import JsonObject

WorkflowNode = Literal["meta_research", "deck_coaching", "cube_draft"]  # tool_specs.WORKFLOWS


def _display_arguments(arguments: JsonObject) -> JsonObject:
    return {key: SHOWN_AS[key](value) if key in SHOWN_AS else value for key, value in arguments.items()}


def routed_workflow(state: ConversationState) -> WorkflowNode:
    route = state.route
    workflow = route.workflow if route is not None else None
    if workflow not in WORKFLOWS:
        raise RuntimeError(f"no workflow was routed to (route: {workflow})")
    return cast(WorkflowNode, workflow)


async def tools(state: ConversationState, *, deps: AgentDeps) -> JsonObject:
    """Run the last message's tool calls (each checked against its workflow and rules first)."""
    writer = get_stream_writer()
    last = state.messages[-1]
    assert isinstance(last, AIMessage)
    workflow = routed_workflow(state)
    known = state  # the state as this turn's results change it
    updates: JsonObject = {}
    replies: list[ToolMessage] = []
    for call in last.tool_calls:
        name, call_id = call["name"], str(call.get("id") or uuid.uuid4().hex)
        problem = None
        if name not in deps.tools.names(workflow):
            problem = f"not run: that step is not part of {workflow.replace('_', ' ')}"
        else:
            problem = tool_precondition(name, known, workflow)
        if problem:
            writer({"event": "tool_call", "data": {"tool": name, "status": "error", "summary": problem}})
            replies.append(ToolMessage(problem, name=name, tool_call_id=call_id, status="error"))
            continue
        arguments = deps.tools.fill_arguments(name, call.get("args") or {}, known, workflow)
        writer(
            {
                "event": "tool_call",
                "data": {"tool": name, "status": "calling", "arguments": _display_arguments(arguments)},
            }
        )
        outcome = await deps.tools.run(name, arguments)
        if outcome.ok and outcome.result is not None:
            changed = state_updates(name, workflow, outcome.result)
            known = known.applied(changed)
            updates.update(changed)
            event: JsonObject = {"tool": name, "status": "complete", "summary": outcome.summary}
            picture = chart_data(name, outcome.result)
            if picture is not None:
                event["data"] = picture  # an extra field: clients that know only the spec's events ignore it
            writer({"event": "tool_call", "data": event})
            replies.append(
                ToolMessage(
                    compact_json(outcome.result.model_dump(mode="json")),
                    artifact=outcome.result,  # the model, for this turn's guards and templates (never stored)
                    name=name,
                    tool_call_id=call_id,
                )
            )
        else:
            writer({"event": "tool_call", "data": {"tool": name, "status": "error", "summary": outcome.error}})
            replies.append(ToolMessage(str(outcome.error), name=name, tool_call_id=call_id, status="error"))
    return state.changes({**updates, "messages": replies})


async def finish(state: ConversationState, *, deps: AgentDeps) -> JsonObject:
    """Close the turn: drop its tool traffic, trim the history, stamp the activity time."""
    messages = state.messages
    removals: list[BaseMessage] = [RemoveMessage(id=str(m.id)) for m in messages if is_tool_traffic(m) and m.id]
    kept = [m for m in messages if not is_tool_traffic(m)]
    overflow = len(kept) - deps.settings.history_limit
    if overflow > 0:
        removals += [RemoveMessage(id=str(m.id)) for m in kept[:overflow] if m.id]
    closed = {"tool_rounds": 0, "tools_called_by": None, "explained": False, TURN_OPEN: False}
    return state.changes({"messages": removals, "last_active": deps.clock(), **closed})
