"""The router node: a question about the last answer is answered; anything else is routed (the model's
decision where the rules are unsure) and its slots merged into the state."""

from __future__ import annotations

import logging

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
)

from meta_mage.agent import prompts
from meta_mage.agent.deps import AgentDeps
from meta_mage.agent.events import say, thinking
from meta_mage.agent.explain import explanation
from meta_mage.agent.router import (
    decide_offline,
    llm_route,
    tidy,
)
from meta_mage.agent.state import (
    ConversationState,
    Route,
    RouteDecision,
    merge_slots,
)
from meta_mage.agent.tool_specs import WORKFLOW_TASKS
from meta_mage.agent.window import current_turn, fenced_history
from meta_mage.agent.words import split_paste
from meta_mage.models.json import JsonObject

logger = logging.getLogger(__name__)


EXPLAINED = "explained"  # the name of the router's own answer to a question about the last answer


def _last_answer(earlier: list[AnyMessage]) -> str:
    """The coach's last answer before this turn (its text), or "": explanations of it are not answers."""
    answers = (
        m for m in reversed(earlier) if isinstance(m, AIMessage) and not m.tool_calls and m.text and m.name != EXPLAINED
    )
    return next((m.text for m in answers), "")


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
