"""The router node: a question about the last answer is answered; anything else is routed (the model's
decision where the rules are unsure) and its slots merged into the state."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AIMessage, AnyMessage

from meta_mage.agent.deps import AgentDeps
from meta_mage.agent.events import say, thinking
from meta_mage.agent.explain import explanation
from meta_mage.agent.render import Block, Paragraph
from meta_mage.agent.router import route_turn
from meta_mage.agent.state import ConversationState
from meta_mage.agent.window import current_turn
from meta_mage.models.json import JsonObject

EXPLAINED = "explained"  # the name of the router's own answer to a question about the last answer


def _last_answer(earlier: list[AnyMessage]) -> Sequence[Block]:
    """The coach's last answer before this turn as text, for a conversation stored before answers kept their
    blocks (``ConversationState.last_answer``); explanations of it are not answers."""
    answers = (
        m for m in reversed(earlier) if isinstance(m, AIMessage) and not m.tool_calls and m.text and m.name != EXPLAINED
    )
    return [Paragraph(m.text) for m in answers][:1]


async def route(state: ConversationState, *, deps: AgentDeps) -> JsonObject:
    """Route the turn's message: a decision (the LLM's, else the rules'), its slots merged into the state."""
    known, messages = state, state.messages
    turn = current_turn(messages)
    message = str(turn[0].content) if turn else ""
    said = known.last_answer or _last_answer(messages[: len(messages) - len(turn)])
    explained = explanation(message, known, said)
    if explained is not None:  # a question about the last answer: answered, the request in progress kept
        thinking("A question about the last answer: explained from its rule and the glossary.")
        say(explained)
        return state.changes({"messages": [AIMessage(explained, name=EXPLAINED)], "context": None, "explained": True})
    updates = await route_turn(message, known, deps)
    return state.changes({**updates, "tool_rounds": 0, "context": None, "explained": False})
