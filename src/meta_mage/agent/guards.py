"""The spec's five blocking rules, checked in code before any tool runs.

1. Every tool needs ``format``.
2. optimize_mainboard, optimize_sideboard and generate_deck_matchup_strategy need ``card_details``
   from get_enriched_deck (a pasted list is enriched by the agent itself).
3. Deck coaching needs ``archetype`` (a pasted list is classified and the user asked to confirm).
4. generate_deck_matchup_strategy needs ``matchup_stats`` from get_deck_matchup_stats (fetched by
   the agent itself).
5. Tools over a window of results need ``days``; the user says how many.

Each check returns one step: ask the user one question, call tools that satisfy a rule, or proceed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import ToolMessage

from meta_mage.agent.state import ConversationState
from meta_mage.agent.tool_specs import (
    DAYS_QUESTION as DAYS_QUESTION,
)
from meta_mage.agent.tool_specs import (
    TASKS,
    TOOLS,
    WORKFLOW_NEEDS,
    Rule,
)
from meta_mage.agent.tool_specs import (
    format_question as format_question,
)
from meta_mage.agent.tool_specs import (
    stats_fit as stats_fit,
)
from meta_mage.agent.tools import ToolCall
from meta_mage.models.decks import EnrichedDeck
from meta_mage.models.json import JsonObject
from meta_mage.tools.catalog.decks import CLASSIFY_DECK, ENRICHED_DECK


@dataclass
class GuardStep:
    """``ask`` a question, ``call`` tools, or ``proceed`` to the workflow."""

    kind: str
    question: str = ""
    missing: str = ""
    calls: list[ToolCall] = field(default_factory=list)

    @classmethod
    def ask(cls, missing: str, question: str) -> GuardStep:
        return cls("ask", question=question, missing=missing)

    @classmethod
    def call(cls, name: str, arguments: JsonObject | None = None) -> GuardStep:
        return cls("call", calls=[ToolCall(name, arguments or {})])


PROCEED = GuardStep("proceed")


def _turn_results(turn: list[Any]) -> dict[str, ToolMessage]:
    return {m.name: m for m in turn if isinstance(m, ToolMessage) and m.name}


def _corrections(enriched: ToolMessage | None) -> str:
    """What the card names typed were read as, so a wrong correction is seen before any coaching."""
    result = enriched.artifact if enriched is not None else None
    if not isinstance(result, EnrichedDeck):
        return ""
    parts = []
    if result.corrected:
        read = ", ".join(f"“{typed}” as **{real}**" for typed, real in result.corrected.items())
        parts.append(f"I read {read}.")
    if result.unresolved:
        names = ", ".join(f"“{u.name}”" for u in result.unresolved)
        parts.append(f"I could not find {names}; those cards are left out.")
    if parts:
        parts.append("If a card is wrong, paste the list again with its exact name.\n\n")
    return " ".join(parts)


def check(known: ConversationState, workflow: str, task: str, turn: list[Any], formats: list[str]) -> GuardStep:
    """The next step for ``workflow``/``task`` given what the conversation knows and this turn's tool results so
    far: the workflow's rules, then (deck coaching) reading the deck and confirming its archetype, then the task's."""
    done = _turn_results(turn)
    for rule in WORKFLOW_NEEDS.get(workflow, ()):
        if not rule.holds(known):
            return _unmet(rule, done, formats)
    if workflow == "deck_coaching":
        step = _read_deck(known, done)
        if step is not None:
            return step
    spec = TASKS.get(task)
    for rule in spec.needs if spec is not None else ():
        if not rule.holds(known):
            return _unmet(rule, done, formats)
    return PROCEED


def _unmet(rule: Rule, done: dict[str, ToolMessage], formats: list[str]) -> GuardStep:
    """Ask the rule's question, or call the tool that satisfies it (asking only if that call failed)."""
    if rule.fetch is not None:
        fetched = done.get(rule.fetch)
        if fetched is None:
            return GuardStep.call(rule.fetch)
        return GuardStep.ask(rule.missing, rule.fetch_failed.format(error=fetched.content))
    return GuardStep.ask(rule.missing, rule.ask(formats))


def _failed(message: ToolMessage | None) -> bool:
    return message is not None and message.status == "error"


def _read_deck(known: ConversationState, done: dict[str, ToolMessage]) -> GuardStep | None:
    """A pasted list is read (get_enriched_deck) and classified (classify_deck), and the archetype confirmed."""
    enriched, classified = done.get(ENRICHED_DECK.name), done.get(CLASSIFY_DECK.name)
    if known.deck_text and not known.deck_read:
        if enriched is None:
            return GuardStep.call(ENRICHED_DECK.name)
        if _failed(enriched):
            return GuardStep.ask("deck", f"I could not read your deck: {enriched.content} Please try again.")
        return GuardStep.ask(
            "deck",
            "I could not match any card in that list to a real card name. Please check the names and paste it "
            "again (one card per line, like `4 Lightning Bolt`).",
        )
    if known.deck_read and not known.archetype:
        suggested = known.suggested_archetype
        if not suggested and known.rejected_archetype:
            return GuardStep.ask("archetype", "")  # the graph lists the format's archetypes
        if not suggested and classified is None:
            return GuardStep.call(CLASSIFY_DECK.name)
        if suggested:
            return GuardStep.ask(
                "archetype_confirmation",
                _corrections(enriched)
                + f"Your deck looks like **{suggested}** in {known.format}. Is that right? Answer yes, or "
                "tell me which archetype it is.",
            )
        return GuardStep.ask(
            "archetype",
            "I could not match your list to a known archetype. Which archetype is it (for example the name "
            "you would give it in a tournament)?",
        )
    return None


def tool_precondition(name: str, known: ConversationState, workflow: str) -> str | None:
    """Why ``name`` may not run yet (its declared rules, applied to every call the LLM asks for), or None."""
    spec = TOOLS.get(name)
    for rule in spec.rules(workflow) if spec is not None else ():
        if not rule.holds(known):
            return rule.blocked
    return None
