"""Running tools: the cooperative deadline stops a tool (not only the wait for it), and CPU-heavy
tools run at most ``cpu_slots`` at once without holding up the I/O-bound ones."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
import time
import traceback
from typing import Any

import pytest
from mcp.shared.memory import create_connected_server_and_client_session
from pydantic import BaseModel, ConfigDict

from meta_mage.agent.tools import AgentTools, in_process_executor
from meta_mage.config import Settings
from meta_mage.deadline import ToolTimeout, check_deadline, current_deadline, deadline
from meta_mage.decks.enrich import enrich_deck
from meta_mage.mcp.server import build_mcp_server
from meta_mage.models.cards import Card
from meta_mage.storage.cards import CardsRepository
from meta_mage.tools.context import ToolContext
from meta_mage.tools.registry import Tool, ToolRegistry
from meta_mage.tools.runner import run_tool
from meta_mage.wiring import Wiring


class NoArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Work:
    """A registry tool whose body the test controls: it runs until ``release`` is set (checking the
    deadline as a long loop does), and counts the calls running at once."""

    def __init__(self, name: str, *, cpu_heavy: bool, seconds: float | None = None) -> None:
        self.seconds = seconds  # None: until released or stopped by the deadline
        self.release = threading.Event()
        self.started = threading.Event()
        self.stopped = threading.Event()
        self.running = 0
        self.most_at_once = 0
        self._lock = threading.Lock()
        self.tool = Tool(name, f"test tool {name}", NoArguments, NoArguments, self.run, cpu_heavy=cpu_heavy)

    def run(self, context: ToolContext, params: Any) -> NoArguments:
        with self._lock:
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
        self.started.set()
        try:
            end = None if self.seconds is None else time.monotonic() + self.seconds
            while not self.release.is_set() and (end is None or time.monotonic() < end):
                check_deadline()
                time.sleep(0.002)
            return NoArguments()
        finally:
            with self._lock:
                self.running -= 1
            self.stopped.set()


@pytest.fixture()
def context(settings: Settings, dynamodb: Any) -> ToolContext:
    return Wiring(settings, dynamodb).tool_context


@pytest.fixture()
def cards(dynamodb: Any) -> CardsRepository:
    repository = CardsRepository(dynamodb.Table("meta-mage-cards"))
    repository.put_cards([Card(name="Lightning Bolt", mana_cost="{R}", cmc=1, type_line="Instant")])
    return repository


# --- the deadline -----------------------------------------------------------------------------------


def test_a_passed_deadline_stops_enrich_inside_its_matching_loop(cards: CardsRepository) -> None:
    with deadline(0, "get_enriched_deck"):
        # exact names need no matching loop, so nothing checks the deadline
        assert enrich_deck("4 Lightning Bolt", cards).counts["mainboard"] == 4
        with pytest.raises(ToolTimeout) as error:
            enrich_deck("4 Lightning Bolt\n1 Lightnig Blot\n1 Xyzzy Plugh", cards)
    assert error.value.message == "get_enriched_deck did not answer within 0 seconds"
    frames = [frame.name for frame in traceback.extract_tb(error.value.__traceback__)]
    assert frames[-2:] == ["_corrections", "check_deadline"]  # the matching loop of enrich_deck
    assert error.value.code == "tool_timeout"


def test_the_sooner_deadline_wins_and_none_keeps_the_current_one() -> None:
    assert current_deadline() is None
    check_deadline()  # no deadline: nothing to check
    with deadline(10, "outer") as outer:
        with deadline(60, "inner") as later:
            assert later is outer
        with deadline(1, "inner") as sooner:
            assert sooner is not None and sooner.message == "inner did not answer within 1 second"
            assert current_deadline() is sooner
        with deadline(None, "same") as same:
            assert same is outer
        assert current_deadline() is outer
    assert current_deadline() is None


# --- the executors ----------------------------------------------------------------------------------


async def test_the_agent_reports_a_timeout_and_the_tool_thread_stops(context: ToolContext) -> None:
    # Given a tool that would run for ever, and an agent whose tool timeout is 0.2 s
    work = Work("spin", cpu_heavy=True)
    registry = ToolRegistry([work.tool])
    tools = AgentTools(registry, in_process_executor(registry, context), timeout_seconds=0.2)
    # When the agent calls it
    started = time.monotonic()
    outcome = await tools.run("spin", {})
    # Then the outcome is the honest sentence, on time
    assert outcome.error == outcome.summary == "spin did not answer within 0.2 seconds"
    assert time.monotonic() - started < 2
    # And the worker thread stopped by itself (nothing else ends the loop)
    assert await asyncio.to_thread(work.stopped.wait, 2)
    assert not work.release.is_set()


async def test_the_mcp_server_answers_a_timeout_as_a_tool_error_and_the_tool_stops(context: ToolContext) -> None:
    work = Work("spin", cpu_heavy=False)
    quick = dataclasses.replace(context, timeout_seconds=0.2)
    server = build_mcp_server(ToolRegistry([work.tool]), lambda: quick)
    async with create_connected_server_and_client_session(server) as client:
        result = await client.call_tool("spin", {})
    assert result.isError
    assert json.loads(result.content[0].text) == {  # type: ignore[union-attr]
        "error": "tool_timeout",
        "message": "spin did not answer within 0.2 seconds",
    }
    assert await asyncio.to_thread(work.stopped.wait, 2)


async def test_a_call_waiting_for_a_cpu_slot_past_its_deadline_never_starts(context: ToolContext) -> None:
    hold, late = Work("hold", cpu_heavy=True), Work("late", cpu_heavy=True)
    registry = ToolRegistry([hold.tool, late.tool])
    one_slot = dataclasses.replace(context, cpu_slots=1)
    holding = asyncio.create_task(run_tool(registry, "hold", {}, one_slot))
    try:
        assert await asyncio.to_thread(hold.started.wait, 2)
        with pytest.raises(ToolTimeout) as error:
            await run_tool(registry, "late", {}, one_slot, timeout_seconds=0.1)
        assert error.value.message == "late did not answer within 0.1 seconds"
    finally:
        hold.release.set()
    await holding
    await asyncio.sleep(0.1)  # the slot is free now: a queued call would have started
    assert not late.started.is_set()


# --- the CPU limit ----------------------------------------------------------------------------------


async def test_cpu_heavy_calls_run_at_most_cpu_slots_at_once(context: ToolContext) -> None:
    heavy, light = Work("heavy", cpu_heavy=True, seconds=0.2), Work("light", cpu_heavy=False, seconds=0.2)
    registry = ToolRegistry([heavy.tool, light.tool])
    two_slots = dataclasses.replace(context, cpu_slots=2)
    await asyncio.gather(*(run_tool(registry, "heavy", {}, two_slots) for _ in range(6)))
    assert heavy.most_at_once == 2
    await asyncio.gather(*(run_tool(registry, "light", {}, two_slots) for _ in range(4)))
    assert light.most_at_once == 4  # I/O-bound tools are not under the CPU limit


async def test_io_tools_answer_while_every_cpu_slot_is_taken(context: ToolContext) -> None:
    # Given both CPU slots busy and more CPU-heavy calls queued behind them
    busy, light = Work("busy", cpu_heavy=True), Work("light", cpu_heavy=False, seconds=0)
    registry = ToolRegistry([busy.tool, light.tool])
    two_slots = dataclasses.replace(context, cpu_slots=2)
    queued = [asyncio.create_task(run_tool(registry, "busy", {}, two_slots)) for _ in range(6)]
    try:
        assert await asyncio.to_thread(busy.started.wait, 2)
        await asyncio.sleep(0.05)
        assert busy.running == 2
        # When an I/O-bound tool is called, it answers at once
        started = time.monotonic()
        assert (await run_tool(registry, "light", {}, two_slots)).model_dump() == {}
        assert time.monotonic() - started < 1
        assert busy.running == 2 and not any(task.done() for task in queued)
    finally:
        busy.release.set()
    await asyncio.gather(*queued)
