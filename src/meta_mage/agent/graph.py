"""The LangGraph graph's wiring: router → guard → workflow ⇄ tools → finish, and the edges between them.

Each node lives in a module of its own (``route_node``, ``guard_node``, ``workflow_node``, ``tools_node``); the
edges read typed fields of the state (``explained``, ``tools_called_by``), never message names. Nodes report
progress through LangGraph's custom stream (``events``) as the spec's SSE events; ``conversation.py`` turns that
stream into the event generator.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Literal

from langchain_core.messages import AIMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from meta_mage.agent.deps import AgentDeps as AgentDeps
from meta_mage.agent.guard_node import guard
from meta_mage.agent.route_node import route
from meta_mage.agent.state import ConversationState
from meta_mage.agent.tool_specs import WORKFLOWS
from meta_mage.agent.tools_node import WorkflowNode, finish, routed_workflow, tools
from meta_mage.agent.workflow_node import run_workflow


def after_router(state: ConversationState) -> Literal["guard", "finish"]:
    """The turn ends when the router answered it (a question about the last answer), else the guard."""
    return "finish" if state.explained else "guard"


def after_guard(state: ConversationState) -> Literal["tools", "finish", WorkflowNode]:
    """The guard's tool calls, its question (the turn ends), or the routed workflow."""
    last = state.messages[-1]
    if isinstance(last, AIMessage):
        return "tools" if last.tool_calls else "finish"
    return routed_workflow(state)


def after_workflow(state: ConversationState) -> Literal["tools", "finish"]:
    last = state.messages[-1]
    return "tools" if isinstance(last, AIMessage) and last.tool_calls else "finish"


def after_tools(state: ConversationState) -> Literal["guard", WorkflowNode]:
    """Back to whoever asked for the tools: the guard, or the workflow."""
    return "guard" if state.tools_called_by == "guard" else routed_workflow(state)


def build_graph(deps: AgentDeps, checkpointer: BaseCheckpointSaver[Any] | None) -> CompiledStateGraph[Any]:
    """Compile the coach's graph over ``deps`` with ``checkpointer`` as its memory."""
    graph = StateGraph(ConversationState)
    graph.add_node("router", partial(route, deps=deps))
    graph.add_node("guard", partial(guard, deps=deps))
    graph.add_node("tools", partial(tools, deps=deps))
    graph.add_node("finish", partial(finish, deps=deps))
    for workflow in WORKFLOWS:
        graph.add_node(workflow, partial(run_workflow, workflow=workflow, deps=deps))
        graph.add_conditional_edges(workflow, after_workflow, ["tools", "finish"])
    graph.add_edge(START, "router")
    graph.add_conditional_edges("router", after_router, ["guard", "finish"])
    graph.add_conditional_edges("guard", after_guard, ["tools", "finish", *WORKFLOWS])
    graph.add_conditional_edges("tools", after_tools, ["guard", *WORKFLOWS])
    graph.add_edge("finish", END)
    return graph.compile(checkpointer=checkpointer)
