"""Plain data for the routing and guard unit tests: canned tool answers for ``Lookups`` (routing only
needs names), a decklist, and a small simulation of the graph's route node over the public functions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from meta_mage.agent.guards import GuardStep, check
from meta_mage.agent.lookups import Lookups
from meta_mage.agent.router import decide_offline, tidy
from meta_mage.agent.state import ConversationState, RouteDecision, TurnContext, merge_slots
from meta_mage.agent.tasks import WORKFLOW_TASKS
from meta_mage.agent.tools import AgentTools
from meta_mage.models.drafts import DraftPoolResult, DraftSummary, ListDraftsOutput
from meta_mage.models.meta import (
    ArchetypesOutput,
    ArchetypeSummary,
    DeckMatchupStatsOutput,
    FormatSummary,
    ListFormatsOutput,
)
from meta_mage.tools.registry import build_registry

# most played first, as get_format_archetypes orders them: "Izzet" and "Tron" each name two decks
ARCHETYPES = [
    "Boros Energy",
    "Jeskai Blink",
    "Domain Zoo",
    "Eldrazi Tron",
    "Amulet Titan",
    "Izzet Prowess",
    "Ruby Storm",
    "Ugin Tron",
    "Izzet Affinity",
]
DRAFTS = [
    {"draft_id": "tarkir", "draft_name": "Tarkir"},
    {"draft_id": "warband", "draft_name": "Warband"},
]
POOL = [
    {"card_name": "Arc Lightning", "drafted_by": "arborist77", "additional_picks": [{"drafted_by": "kheru_lich"}]},
    {"card_name": "Null Rod", "drafted_by": "[REDACTED]"},
    {"card_name": "Monastery Swiftspear", "drafted_by": "jeskai_way"},
    {"card_name": "Ox", "drafted_by": None},  # too short a name to be matched in a question
]
DECK = "\n".join(
    [
        "4 Ragavan, Nimble Pilferer",
        "4 Guide of Souls",
        "4 Ocelot Pride",
        "4 Galvanic Discharge",
        "4 Static Prison",
        "20 Mountain",
        "",
        "Sideboard",
        "2 Wear // Tear",
        "3 Blood Moon",
    ]
)
FORMATS = ["Modern"]
CARDS = [{"name": "Mountain", "quantity": 20, "section": "mainboard"}]  # card_details as the state keeps them


def matchup_stats(fmt: str = "Modern", archetype: str = "Boros Energy", days: int = 30) -> dict[str, Any]:
    """get_deck_matchup_stats' output as the state keeps it (its JSON dump), with no matches."""
    record = {"wins": 0, "losses": 0, "draws": 0, "matches": 0, "win_rate": None, "ci_low": None, "ci_high": None}
    period = {"start": "2025-01-01", "end": "2025-01-30", "days": days}
    span = {"data_first_date": "2025-01-01", "data_last_date": "2025-01-30", "min_sample": 20}
    stats = {
        "format": fmt,
        "archetype": archetype,
        "meta_share": 0.0,
        "overall": {**record, "low_sample": True},
        "mirror_matches": 0,
        "matchups": [],
        "metadata": {**span, "period": period},
    }
    return DeckMatchupStatsOutput.model_validate(stats).model_dump(mode="json")


class FakeTools:
    """An async tool executor with canned answers; it counts calls and can be told to fail."""

    def __init__(self, fail: bool = False) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.fail = fail

    async def __call__(self, name: str, arguments: dict[str, Any]) -> BaseModel:
        """The tool's output model with only the names routing reads (``model_construct`` skips the rest)."""
        self.calls.append((name, arguments))
        if self.fail:
            raise RuntimeError("the table is on fire")
        if name == "list_formats":
            return ListFormatsOutput.model_construct(formats=[FormatSummary.model_construct(format=f) for f in FORMATS])
        if name == "get_format_archetypes":
            return ArchetypesOutput.model_construct(
                archetypes=[ArchetypeSummary.model_construct(name=n) for n in ARCHETYPES]
            )
        if name == "list_drafts":
            return ListDraftsOutput.model_construct(drafts=[DraftSummary.model_construct(**d) for d in DRAFTS])
        if name == "get_draft_pool":
            return DraftPoolResult.model_construct(cards=POOL, total_cards=len(POOL), draft_name="Tarkir")
        raise AssertionError(f"routing does not call {name}")


def runner(fake: FakeTools) -> AgentTools:
    """The graph's tool runner over ``fake`` (its timeout and error handling, as routing's lookups use it)."""
    return AgentTools(build_registry(), fake)


def lookups() -> Lookups:
    return Lookups(runner(FakeTools()))


@dataclass
class Talk:
    """The route and guard nodes of the graph over plain state: each turn is ``decide_offline`` → ``tidy`` →
    ``merge_slots`` → ``check``, and a question asked is left pending."""

    state: dict[str, Any] = field(default_factory=dict)
    lookups: Lookups = field(default_factory=lookups)
    decision: RouteDecision | None = None
    step: GuardStep | None = None

    async def say(self, message: str, context: dict[str, Any] | None = None, **derived: Any) -> RouteDecision:
        turn_context = TurnContext.model_validate(context or {})
        empty = RouteDecision(workflow="clarify", confidence=0)
        view = {**self.state, **merge_slots(self.as_state(), empty, turn_context, "", None)}
        decision, question = await decide_offline(message, ConversationState.of(view), self.lookups)
        decision = tidy(decision, message)
        draft_id = await self.lookups.resolve_draft(decision.draft) if decision.draft else None
        self.state.update(merge_slots(self.as_state(), decision, turn_context, message, draft_id))
        workflow = decision.workflow if decision.confidence >= 0.6 else "clarify"
        task = decision.task if decision.task in WORKFLOW_TASKS[workflow] else "none"
        if workflow != "clarify":
            self.state.update(current_workflow=workflow, current_task=task)
        route = {**decision.model_dump(), "workflow": workflow, "task": task, "question": question}
        self.state["route"] = route
        self.state.update(derived)  # what the turn's tools derived (card details, a suggested archetype)
        self.step = None if workflow == "clarify" else check(self.as_state(), workflow, task, [], FORMATS)
        if self.step is not None and self.step.kind == "ask":
            self.state["pending"] = {"workflow": workflow, "task": task, "missing": self.step.missing, "route": route}
        else:
            self.state["pending"] = None
        self.decision = decision
        return decision

    def as_state(self) -> ConversationState:
        return ConversationState.of(self.state)
