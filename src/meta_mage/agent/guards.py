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

NEEDS_CARD_DETAILS = {"strategy", "optimize_mainboard", "optimize_sideboard"}
NEEDS_ARCHETYPE = {"deck_matchups", "strategy", "optimize_mainboard", "optimize_sideboard"}
NEEDS_DAYS = {"rankings", "matchups", "archetypes", "deck_matchups", "strategy", "optimize_mainboard",
              "optimize_sideboard"}  # fmt: skip


@dataclass
class GuardStep:
    """``ask`` a question, ``call`` tools, or ``proceed`` to the workflow."""

    kind: str
    question: str = ""
    missing: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @classmethod
    def ask(cls, missing: str, question: str) -> GuardStep:
        return cls("ask", question=question, missing=missing)

    @classmethod
    def call(cls, name: str, arguments: dict[str, Any] | None = None) -> GuardStep:
        return cls("call", calls=[(name, arguments or {})])


PROCEED = GuardStep("proceed")


def _turn_results(turn: list[Any]) -> dict[str, ToolMessage]:
    return {m.name: m for m in turn if isinstance(m, ToolMessage) and m.name}


def stats_fit(state: ConversationState) -> bool:
    """Whether the stored matchup statistics are for the state's format, archetype and window."""
    stats = state.get("matchup_stats") or {}
    period = (stats.get("metadata") or {}).get("period") or {}
    return (
        stats.get("format") == state.get("format")
        and str(stats.get("archetype", "")).lower() == str(state.get("archetype", "")).lower()
        and period.get("days") == state.get("days")
    )


def _corrections(enriched: ToolMessage | None) -> str:
    """What the card names typed were read as, so a wrong correction is seen before any coaching."""
    result = enriched.artifact if enriched is not None else None
    corrected = result.get("corrected") if isinstance(result, dict) else None
    unresolved = result.get("unresolved") if isinstance(result, dict) else None
    parts = []
    if corrected:
        parts.append("I read " + ", ".join(f"“{typed}” as **{real}**" for typed, real in corrected.items()) + ".")
    if unresolved:
        names = ", ".join(f"“{u['name']}”" for u in unresolved)
        parts.append(f"I could not find {names}; those cards are left out.")
    if parts:
        parts.append("If a card is wrong, paste the list again with its exact name.\n\n")
    return " ".join(parts)


def format_question(formats: list[str]) -> str:
    return f"Which format should I look at? I have tournament data for {', '.join(formats)}."


DAYS_QUESTION = (
    "How many days of tournament results should I use? For example 7, 14 or 30 (the window ends at the "
    "newest event in the data)."
)


def check(state: ConversationState, workflow: str, task: str, turn: list[Any], formats: list[str]) -> GuardStep:
    """The next step for ``workflow``/``task`` given the state and this turn's tool results so far."""
    done = _turn_results(turn)
    if workflow == "cube_draft":
        return _check_draft(state, task)
    if not state.get("format"):
        return GuardStep.ask("format", format_question(formats))
    if workflow == "meta_research":
        if task in NEEDS_DAYS and not state.get("days"):
            return GuardStep.ask("days", DAYS_QUESTION)
        return PROCEED
    return _check_deck(state, task, done)


def _failed(message: ToolMessage | None) -> bool:
    return message is not None and message.status == "error"


def _check_deck(state: ConversationState, task: str, done: dict[str, ToolMessage]) -> GuardStep:
    enriched, classified = done.get("get_enriched_deck"), done.get("classify_deck")
    if state.get("deck_text") and not state.get("card_details"):
        if enriched is None:
            return GuardStep.call("get_enriched_deck")
        if _failed(enriched):
            return GuardStep.ask("deck", f"I could not read your deck: {enriched.content} Please try again.")
        return GuardStep.ask(
            "deck",
            "I could not match any card in that list to a real card name. Please check the names and paste it "
            "again (one card per line, like `4 Lightning Bolt`).",
        )
    if state.get("card_details") and not state.get("archetype"):
        suggested = state.get("suggested_archetype")
        if not suggested and state.get("rejected_archetype"):
            return GuardStep.ask("archetype", "")  # the graph lists the format's archetypes
        if not suggested and classified is None:
            return GuardStep.call("classify_deck")
        if suggested:
            return GuardStep.ask(
                "archetype_confirmation",
                _corrections(enriched)
                + f"Your deck looks like **{suggested}** in {state.get('format')}. Is that right? Answer yes, or "
                "tell me which archetype it is.",
            )
        return GuardStep.ask(
            "archetype",
            "I could not match your list to a known archetype. Which archetype is it (for example the name "
            "you would give it in a tournament)?",
        )
    if task in NEEDS_CARD_DETAILS and not state.get("card_details"):
        return GuardStep.ask(
            "deck", "Please paste your decklist (MTGO or Arena export, sideboard after a `Sideboard` line)."
        )
    if task == "deck_review" and not state.get("card_details") and not state.get("archetype"):
        return GuardStep.ask(
            "deck",
            "Please paste your decklist (MTGO or Arena export, sideboard after a `Sideboard` line) and I'll "
            "review it, or tell me which archetype you play.",
        )
    if task in NEEDS_ARCHETYPE and not state.get("archetype"):
        return GuardStep.ask(
            "archetype", "Which archetype is your deck? You can also paste the list and I'll tell you."
        )
    if task in NEEDS_DAYS and not state.get("days"):
        return GuardStep.ask("days", DAYS_QUESTION)
    if task == "strategy":
        if not state.get("opponent_archetype"):
            return GuardStep.ask("opponent", "Which archetype are you playing against?")
        if not stats_fit(state):
            stats_call = done.get("get_deck_matchup_stats")
            if stats_call is None:
                return GuardStep.call("get_deck_matchup_stats")
            return GuardStep.ask("archetype", f"I could not get matchup statistics for your deck: {stats_call.content}")
    return PROCEED


def _check_draft(state: ConversationState, task: str) -> GuardStep:
    if task == "draft_pool" and not state.get("draft_id"):
        return GuardStep.ask("draft", "")  # the question lists the drafts; the graph fills it in
    return PROCEED


_WINDOW_TOOLS = {"get_format_meta_rankings", "get_format_matchup_stats", "get_format_archetypes",
                 "get_deck_matchup_stats", "optimize_mainboard", "optimize_sideboard"}  # fmt: skip
_FORMAT_TOOLS = _WINDOW_TOOLS | {"classify_deck", "generate_deck_matchup_strategy"}


def tool_precondition(name: str, state: ConversationState, workflow: str) -> str | None:
    """Why ``name`` may not run yet (the same rules, applied to every call the LLM asks for), or None."""
    if name in _FORMAT_TOOLS and not state.get("format"):
        return "blocked: the format is not set yet; ask the user which format"
    if name in _WINDOW_TOOLS and not state.get("days"):
        return "blocked: the number of days is not set yet; ask the user how many days of results to use"
    if name in {"optimize_mainboard", "optimize_sideboard", "generate_deck_matchup_strategy"}:
        if not state.get("card_details"):
            return "blocked: needs card_details from get_enriched_deck; ask the user to paste their decklist"
        if not state.get("archetype"):
            return "blocked: the deck's archetype is not confirmed; ask the user"
    if name == "get_deck_matchup_stats" and workflow == "deck_coaching" and not state.get("archetype"):
        return "blocked: the deck's archetype is not confirmed; ask the user"
    if name == "generate_deck_matchup_strategy":
        if not state.get("opponent_archetype"):
            return "blocked: the opponent archetype is not known; ask the user which matchup"
        if not stats_fit(state):
            return "blocked: needs matchup_stats; call get_deck_matchup_stats first"
    if name == "classify_deck" and not state.get("deck_text"):
        return "blocked: no decklist in the conversation; ask the user to paste one"
    if name == "get_enriched_deck" and not state.get("deck_text"):
        return "blocked: no decklist in the conversation; ask the user to paste one"
    if name == "get_draft_pool" and not state.get("draft_id"):
        return "blocked: the draft is not known; ask the user which draft"
    return None
