"""One declaration per tool and per task: everything the agent knows about them.

A tool's record says which workflows may call it, which of its arguments the conversation state fills in
(hidden from the model), the blocking rules that must hold before it runs, what its result writes back into
the state, its one-line ``tool_call`` summary and its "thinking" line. A task's record says its workflow,
the slots it needs, the tool calls it plans offline and the writer of its offline answer.

The guard (``guards.check``, ``guards.tool_precondition``), the tool specs bound to the model and the
argument filling (``tools.AgentTools``), ``tools.state_updates``, ``tools.summarise``, the router's
``state.WORKFLOW_TASKS`` and the offline plan are derived from these records. Adding a tool = one
``ToolSpec`` in ``TOOLS`` (and its registry entry) + its tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel

from meta_mage.agent import answers, charts
from meta_mage.models.decks import (
    ClassifyDeckOutput,
    EnrichedDeck,
    OptimizeMainboardOutput,
    OptimizeSideboardOutput,
    StrategyFacts,
)
from meta_mage.models.drafts import DraftPoolResult, ListDraftsOutput
from meta_mage.models.meta import (
    ArchetypesOutput,
    DeckMatchupStatsOutput,
    ListFormatsOutput,
    MatchupStatsOutput,
    MetaRankingsOutput,
    WinRate,
)

if TYPE_CHECKING:
    from meta_mage.agent.state import ConversationState, Route

META, DECK, DRAFT = "meta_research", "deck_coaching", "cube_draft"
WORKFLOWS = (META, DECK, DRAFT)

Calls = list[tuple[str, dict[str, Any]]]
Writer = Callable[["Route", "ConversationState", dict[str, BaseModel]], str]
R = TypeVar("R", bound=BaseModel)


# --- blocking rules -------------------------------------------------------------------------------


def stats_fit(state: ConversationState) -> bool:
    """Whether the stored matchup statistics are for the state's format, archetype and window."""
    stats = state.get("matchup_stats") or {}
    period = (stats.get("metadata") or {}).get("period") or {}
    return (
        stats.get("format") == state.get("format")
        and str(stats.get("archetype", "")).lower() == str(state.get("archetype", "")).lower()
        and period.get("days") == state.get("days")
    )


def _has(key: str) -> Callable[[ConversationState], bool]:
    return lambda state: bool(state.get(key))


def format_question(formats: list[str]) -> str:
    return f"Which format should I look at? I have tournament data for {', '.join(formats)}."


DAYS_QUESTION = (
    "How many days of tournament results should I use? Any number from 1 to 365, for example 7, 14 or 30 "
    "(the window ends at the newest event in the data)."
)
PASTE_DECK = "Please paste your decklist (MTGO or Arena export, sideboard after a `Sideboard` line)."


@dataclass(frozen=True)
class Rule:
    """A blocking rule: what must hold, what the model is told when a tool call breaks it (``blocked``),
    and what the user is asked when a task needs it (``question``, on the slot ``missing``; an empty
    question is written by the graph with the choices listed). A rule a tool can satisfy names it in
    ``fetch``: the guard calls it instead of asking, and asks ``fetch_failed`` if that call failed."""

    missing: str
    holds: Callable[[ConversationState], bool]
    blocked: str
    question: str | Callable[[list[str]], str] = ""
    fetch: str | None = None
    fetch_failed: str = ""

    def ask(self, formats: list[str]) -> str:
        return self.question(formats) if callable(self.question) else self.question


FORMAT = Rule(
    "format", _has("format"), "blocked: the format is not set yet; ask the user which format", format_question
)
DAYS = Rule(
    "days",
    _has("days"),
    "blocked: the number of days is not set yet; ask the user how many days of results to use",
    DAYS_QUESTION,
)
CARD_DETAILS = Rule(
    "deck",
    _has("card_details"),
    "blocked: needs card_details from get_enriched_deck; ask the user to paste their decklist",
    PASTE_DECK,
)
ARCHETYPE = Rule(
    "archetype",
    _has("archetype"),
    "blocked: the deck's archetype is not confirmed; ask the user",
    "Which archetype is your deck? You can also paste the list and I'll tell you.",
)
OPPONENT = Rule(
    "opponent",
    _has("opponent_archetype"),
    "blocked: the opponent archetype is not known; ask the user which matchup",
    "Which archetype are you playing against?",
)
MATCHUP_STATS = Rule(
    "archetype",
    stats_fit,
    "blocked: needs matchup_stats; call get_deck_matchup_stats first",
    fetch="get_deck_matchup_stats",
    fetch_failed="I could not get matchup statistics for your deck: {error}",
)
DECK_TEXT = Rule(
    "deck",
    _has("deck_text"),
    "blocked: no decklist in the conversation; ask the user to paste one",
    PASTE_DECK,
)
DRAFT_ID = Rule("draft", _has("draft_id"), "blocked: the draft is not known; ask the user which draft")
DECK_OR_ARCHETYPE = Rule(
    "deck",
    lambda state: bool(state.get("card_details") or state.get("archetype")),
    "blocked: needs a decklist or an archetype; ask the user",
    "Please paste your decklist (MTGO or Arena export, sideboard after a `Sideboard` line) and I'll review it, "
    "or tell me which archetype you play.",
)
# What every task of a workflow needs before its own rules (cube drafts need no format).
WORKFLOW_NEEDS: dict[str, tuple[Rule, ...]] = {META: (FORMAT,), DECK: (FORMAT,)}


# --- tools ----------------------------------------------------------------------------------------

WINDOW = {"format": "format", "days": "days"}
TWO_WINDOWS = {"format": "format", "current_days": "days", "previous_days": "days"}


@dataclass(frozen=True)
class InWorkflow(Generic[R]):
    """What a tool adds in one workflow: more state-owned arguments, more rules, a write to the state."""

    from_state: Mapping[str, str] = field(default_factory=dict)
    requires: tuple[Rule, ...] = ()
    writes: Callable[[R], dict[str, Any]] | None = None


@dataclass(frozen=True)
class ToolSpec(Generic[R]):
    """A registry tool's agent-facing facts (see the module docstring). ``output`` is the tool's output
    model (the registry's, checked by a test): ``summary`` and ``writes`` read its fields, type-checked."""

    name: str
    output: type[R]
    workflows: tuple[str, ...]
    summary: Callable[[R], str]
    from_state: Mapping[str, str] = field(default_factory=dict)  # tool argument -> state key
    requires: tuple[Rule, ...] = ()
    writes: Callable[[R], dict[str, Any]] | None = None  # the state keys its result sets (JSON values)
    thinking: str = ""
    only_in: Mapping[str, InWorkflow[R]] = field(default_factory=dict)
    chart: Callable[[R], dict[str, Any] | None] | None = None  # picture data for the tool_call event

    def chart_data(self, result: BaseModel) -> dict[str, Any] | None:
        return self.chart(self.output.model_validate(result)) if self.chart else None

    def state_arguments(self, workflow: str) -> dict[str, str]:
        extra = self.only_in.get(workflow, InWorkflow())
        return {**self.from_state, **extra.from_state}

    def rules(self, workflow: str) -> tuple[Rule, ...]:
        return self.requires + self.only_in.get(workflow, InWorkflow()).requires

    def updates(self, workflow: str, result: BaseModel) -> dict[str, Any]:
        writes = self.writes or self.only_in.get(workflow, InWorkflow()).writes
        return writes(self.output.model_validate(result)) if writes else {}

    def summary_line(self, result: BaseModel) -> str:
        return self.summary(self.output.model_validate(result))

    def thinking_line(self) -> str:
        return self.thinking or f"Calling {self.name} first."


def _rate(block: WinRate) -> str:
    if block.win_rate is None:
        return "no decided matches"
    return f"{block.win_rate:.1f}% over {block.wins + block.losses} matches"


def _rankings_summary(result: MetaRankingsOutput) -> str:
    meta = result.metadata
    period = meta.current_period
    return f"{len(result.rows)} archetypes ranked from {meta.current_decks} decks ({period.start} to {period.end})"


def _deck_summary(result: EnrichedDeck) -> str:
    counts = result.counts
    corrected = "".join(f"; read {typed!r} as {real!r}" for typed, real in result.corrected.items())
    return (
        f"{counts['mainboard']} mainboard and {counts['sideboard']} sideboard cards, "
        f"{len(result.unresolved)} names not found{corrected}"
    )


def _strategy_summary(result: StrategyFacts) -> str:
    record = _rate(result.record) if result.record is not None else "no decided matches"
    return (
        f"vs {result.opponent_archetype}: {record}, "
        f"{len(result.opponent_key_cards)} key cards, {len(result.sideboard_answers)} sideboard answers"
    )


_DECK_ARGS = {"format": "format", "deck": "deck_text"}
_COACHING = {**WINDOW, "archetype": "archetype", "card_details": "card_details"}

TOOLS: dict[str, ToolSpec[Any]] = {
    spec.name: spec
    for spec in (
        ToolSpec("list_formats", ListFormatsOutput, (META,), lambda r: f"{len(r.formats)} formats with data"),
        ToolSpec(
            "get_format_meta_rankings",
            MetaRankingsOutput,
            (META,),
            _rankings_summary,
            from_state=TWO_WINDOWS,
            requires=(FORMAT, DAYS),
            chart=charts.rankings_chart,
        ),
        ToolSpec(
            "get_format_matchup_stats",
            MatchupStatsOutput,
            (META,),
            lambda r: f"matchup table of {len(r.archetypes)} archetypes",
            from_state=WINDOW,
            requires=(FORMAT, DAYS),
            chart=charts.grid_chart,
        ),
        ToolSpec(
            "get_format_archetypes",
            ArchetypesOutput,
            (META,),
            lambda r: f"{len(r.archetypes)} archetypes",
            from_state=WINDOW,
            requires=(FORMAT, DAYS),
        ),
        ToolSpec(
            "get_enriched_deck",
            EnrichedDeck,
            (DECK,),
            _deck_summary,
            from_state={"deck": "deck_text"},
            requires=(DECK_TEXT,),
            writes=lambda r: (
                {"card_details": [c.model_dump(mode="json") for c in r.card_details]} if r.card_details else {}
            ),
            thinking="Reading your decklist card by card first.",
        ),
        ToolSpec(
            "classify_deck",
            ClassifyDeckOutput,
            (DECK,),
            lambda r: f"looks like {r.archetype} ({r.matched_by})",
            from_state=_DECK_ARGS,
            requires=(FORMAT, DECK_TEXT),
            writes=lambda r: {"suggested_archetype": r.archetype} if r.matched_by != "unknown" else {},
            thinking="Matching your list against the archetype rules.",
        ),
        # One archetype's spread is a meta question ("how does Boros Energy do against the field?", the
        # model names the archetype) and the start of deck coaching (the user's archetype, kept in the state).
        ToolSpec(
            "get_deck_matchup_stats",
            DeckMatchupStatsOutput,
            (META, DECK),
            lambda r: f"{r.archetype}: {_rate(r.overall)}, {len(r.matchups)} opponents",
            from_state=WINDOW,
            requires=(FORMAT, DAYS),
            thinking="Fetching your archetype's matchup statistics before coaching the matchup.",
            chart=charts.spread_chart,
            only_in={
                DECK: InWorkflow(
                    from_state={"archetype": "archetype"},
                    requires=(ARCHETYPE,),
                    writes=lambda r: {"matchup_stats": r.model_dump(mode="json"), "archetype": r.archetype},
                )
            },
        ),
        ToolSpec(
            "generate_deck_matchup_strategy",
            StrategyFacts,
            (DECK,),
            _strategy_summary,
            from_state={
                "format": "format",
                "archetype": "archetype",
                "opponent_archetype": "opponent_archetype",
                "card_details": "card_details",
                "matchup_stats": "matchup_stats",
            },
            requires=(FORMAT, CARD_DETAILS, ARCHETYPE, OPPONENT, MATCHUP_STATS),
        ),
        ToolSpec(
            "optimize_mainboard",
            OptimizeMainboardOutput,
            (DECK,),
            lambda r: f"{r.lists_compared} lists compared, {len(r.swaps)} swaps suggested",
            from_state=_COACHING,
            requires=(FORMAT, DAYS, CARD_DETAILS, ARCHETYPE),
        ),
        ToolSpec(
            "optimize_sideboard",
            OptimizeSideboardOutput,
            (DECK,),
            lambda r: f"{r.total_cards}-card sideboard: {len(r.adds)} adds, {len(r.cuts)} cuts",
            from_state=_COACHING,
            requires=(FORMAT, DAYS, CARD_DETAILS, ARCHETYPE),
        ),
        ToolSpec("list_drafts", ListDraftsOutput, (DRAFT,), lambda r: f"{len(r.drafts)} drafts"),
        ToolSpec(
            "get_draft_pool",
            DraftPoolResult,
            (DRAFT,),
            lambda r: f"{r.total_cards} cards from {r.draft_name}",
            from_state={"draft_id": "draft_id"},
            requires=(DRAFT_ID,),
            writes=lambda r: {"draft_id": r.draft_id},
            chart=charts.pool_chart,
        ),
    )
}

# How a state-owned argument is shown in the ``tool_call`` calling event (the rest are shown as they are).
SHOWN_AS: dict[str, Callable[[Any], str]] = {
    "card_details": lambda value: f"{len(value)} cards",
    "matchup_stats": lambda value: f"{value.get('archetype')} matchup statistics",
    "deck": lambda value: f"decklist ({len(str(value).splitlines())} lines)",
}


def workflow_tools(workflow: str) -> tuple[str, ...]:
    """The tools ``workflow`` may call, in declaration order."""
    return tuple(name for name, spec in TOOLS.items() if workflow in spec.workflows)


# --- tasks ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskSpec:
    """A task the router can pick: its workflow, the rules it needs (after the workflow's own and, in deck
    coaching, the deck being read and its archetype confirmed), the tool calls it plans offline (``plans``,
    or ``planner`` when they depend on the question or the state) and the writer of its offline answer."""

    name: str
    workflow: str
    writer: Writer
    needs: tuple[Rule, ...] = ()
    plans: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    planner: Callable[[Route, ConversationState], Calls] | None = None

    def plan(self, route: Route, state: ConversationState) -> Calls:
        if self.planner is not None:
            return self.planner(route, state)
        return [(name, dict(arguments)) for name, arguments in self.plans]


def _plan_matchups(route: Route, state: ConversationState) -> Calls:
    subject = route.archetype or route.opponent
    return [("get_deck_matchup_stats", {"archetype": subject})] if subject else [("get_format_matchup_stats", {})]


def _plan_spread(route: Route, state: ConversationState) -> Calls:
    if state.get("days") and state.get("archetype") and not stats_fit(state):  # a new window refetches
        return [("get_deck_matchup_stats", {})]
    return []


def _plan_pool(route: Route, state: ConversationState) -> Calls:
    filters = {k: v for k, v in (route.card_filter or {}).items() if k in {"color", "type_contains", "name_contains"}}
    return [("get_draft_pool", {"include_draft_results": True, "include_card_details": True, **filters})]


_COACH = (CARD_DETAILS, ARCHETYPE, DAYS)
# The first task of each workflow is its default.
TASKS: dict[str, TaskSpec] = {
    spec.name: spec
    for spec in (
        TaskSpec("rankings", META, answers.rankings, (DAYS,), (("get_format_meta_rankings", {}),)),
        TaskSpec("matchups", META, answers.matchups, (DAYS,), planner=_plan_matchups),
        TaskSpec("archetypes", META, answers.archetypes, (DAYS,), (("get_format_archetypes", {}),)),
        TaskSpec("deck_review", DECK, answers.deck_review, (DECK_OR_ARCHETYPE,), planner=_plan_spread),
        TaskSpec("deck_matchups", DECK, answers.deck_matchups, (ARCHETYPE, DAYS), planner=_plan_spread),
        TaskSpec(
            "strategy",
            DECK,
            answers.strategy,
            (*_COACH, OPPONENT, MATCHUP_STATS),
            (("generate_deck_matchup_strategy", {}),),
        ),
        TaskSpec(
            "optimize_mainboard", DECK, answers.optimize_mainboard, _COACH, (("optimize_mainboard", {"top_n": 5}),)
        ),
        TaskSpec(
            "optimize_sideboard", DECK, answers.optimize_sideboard, _COACH, (("optimize_sideboard", {"top_n": 5}),)
        ),
        TaskSpec("draft_pool", DRAFT, answers.draft_pool, (DRAFT_ID,), planner=_plan_pool),
        TaskSpec("list_drafts", DRAFT, answers.list_drafts, (), (("list_drafts", {}),)),
    )
}

WORKFLOW_TASKS: dict[str, tuple[str, ...]] = {
    **{workflow: tuple(n for n, t in TASKS.items() if t.workflow == workflow) for workflow in WORKFLOWS},
    "clarify": ("none",),
}
DEFAULT_TASK = {workflow: WORKFLOW_TASKS[workflow][0] for workflow in WORKFLOWS}
