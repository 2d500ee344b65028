"""A workflow node: the task's planned tool calls until none remain, then the answer: the model's, checked as
it streams, else the templates'."""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.config import get_stream_writer

from meta_mage.agent import offline, prompts
from meta_mage.agent.checked_stream import CheckedStream
from meta_mage.agent.deps import AgentDeps
from meta_mage.agent.events import say, thinking
from meta_mage.agent.grounding import Facts, Unmatched
from meta_mage.agent.render import Answer
from meta_mage.agent.state import (
    ConversationState,
    Route,
)
from meta_mage.agent.window import current_turn, fenced_history
from meta_mage.models.json import JsonObject
from meta_mage.observability import count_now

logger = logging.getLogger(__name__)


BROKE_OFF = "\n\n_The language model's answer broke off here; the answer below is composed from the data._\n\n"


class BrokeOff(RuntimeError):
    """The model's answer stopped after some of it was shown."""


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
    note = offline.OFFLINE_NOTE
    if deps.model is not None:
        try:
            return await _llm_answer(workflow, known, messages, deps)
        except Exception as exc:
            logger.warning("LLM answer failed in %s: %s", workflow, exc)
            thinking("The language model is unavailable; answering from the data directly.")
            note = offline.BROKE_OFF_NOTE if isinstance(exc, BrokeOff) else offline.NO_ANSWER_NOTE
    answer = offline.answer(routed.task, routed, known, turn, note)
    text = answer.markdown()
    say(text)
    return known.changes({"messages": [AIMessage(text)], "last_answer": list(answer.blocks)})


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
    except Exception as exc:
        if checked.shown:  # the reader has half an answer: say where it stops before the data's own answer follows
            writer({"event": "content", "data": {"text": BROKE_OFF}})
            raise BrokeOff(str(exc)) from exc
        raise
    text = checked.text
    if not text.strip():
        raise RuntimeError("the model answered no text")
    _report(checked.misses)
    routed = known.route or Route()
    tables = offline.tables(routed.task, routed, known, turn)
    answer = Answer.of(text, tables)
    if tables:
        say(f"\n\n{tables.markdown()}")  # the tables are the tools' own, as in offline mode
    return known.changes({"messages": [AIMessage(answer.markdown())], "last_answer": list(answer.blocks)})


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
