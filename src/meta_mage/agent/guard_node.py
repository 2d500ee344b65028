"""The guard node: the blocking rules ask the player one question, call the tools that satisfy a rule, or let
the workflow go on."""

from __future__ import annotations

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
)

from meta_mage.agent.deps import AgentDeps
from meta_mage.agent.events import say, thinking
from meta_mage.agent.guards import GuardStep, check
from meta_mage.agent.lookups import Lookups
from meta_mage.agent.render import Paragraph
from meta_mage.agent.router import (
    answers_pending,
)
from meta_mage.agent.state import (
    ConversationState,
    Pending,
    Route,
)
from meta_mage.agent.tasks.phrasing import plain
from meta_mage.agent.tool_specs import TOOLS
from meta_mage.agent.window import current_turn
from meta_mage.agent.words import split_paste
from meta_mage.models.json import JsonObject
from meta_mage.tools.rules import format_question_for

MOST_PLAYED_LISTED = 12  # the archetypes a question listing the format's decks names

CLARIFY = (
    "I can help in three ways. Which do you mean?\n\n"
    '- **Meta research**: format-wide numbers, e.g. "What are the top decks in Modern?"\n'
    '- **Deck coaching**: paste your decklist, e.g. "How should I play my deck against Tron?"\n'
    '- **Cube draft**: a draft\'s card pool, e.g. "What green creatures were in the Tarkir draft?"'
)


async def guard(state: ConversationState, *, deps: AgentDeps) -> JsonObject:
    """The blocking rules: ask the user one question, call the tools that satisfy a rule, or go on."""
    known = state
    routed = known.route or Route()
    workflow, task = routed.workflow, routed.task
    if workflow == "clarify":
        text = _noted(known) + CLARIFY
        say(text)
        return known.changes({"messages": [AIMessage(text)], "pending": None, "last_answer": [Paragraph(text)]})
    turn = current_turn(state.messages)
    formats = known.available_formats or await deps.lookups.formats()
    step = check(known, workflow, task, turn, formats)
    if step.kind == "ask":
        question = await _question(step, known, turn, formats, deps.lookups)
        if routed.read_as and step.missing == "opponent":  # "Izzet Prowess is a Modern deck; your deck is Standard."
            question = f"{routed.read_as} {question}"
        say(question)
        pending = Pending(workflow=workflow, task=task, missing=step.missing, route=routed)
        said = {"messages": [AIMessage(question)], "last_answer": [Paragraph(question)]}
        return known.changes({**said, "pending": pending})
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
    if step.missing == "opponent":
        return f"{step.question}{await _most_played(known, lookups, known.archetype)}"
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
        listed = await _most_played(known, lookups, known.rejected_archetype)
        return f"Which archetype is your deck, then?{listed} You can also name another one."
    return await _draft_question(lookups)


async def _most_played(known: ConversationState, lookups: Lookups, leaving_out: str | None) -> str:
    """ " The most played in Pioneer: Greasefang, Izzet Phoenix, …." (``leaving_out`` not listed), or ""."""
    fmt = known.format
    played = await lookups.archetypes(fmt) if fmt else []
    names = [n for n in played if n != leaving_out]
    return f" The most played in {fmt}: {', '.join(names[:MOST_PLAYED_LISTED])}." if names else ""


async def _draft_question(lookups: Lookups) -> str:
    drafts = await lookups.drafts()
    if not drafts:
        return "No cube drafts have been imported yet, so there is no pool to look at."
    listed = ", ".join(f"{d.draft_name} (`{d.draft_id}`)" for d in drafts)
    return f"Which cube draft do you mean? I have: {listed}."
