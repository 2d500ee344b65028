"""The LangGraph graph: router → guard → workflow ⇄ tools → finish.

Nodes report progress through LangGraph's custom stream (``get_stream_writer``) as the spec's SSE
events; ``conversation.py`` turns that stream into the event generator.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from meta_mage.agent import offline, prompts
from meta_mage.agent.checked_stream import CheckedStream
from meta_mage.agent.explain import explanation
from meta_mage.agent.grounding import Facts, Unmatched
from meta_mage.agent.guards import GuardStep, check, tool_precondition
from meta_mage.agent.lookups import Lookups
from meta_mage.agent.router import (
    answers_pending,
    decide_offline,
    llm_route,
    starting_with_a_question,
    tidy,
)
from meta_mage.agent.state import (
    TURN_OPEN,
    ConversationState,
    Pending,
    Route,
    RouteDecision,
    merge_slots,
    messages_of,
)
from meta_mage.agent.tasks.phrasing import plain
from meta_mage.agent.tool_specs import SHOWN_AS, TOOLS, WORKFLOW_TASKS, WORKFLOWS
from meta_mage.agent.tools import AgentTools, chart_data, compact_json, state_updates
from meta_mage.agent.words import split_paste
from meta_mage.config import Settings
from meta_mage.models.json import JsonObject
from meta_mage.observability import count_now
from meta_mage.tools.rules import format_question_for

logger = logging.getLogger(__name__)

WorkflowNode = Literal["meta_research", "deck_coaching", "cube_draft"]  # tool_specs.WORKFLOWS

BROKE_OFF = "\n\n_The language model's answer broke off here; the answer below is composed from the data._\n\n"

EXPLAINED = "explained"  # the name of the router's own answer to a question about the last answer
CLARIFY = (
    "I can help in three ways. Which do you mean?\n\n"
    '- **Meta research**: format-wide numbers, e.g. "What are the top decks in Modern?"\n'
    '- **Deck coaching**: paste your decklist, e.g. "How should I play my deck against Tron?"\n'
    '- **Cube draft**: a draft\'s card pool, e.g. "What green creatures were in the Tarkir draft?"'
)


@dataclass
class AgentDeps:
    """What the graph's nodes need, made once per process."""

    settings: Settings
    tools: AgentTools
    lookups: Lookups
    model: BaseChatModel | None = None
    clock: Callable[[], float] = field(default=time.time)


def current_turn(messages: list[AnyMessage]) -> list[AnyMessage]:
    """The messages of the turn in progress: the last human message and everything after it."""
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], HumanMessage):
            return messages[index:]
    return []


def _is_tool_traffic(message: BaseMessage) -> bool:
    return isinstance(message, ToolMessage) or (isinstance(message, AIMessage) and bool(message.tool_calls))


def llm_window(messages: list[AnyMessage], size: int) -> list[AnyMessage]:
    """The last ``size`` messages before this turn (questions and answers only, from a question on),
    then this turn."""
    turn = current_turn(messages)
    earlier = [m for m in messages[: len(messages) - len(turn)] if not _is_tool_traffic(m)]
    return [*cast(list[AnyMessage], starting_with_a_question(earlier[-size:])), *turn]


def _display_arguments(arguments: JsonObject) -> JsonObject:
    return {key: SHOWN_AS[key](value) if key in SHOWN_AS else value for key, value in arguments.items()}


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
    get_stream_writer()({"event": "thinking", "data": {"content": text}})


def _routed_workflow(state: ConversationState) -> WorkflowNode:
    route = state.route
    workflow = route.workflow if route is not None else None
    if workflow not in WORKFLOWS:
        raise RuntimeError(f"no workflow was routed to (route: {workflow})")
    return cast(WorkflowNode, workflow)


def _last_answer(earlier: list[AnyMessage]) -> str:
    """The coach's last answer before this turn (its text), or "": explanations of it are not answers."""
    answers = (
        m for m in reversed(earlier) if isinstance(m, AIMessage) and not m.tool_calls and m.text and m.name != EXPLAINED
    )
    return next((m.text for m in answers), "")


# --- nodes ------------------------------------------------------------------------------------------


async def route(state: ConversationState, *, deps: AgentDeps) -> JsonObject:
    """Route the turn's message: a decision (the LLM's, else the rules'), its slots merged into the state."""
    settings = deps.settings
    known, messages = state, state.messages
    turn = current_turn(messages)
    message = str(turn[0].content) if turn else ""
    explained = explanation(message, known, _last_answer(messages[: len(messages) - len(turn)]))
    if explained is not None:  # a question about the last answer: answered, the request in progress kept
        thinking("A question about the last answer: explained from its rule and the glossary.")
        say(explained)
        return state.changes({"messages": [AIMessage(explained, name=EXPLAINED)], "context": None, "explained": True})
    context = known.context
    # routing sees the dropdown values already (e.g. the format whose archetype names to match)
    from_context = merge_slots(known, RouteDecision(workflow="clarify", confidence=0), context, "", None)
    view = state.applied(from_context)
    decision, question = await decide_offline(message, view, deps.lookups)
    if deps.model is not None and decision.confidence < settings.rules_route_at:
        decision, question = await _model_route(message, view, messages, deps) or (decision, question)
    decision = tidy(decision, message)
    draft_id = await deps.lookups.resolve_draft(decision.draft) if decision.draft else None
    updates = merge_slots(known, decision, context, message, draft_id)
    workflow = decision.workflow
    if decision.confidence < settings.router_confidence_threshold:
        workflow = "clarify"
    task = decision.task if decision.task in WORKFLOW_TASKS.get(workflow, ()) else "none"
    if workflow != "clarify":
        thinking(f"{workflow.replace('_', ' ').capitalize()}: {task.replace('_', ' ')}.")
        updates.update(current_workflow=workflow, current_task=task)
    if not known.available_formats:
        updates["available_formats"] = await deps.lookups.formats()
    routed = Route.model_validate({**decision.model_dump(), "workflow": workflow, "task": task, "question": question})
    return state.changes({**updates, "route": routed, "tool_rounds": 0, "context": None, "explained": False})


async def _model_route(
    message: str, view: ConversationState, messages: list[AnyMessage], deps: AgentDeps
) -> tuple[RouteDecision, str] | None:
    """The model's decision where the rules are unsure (one request), or None when the model failed."""
    assert deps.model is not None
    try:
        history = fenced_history(messages, deps.settings.message_window)[:-1]
        words, pasted = split_paste(message)
        formats = view.available_formats or await deps.lookups.formats()
        turn = prompts.player_turn(words, pasted, prompts.router_blocks(view, formats))
        return await llm_route(deps.model, turn, history), message
    except Exception as exc:
        logger.warning("LLM routing failed, using the rules: %s", exc)
        thinking("The language model could not route this message; using keyword rules.")
        return None


async def guard(state: ConversationState, *, deps: AgentDeps) -> JsonObject:
    """The blocking rules: ask the user one question, call the tools that satisfy a rule, or go on."""
    known = state
    routed = known.route or Route()
    workflow, task = routed.workflow, routed.task
    if workflow == "clarify":
        text = _noted(known) + CLARIFY
        say(text)
        return known.changes({"messages": [AIMessage(text)], "pending": None})
    turn = current_turn(messages_of(state))
    formats = known.available_formats or await deps.lookups.formats()
    step = check(known, workflow, task, turn, formats)
    if step.kind == "ask":
        question = await _question(step, known, turn, formats, deps.lookups)
        say(question)
        pending = Pending(workflow=workflow, task=task, missing=step.missing, route=routed)
        return known.changes({"messages": [AIMessage(question)], "pending": pending})
    if step.kind == "call":
        calls = [call.for_message("guard") for call in step.calls]
        for call in step.calls:
            thinking(TOOLS[call.tool].thinking_line() if call.tool in TOOLS else f"Calling {call.tool} first.")
        return known.changes(
            {"messages": [AIMessage(content="", tool_calls=calls, name="guard")], "tools_called_by": "guard"}
        )
    return known.changes({"pending": None})


async def _question(
    step: GuardStep, known: ConversationState, turn: list[AnyMessage], formats: list[str], lookups: Lookups
) -> str:
    """The words of the guard's question."""
    routed = known.route or Route()
    if step.missing == "format":
        return format_question_for(split_paste(routed.question)[0], formats)  # a card's name names no format
    question = step.question or await _listing_question(step.missing, known, lookups)
    if step.missing == "archetype_confirmation" and (known.pending or Pending()).missing == step.missing:
        return _asked_again(known, str(turn[0].content) if turn else "") + question
    return question


def _asked_again(known: ConversationState, message: str) -> str:
    """Why the confirmation comes again: a new question is kept for after it, and what an answer set is noted."""
    if not answers_pending(message, known.pending or Pending()):
        asked = message.strip() if len(message.strip()) <= 80 else message.strip()[:79] + "…"
        return f"I will answer “{plain(asked)}” once your deck's archetype is settled. "
    noted = _noted_slots(known)
    return f"{noted} " if noted else ""


def _noted_slots(known: ConversationState) -> str:
    """ "Noted: Modern, the last 30 days." when this message set the format or the window, else ""."""
    parts = [part for part in (known.format, f"the last {known.days} days" if known.days else "") if part]
    routed = known.route or Route()
    if not (routed.format or routed.days) or not parts:
        return ""
    return f"Noted: {', '.join(parts)}."


def _noted(known: ConversationState) -> str:
    """A message that only sets the context ("Modern, 30 days") is acknowledged with what it set."""
    noted = _noted_slots(known)
    return f"{noted} Ask about it, for example “what are the top decks?”.\n\n" if noted else ""


async def _listing_question(missing: str, known: ConversationState, lookups: Lookups) -> str:
    """A question that lists the choices: the format's archetypes, or the imported drafts."""
    if missing == "archetype":
        fmt = known.format
        played = await lookups.archetypes(fmt) if fmt else []
        names = [n for n in played if n != known.rejected_archetype]
        listed = f" The most played in {fmt}: {', '.join(names[:12])}." if names else ""
        return f"Which archetype is your deck, then?{listed} You can also name another one."
    return await _draft_question(lookups)


async def _draft_question(lookups: Lookups) -> str:
    drafts = await lookups.drafts()
    if not drafts:
        return "No cube drafts have been imported yet, so there is no pool to look at."
    listed = ", ".join(f"{d.draft_name} (`{d.draft_id}`)" for d in drafts)
    return f"Which cube draft do you mean? I have: {listed}."


PLANNED = "plan"  # the name of the AIMessage that carries a workflow's planned tool calls


async def run_workflow(state: ConversationState, *, workflow: str, deps: AgentDeps) -> JsonObject:
    """One step of ``workflow``: the task's planned tool calls (``agent/tasks``) until none remain, then the
    answer: the model's, written once over the results (checked as it streams), else the templates'."""
    known, messages = state, state.messages
    routed = known.route or Route()
    turn = current_turn(messages)
    rounds = known.tool_rounds
    calls = offline.plan(routed.task, routed, known, offline.called(turn))
    if calls and rounds < deps.settings.max_tool_rounds:
        tool_calls = [call.for_message(PLANNED) for call in calls]
        message = AIMessage(content="", tool_calls=tool_calls, name=PLANNED)
        return known.changes({"messages": [message], "tool_rounds": rounds + 1, "tools_called_by": "workflow"})
    if deps.model is not None:
        try:
            return await _llm_answer(workflow, known, messages, deps)
        except Exception as exc:
            logger.warning("LLM answer failed in %s: %s", workflow, exc)
            thinking("The language model is unavailable; answering from the data directly.")
    text = offline.answer(routed.task, routed, known, turn)
    say(text)
    return {"messages": [AIMessage(text)]}


def fenced_history(messages: list[AnyMessage], size: int) -> list[BaseMessage]:
    """The window the model reads (``llm_window``), tool traffic left out and each player's message fenced
    (``prompts.player_turn``: a pasted decklist inside a data block)."""
    window: list[BaseMessage] = []
    for message in llm_window(messages, size):
        if _is_tool_traffic(message):
            continue
        if isinstance(message, HumanMessage):
            words, pasted = split_paste(str(message.content))
            message = HumanMessage(prompts.player_turn(words, pasted), id=message.id)
        window.append(message)
    return window


def answer_prompt(workflow: str, known: ConversationState, messages: list[AnyMessage], size: int) -> list[BaseMessage]:
    """The one request that writes a workflow's answer: its system prompt (instructions only), the history, and
    the player's turn with this turn's data fenced after it."""
    turn = current_turn(messages)
    results = [(str(m.name), m.artifact) for m in turn if isinstance(m, ToolMessage) and m.artifact is not None]
    window = fenced_history(messages, size)
    blocks = prompts.answer_blocks(known, results, offline.errors(turn))
    if window and isinstance(window[-1], HumanMessage):
        window[-1] = HumanMessage("\n\n".join([str(window[-1].content), *blocks]), id=window[-1].id)
    else:  # the turn's question is not last (never expected): the data still comes as the player's turn
        window.append(HumanMessage("\n\n".join(["(the data for the question above)", *blocks])))
    return [SystemMessage(prompts.workflow_prompt(workflow)), *window]


async def _llm_answer(
    workflow: str, known: ConversationState, messages: list[AnyMessage], deps: AgentDeps
) -> JsonObject:
    """The model's answer over this turn's results, each sentence checked before it is shown
    (``checked_stream``), then the tools' own tables."""
    assert deps.model is not None
    turn = current_turn(messages)
    checked = CheckedStream(*await _facts(known, turn, deps))
    writer = get_stream_writer()

    def show(pieces: list[str]) -> None:
        for piece in pieces:
            writer({"event": "content", "data": {"text": piece}})

    try:
        async for chunk in deps.model.astream(answer_prompt(workflow, known, messages, deps.settings.message_window)):
            if isinstance(chunk, AIMessageChunk) and chunk.text:
                show(checked.feed(chunk.text))
        show(checked.close())
    except Exception:
        if checked.shown:  # the reader has half an answer: say where it stops before the data's own answer follows
            writer({"event": "content", "data": {"text": BROKE_OFF}})
        raise
    text = checked.text
    if not text.strip():
        raise RuntimeError("the model answered no text")
    _report(checked.misses)
    routed = known.route or Route()
    tables = offline.tables(routed.task, routed, known, turn)
    if not tables:
        return {"messages": [AIMessage(text)]}
    say(f"\n\n{tables}")  # the tables are the tools' own, as in offline mode
    return {"messages": [AIMessage(content=f"{text}\n\n{tables}")]}


async def _facts(known: ConversationState, turn: list[AnyMessage], deps: AgentDeps) -> tuple[Facts, list[str]]:
    """What the model's figures are checked against: this turn's tool results and the player's own words; and
    the format's archetype names (a sentence naming one is held to its figures)."""
    results: list[Any] = [m.artifact for m in turn if isinstance(m, ToolMessage) and m.artifact is not None]
    results += prompts.held_data(known, results)  # what earlier turns established (the deck, its statistics)
    said = [card.name for card in known.card_details] + [n for n in (known.archetype, known.format) if n]
    names = await deps.lookups.archetypes(known.format) if known.format else []
    return Facts.of(results, said), names


def _report(misses: list[Unmatched]) -> None:
    """The ``grounding`` event (what was marked), the log line and the ``UngroundedFigures`` metric."""
    get_stream_writer()({"event": "grounding", "data": {"unmatched": [m.as_dict() for m in misses]}})
    if misses:
        logger.warning("LLM answer states figures no tool result holds: %s", [m.figure for m in misses])
        count_now("UngroundedFigures", len(misses))


async def tools(state: ConversationState, *, deps: AgentDeps) -> JsonObject:
    """Run the last message's tool calls (each checked against its workflow and rules first)."""
    writer = get_stream_writer()
    last = messages_of(state)[-1]
    assert isinstance(last, AIMessage)
    workflow = _routed_workflow(state)
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
    messages = messages_of(state)
    removals: list[BaseMessage] = [RemoveMessage(id=str(m.id)) for m in messages if _is_tool_traffic(m) and m.id]
    kept = [m for m in messages if not _is_tool_traffic(m)]
    overflow = len(kept) - deps.settings.history_limit
    if overflow > 0:
        removals += [RemoveMessage(id=str(m.id)) for m in kept[:overflow] if m.id]
    closed = {"tool_rounds": 0, "tools_called_by": None, "explained": False, TURN_OPEN: False}
    return state.changes({"messages": removals, "last_active": deps.clock(), **closed})


# --- edges ------------------------------------------------------------------------------------------


def after_router(state: ConversationState) -> Literal["guard", "finish"]:
    """The turn ends when the router answered it (a question about the last answer), else the guard."""
    return "finish" if state.explained else "guard"


def after_guard(state: ConversationState) -> Literal["tools", "finish", WorkflowNode]:
    """The guard's tool calls, its question (the turn ends), or the routed workflow."""
    last = messages_of(state)[-1]
    if isinstance(last, AIMessage):
        return "tools" if last.tool_calls else "finish"
    return _routed_workflow(state)


def after_workflow(state: ConversationState) -> Literal["tools", "finish"]:
    last = messages_of(state)[-1]
    return "tools" if isinstance(last, AIMessage) and last.tool_calls else "finish"


def after_tools(state: ConversationState) -> Literal["guard", WorkflowNode]:
    """Back to whoever asked for the tools: the guard, or the workflow."""
    return "guard" if state.tools_called_by == "guard" else _routed_workflow(state)


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
