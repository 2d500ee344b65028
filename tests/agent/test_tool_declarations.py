"""One record per tool (tools/catalog) and per task (agent/tasks): a tool declared in one record is listed,
guarded, filled from the conversation, run and summarised, and the records hold together (what the agent derives
from them works)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from meta_mage.agent import tool_specs
from meta_mage.agent.guards import tool_precondition
from meta_mage.agent.state import ConversationState
from meta_mage.agent.tasks import LLM_ROUTE_DECISION
from meta_mage.agent.tool_specs import FORMAT, TASKS, TOOLS, WORKFLOWS, Rule
from meta_mage.agent.tools import (
    MODEL_RESULT_BUDGET,
    AgentTools,
    for_the_model,
    in_process_executor,
    state_updates,
    summarise,
)
from meta_mage.api.welcome import workflows_with_tools
from meta_mage.models.meta import DeckMatchupStatsOutput, MatchupStatsOutput, PeriodMetadata, WinRate
from meta_mage.tools.catalog import workflow_tools
from meta_mage.tools.context import ToolContext
from meta_mage.tools.registry import Tool, build_registry
from meta_mage.tools.workflows import WORKFLOWS as SHOWN_WORKFLOWS


class CountInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: str
    word: str


class CountOutput(BaseModel):
    format: str
    word: str
    letters: int


def count_letters(context: ToolContext, params: CountInput) -> CountOutput:
    return CountOutput(format=params.format, word=params.word, letters=len(params.word))


OPPONENT_NAMED = Rule(
    "opponent",
    lambda known: bool(known.opponent_archetype),
    "not run yet: no opponent is named",
    "Which opponent?",
)
# The toy tool: one record, as each tool of tools/catalog is.
TOY = Tool(
    "count_letters",
    "Count the letters of a word.",
    CountInput,
    CountOutput,
    count_letters,
    workflows=("meta_research",),
    summary=lambda result: f"{result.word} has {result.letters} letters",
    from_state={"format": "format"},
    requires=(FORMAT, OPPONENT_NAMED),
    writes=lambda result: {"archetype": result.word},
    thinking="Counting letters first.",
)


@pytest.fixture()
def declared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(TOOLS, TOY.name, TOY)


@pytest.mark.usefixtures("declared")
async def test_a_tool_declared_once_is_listed_guarded_filled_run_and_summarised(modern_world: dict[str, Any]) -> None:
    # guarded: its preconditions, as the graph's tools node checks every planned or guard call
    assert (
        tool_precondition("count_letters", ConversationState(format="Modern"), "meta_research")
        == OPPONENT_NAMED.blocked
    )
    assert tool_precondition("count_letters", ConversationState(), "meta_research") == FORMAT.blocked
    assert (
        tool_precondition("count_letters", ConversationState(format="Modern", opponent_archetype="X"), "meta_research")
        is None
    )
    # listed in its workflow only; its state-owned format filled from the conversation, then run and summarised
    registry = build_registry()
    assert TOY.name in registry.names()  # the catalog is the records
    tools = AgentTools(registry, in_process_executor(registry, modern_world["context"]))
    assert "count_letters" in tools.names("meta_research") and "count_letters" not in tools.names("deck_coaching")
    known = ConversationState(format="Modern", opponent_archetype="Tron")
    arguments = tools.fill_arguments("count_letters", {"word": "tron", "format": "Legacy"}, known, "meta_research")
    assert arguments == {"word": "tron", "format": "Modern"}
    outcome = await tools.run("count_letters", arguments)
    assert outcome.ok and outcome.summary == "tron has 4 letters"
    spec = next(s for s in tools.specs("meta_research") if s["function"]["name"] == "count_letters")
    assert spec["function"]["parameters"]["properties"] == {"word": {"title": "Word", "type": "string"}}
    one = CountOutput(format="Modern", word="a", letters=1)
    assert summarise("count_letters", one) == "a has 1 letters"
    assert state_updates("count_letters", "meta_research", one) == {"archetype": "a"}


def test_get_deck_matchup_stats_serves_meta_research_and_deck_coaching() -> None:
    assert "get_deck_matchup_stats" in workflow_tools("meta_research")
    assert "get_deck_matchup_stats" in workflow_tools("deck_coaching")
    record = WinRate(wins=0, losses=0, draws=0, matches=0, win_rate=None, ci_low=None, ci_high=None, low_sample=True)
    window = {"start": "2025-01-01", "end": "2025-01-30", "days": 30}
    span = {"data_first_date": "2025-01-01", "data_last_date": "2025-01-30", "min_sample": 20, "period": window}
    stats = DeckMatchupStatsOutput(
        format="Modern",
        archetype="Boros Energy",
        meta_share=0,
        overall=record,
        mirror_matches=0,
        matchups=[],
        metadata=PeriodMetadata.model_validate(span),
    )
    assert state_updates("get_deck_matchup_stats", "meta_research", stats) == {}
    assert state_updates("get_deck_matchup_stats", "deck_coaching", stats)["archetype"] == "Boros Energy"
    assert (
        tool_precondition("get_deck_matchup_stats", ConversationState(format="Modern", days=30), "meta_research")
        is None
    )
    assert tool_precondition(
        "get_deck_matchup_stats", ConversationState(format="Modern", days=30), "deck_coaching"
    ) == ("not run yet: your deck's archetype is not confirmed")
    catalog = build_registry().catalog()
    listed = {w.name: [t.name for t in w.tool_details] for w in workflows_with_tools(catalog)}
    assert "get_deck_matchup_stats" in listed["meta_research"] and "get_deck_matchup_stats" in listed["deck_coaching"]


def test_every_tool_serves_a_workflow_and_the_state_fills_only_its_arguments() -> None:
    assert [w.name for w in SHOWN_WORKFLOWS] == list(WORKFLOWS)
    for tool in TOOLS.values():
        assert tool.workflows and set(tool.workflows) <= set(WORKFLOWS), tool.name
        assert set(tool.only_in) <= set(tool.workflows), tool.name
        fields = set(tool.input_model.model_fields)
        for workflow in tool.workflows:
            assert set(tool.state_arguments(workflow)) <= fields, (tool.name, workflow)
            assert all(rule.fetch is None or rule.fetch in TOOLS for rule in tool.rules(workflow)), tool.name
        assert tool.summary is not None, tool.name


def test_answers_find_each_result_by_its_output_model() -> None:
    outputs = [tool.output_model for tool in TOOLS.values()]
    assert len(outputs) == len(set(outputs))  # one tool per output model, so a model names its tool


def test_each_task_plans_only_tools_its_workflow_may_call() -> None:
    llm_choices = LLM_ROUTE_DECISION.model_json_schema()["properties"]["task"]["enum"]
    assert set(llm_choices) == {*TASKS, "none"}  # derived from the records: a new task is one record
    for task in TASKS.values():
        for tool, _ in task.plans:
            assert tool.name in workflow_tools(task.workflow), (task.name, tool.name)
    assert tool_specs.DEFAULT_TASK == {
        "meta_research": "rankings",
        "deck_coaching": "deck_review",
        "cube_draft": "draft_pool",
    }


def test_a_task_is_named_by_the_cues_in_its_record_and_each_workflow_has_one_default() -> None:
    from meta_mage.agent.tasks import DEFAULT_TASK, TASKS, WORKFLOW_TASKS

    for workflow, names in WORKFLOW_TASKS.items():
        if workflow == "clarify":
            continue
        uncued = [name for name in names if not TASKS[name].cues]
        assert uncued == [DEFAULT_TASK[workflow]], workflow  # the one a question that names none gets


def test_a_summary_says_what_the_result_holds_and_the_model_reads_every_row(modern_world: dict[str, Any]) -> None:
    registry, context = modern_world["registry"], modern_world["context"]
    result = MatchupStatsOutput.model_validate(
        registry.call("get_format_matchup_stats", {"format": "Modern", "days": 30, "top_n": 6}, context)
    )
    period = result.metadata.period
    assert summarise("get_format_matchup_stats", result) == (
        f"the top 6 head to head, records of {len(result.archetypes)} archetypes ({period.start} to {period.end})"
    )
    read = for_the_model(result)
    text = json.dumps(read, separators=(",", ":"), ensure_ascii=False)
    assert len(text) <= MODEL_RESULT_BUDGET
    # the grid asked for (top 6) whole; the records of the rest of the field as many as fit, the others counted
    assert read["grid"]["archetypes"] == result.grid.archetypes  # type: ignore[union-attr]
    assert len(read["grid"]["cells"]) == 6 and all(len(row) == 6 for row in read["grid"]["cells"])
    table = read["archetypes"]
    counted = int(table["left_out"].split()[0]) if "left_out" in table else 0
    assert len(table["rows"]) >= 6 and len(table["rows"]) + counted == len(result.archetypes)
