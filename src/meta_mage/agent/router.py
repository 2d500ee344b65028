"""Routing a user turn: the LLM's structured classification, or in offline mode the message's reading
(``reading``) claimed by the first of ``CLAIMS`` that holds; then code checks on the decision (``tidy``). Its slots
go into the state through ``state.merge_slots``."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AnyMessage, BaseMessage, HumanMessage, SystemMessage

from meta_mage.agent import prompts
from meta_mage.agent.deps import AgentDeps
from meta_mage.agent.events import thinking
from meta_mage.agent.follow_ups import CONTINUATIONS, TaskChoice, deck_against, follow_up
from meta_mage.agent.lookups import Lookups
from meta_mage.agent.reading import ANOTHER_FORMATS_DECK, Reading, Slots, read_message
from meta_mage.agent.state import (
    ConversationState,
    Pending,
    Route,
    RouteDecision,
    SlotChanges,
    merge_slots,
)
from meta_mage.agent.tasks import DEFAULT_TASK, LLM_ROUTE_DECISION, TASKS, WORKFLOW_TASKS
from meta_mage.agent.tasks.task import named_task
from meta_mage.agent.window import fenced_history, starting_with_a_question
from meta_mage.agent.words import NO, PAGE_WORDS, YES, days_outside_the_limit, extract_decklist, has, split_paste
from meta_mage.models.meta import MAX_DAYS, normalise_format

logger = logging.getLogger(__name__)

# words of a new request: a message without them only answers the question the coach asked
_REQUEST_WORDS = (
    r"\b(top|best|meta|metagame|matchups?|archetypes?|decks?|cards?|who|which|what are|how (does|do|should|can)"
    r"|optimi[sz]e|sideboard|mainboard|review|cube|drafts?|pool|trend\w*|win ?rates?)\b"
)
# what a short answer can fill in for the pending question; for a deck, its archetype too ("yes"/"no" included)
_ANSWERABLE = {"format", "days", "draft"}


def resumed_question(message: str, known: ConversationState) -> str | None:
    """The question ``message`` answers when the coach is waiting for one (a format, a window, a draft,
    "yes, that's my deck", an archetype, or the list itself while a deck question waits), without the question's
    own decklist (that is in the state already); None when ``message`` is a new request: words that ask for
    something, or a list pasted while no deck question waits. The two are routed together, and the pending task
    stays the task, so nothing that question named is lost."""
    pending = known.pending
    asked = pending.route.question if pending is not None and pending.route is not None else None
    if not asked or pending is None or not answers_pending(message, pending):
        return None
    own = extract_decklist(asked)
    return str(asked.replace(own, " ") if own else asked)


def answers_pending(message: str, pending: Pending) -> bool:
    """Whether ``message`` answers the question ``pending`` asked, rather than asking something new."""
    return _list_answers(message, pending) if extract_decklist(message) else _words_answer(message, pending)


# words around a pasted list that only present it ("here's my deck:")
_PRESENTING_A_LIST = re.compile(r"\b(?:here'?s|here is|this is|it'?s|my|the|a|deck|decklist|list|75)\b", re.I)


def _list_answers(message: str, pending: Pending) -> bool:
    """A list pasted while a deck question waits ("How should I sideboard against Jeskai Blink?", then the list)
    answers it, unless the words with it ask for something else."""
    words = _PRESENTING_A_LIST.sub(" ", split_paste(message)[0])
    return pending.workflow == "deck_coaching" and not has(_REQUEST_WORDS, words)


def _words_answer(message: str, pending: Pending) -> bool:
    """A short answer fills the slot the coach asked for (a yes or no confirms the suggested archetype)."""
    if pending.missing == "archetype_confirmation" and (YES.match(message) or NO.match(message)):
        return True
    deck_slots = {"archetype", "archetype_confirmation"} if pending.workflow == "deck_coaching" else set()
    return pending.missing in _ANSWERABLE | deck_slots and not has(_REQUEST_WORDS, message)


def _task_named(workflow: str, reading: Reading) -> str:
    """The workflow's task whose cue the question matches (see each task's ``cues``), else its default."""
    tasks = [TASKS[name] for name in WORKFLOW_TASKS[workflow]]
    slots = reading.slots
    named = named_task(tasks, reading.question, slots["archetype"], slots["opponent"], slots.get("card"))
    return named or DEFAULT_TASK[workflow]


def _coaching_task(reading: Reading, state: ConversationState) -> TaskChoice:
    return _task_named("deck_coaching", reading), {}


def _draft_task(reading: Reading, state: ConversationState) -> TaskChoice:
    return _task_named("cube_draft", reading), {"draft": reading.draft, "card_filter": reading.card_filter}


def _confirmed_task(reading: Reading, state: ConversationState) -> TaskChoice:
    return (state.pending or Pending()).task or "deck_review", {}


def _own_deck_restated(reading: Reading, state: ConversationState) -> TaskChoice:
    """The player's deck named in answer to "which opponent?": the request waits on, and the coach asks again."""
    return (state.pending or Pending()).task or "strategy", {"read_as": f"{reading.slots['archetype']} is your deck."}


def _meta_task(reading: Reading, state: ConversationState) -> TaskChoice:
    """The meta task the words name, or the follow-up of the last answer they make (``follow_ups.FOLLOW_UPS``)."""
    task = _task_named("meta_research", reading)
    return follow_up(reading, state, task) or (task, {})


def _about_a_deck(reading: Reading) -> bool:
    """A named archetype with its format, or with words asking for its page ("tell me about", "the stock list")."""
    return bool(reading.slots["format"]) or has(PAGE_WORDS, reading.question)


@dataclass(frozen=True)
class Claim:
    """A workflow a message names when ``names`` holds, and how its task is chosen."""

    workflow: str
    names: Callable[[Reading], bool]
    task: Callable[[Reading, ConversationState], TaskChoice]
    confidence: float = 0.9


# Which workflow a message names, the most specific claim first: the player's own deck given as the opponent
# is not one; "and against X?" after a deck's answer is X against it; a pasted list or the player's own deck is
# coaching even when the words are the meta's; a draft is named by its words; a bare yes/no confirms the
# suggested archetype; meta words (or an archetype and a format) ask about the format. The first claim that
# holds decides; a message none claims continues the request in progress, or is asked to clarify.
CLAIMS: tuple[Claim, ...] = (
    Claim("deck_coaching", lambda r: r.names_own_deck, _own_deck_restated),
    Claim("deck_coaching", lambda r: r.follows_deck, deck_against),
    Claim(
        "deck_coaching",
        lambda r: r.has_decklist or (r.my_deck and not r.draft_words) or (r.coaching and (r.has_deck or r.my_deck)),
        _coaching_task,
    ),
    Claim("cube_draft", lambda r: r.draft_words or bool(r.draft), _draft_task),
    Claim("deck_coaching", lambda r: r.confirms is not None, _confirmed_task),
    Claim(
        "meta_research",
        lambda r: r.meta_words or bool(r.slots["archetype"] and not r.slots["opponent"] and _about_a_deck(r)),
        _meta_task,
        0.85,
    ),
)


async def decide_offline(message: str, known: ConversationState, lookups: Lookups) -> tuple[RouteDecision, str]:
    """The offline decision for a turn, and the question it answers: an answer to the coach's question
    (``resumed_question``) is read with that question, and the interrupted request stays the request. Its
    workflow is kept; a meta or draft task is read again with the answer (a format names the archetypes it
    could not match before), a deck's task as it was asked beside the list. Anything else is routed afresh."""
    asked = resumed_question(message, known)
    decision = await rule_route(message, known, lookups, asked)
    pending = known.pending
    if not asked or pending is None or pending.workflow is None:
        return decision, message
    if decision.workflow != pending.workflow or pending.workflow == "deck_coaching":
        task = pending.task or DEFAULT_TASK.get(pending.workflow, "none")
        decision = decision.model_copy(update={"workflow": pending.workflow, "task": task})
    return decision.model_copy(update={"confidence": max(decision.confidence, 0.9)}), f"{asked}\n{message}"


async def rule_route(
    message: str, known: ConversationState, lookups: Lookups, asked: str | None = None
) -> RouteDecision:
    """Offline routing: read the message (``read_message``), then the first of ``CLAIMS`` that holds picks the
    workflow and task; a message that only fills slots continues the request in progress. ``asked`` is the
    question ``message`` answers (see ``resumed_question``): the two are read as one request, with the format
    and window the answer gives winning over the question's."""
    reading = await read_message(message, known, lookups, asked)
    slots = reading.slots
    for claim in CLAIMS:
        if claim.names(reading):
            task, extra = claim.task(reading, known)
            return _decision(claim.workflow, task, claim.confidence, {**slots, **extra})
    follow_up = _continued(reading, known)
    if follow_up is not None:
        workflow, task, confidence, extra = follow_up
        return _decision(workflow, task, confidence, {**slots, **extra})
    return _decision("clarify", "none", 0.3, slots)


def _decision(workflow: str, task: str, confidence: float, slots: Slots) -> RouteDecision:
    return RouteDecision.model_validate({"workflow": workflow, "task": task, "confidence": confidence, **slots})


def _continued(reading: Reading, known: ConversationState) -> tuple[str, str, float, Slots] | None:
    """A message that only changes slots (a format, a window, a name, a pool filter) continues the request in
    progress as its workflow's rule in ``follow_ups.CONTINUATIONS`` says; None when there is none or the message
    fills nothing."""
    awaiting = known.pending
    if not (awaiting or known.current_workflow) or not _fills(reading):
        return None
    pending = awaiting or Pending()
    workflow = pending.workflow or known.current_workflow or "clarify"
    task = pending.task or known.current_task or DEFAULT_TASK.get(workflow, "none")
    task, extra = CONTINUATIONS[workflow](reading, known, task, pending.route or known.route or Route())
    return workflow, task, 0.8 if awaiting else 0.7, extra


def _fills(reading: Reading) -> bool:
    """The message fills a slot: a format, a window, a name, or (about a pool) a draft or a filter."""
    named = any(reading.slots[k] for k in ("format", "days", "archetype", "opponent"))
    return named or (reading.in_cube and bool(reading.draft or reading.card_filter))


async def llm_route(model: BaseChatModel, turn: str, history: Sequence[BaseMessage]) -> RouteDecision:
    """The LLM's classification of the turn (``turn``: the player's message with its data blocks, from
    ``prompts.player_turn``), as a validated RouteDecision."""
    structured = model.with_structured_output(LLM_ROUTE_DECISION)
    recent = starting_with_a_question(history[-4:])
    prompt: list[BaseMessage] = [SystemMessage(prompts.router_prompt()), *recent, HumanMessage(turn)]
    decision = await structured.ainvoke(prompt)
    if not isinstance(decision, RouteDecision):
        decision = RouteDecision.model_validate(decision)
    return decision


def tidy(decision: RouteDecision, message: str) -> RouteDecision:
    """Code checks on a decision (from either router): valid format, a task that fits the workflow, a decklist and
    a yes or no to the suggested archetype only where the player's own message holds them (as the rules read a
    yes: ``words.YES``, ``words.NO``), whatever the model said."""
    words = split_paste(message)[0]
    confirms = True if YES.match(words) else False if NO.match(words) else None
    updates: dict[str, object] = {"confirms_archetype": confirms}
    if decision.format:
        try:
            updates["format"] = normalise_format(decision.format)
        except ValueError:
            updates["format"] = None
    if decision.task not in WORKFLOW_TASKS[decision.workflow]:
        updates["task"] = DEFAULT_TASK.get(decision.workflow, "none")
    deck = extract_decklist(message)
    updates["has_decklist"] = deck is not None
    outside = days_outside_the_limit(words)
    if outside is not None:
        updates.update(days=min(MAX_DAYS, max(1, outside)), days_asked=outside)
        thinking(f"{outside} days is outside the 1-{MAX_DAYS} days I can look at; using {updates['days']}.")
    return decision.model_copy(update=updates)


def kept_deck(decision: RouteDecision, known: ConversationState) -> RouteDecision:
    """In a confirmed deck conversation, a deck question naming another format keeps the deck, as the rules'
    reading does (``reading.ANOTHER_FORMATS_DECK``), whoever routed it: the format stays the deck's, the name is
    said and the opponent asked again."""
    other = decision.format
    if (
        decision.workflow != "deck_coaching"
        or decision.has_decklist
        or not (known.deck_format and known.deck_archetype)
        or other in (None, known.deck_format)
    ):
        return decision
    name = decision.opponent or decision.archetype or other
    said = ANOTHER_FORMATS_DECK[False].format(name=name, other=other, deck=known.deck_format)
    return decision.model_copy(update={"format": None, "archetype": None, "opponent": None, "read_as": said})


async def route_turn(message: str, known: ConversationState, deps: AgentDeps) -> SlotChanges:
    """The turn's route and the slot changes it makes: the rules' decision (the model's where the rules are
    unsure), checked (``tidy``), under the confidence threshold a question to clarify, its slots merged into the
    state (``state.merge_slots``)."""
    context = known.context
    # routing sees the dropdown values already (e.g. the format whose archetype names to match)
    from_context = merge_slots(known, RouteDecision(workflow="clarify", confidence=0), context, "", None)
    view = known.applied(from_context)
    decision, question = await decide_offline(message, view, deps.lookups)
    if deps.model is not None and decision.confidence < deps.settings.rules_route_at:
        decision, question = await _model_route(message, view, known.messages, deps) or (decision, question)
    decision = kept_deck(tidy(decision, message), known)
    draft_id = await deps.lookups.resolve_draft(decision.draft) if decision.draft else None
    updates = merge_slots(known, decision, context, message, draft_id)
    workflow = decision.workflow
    if decision.confidence < deps.settings.router_confidence_threshold:
        workflow = "clarify"
    task = decision.task if decision.task in WORKFLOW_TASKS.get(workflow, ()) else "none"
    if workflow != "clarify":
        thinking(f"{workflow.replace('_', ' ').capitalize()}: {task.replace('_', ' ')}.")
        updates.update(current_workflow=workflow, current_task=task)
    if not known.available_formats:
        updates["available_formats"] = await deps.lookups.formats()
    routed = Route.model_validate({**decision.model_dump(), "workflow": workflow, "task": task, "question": question})
    return {**updates, "route": routed}


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
