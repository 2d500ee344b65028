"""Generated journeys: whatever order the player gives the deck, the question and the answers to the coach's
questions in, the last answer is the question first asked, about the deck and archetype the player gave."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from meta_mage.agent.conversation import Conversations
from meta_mage.agent.tools import in_process_executor
from meta_mage.api.factory import build_app
from meta_mage.local.chat_client import sse_events
from meta_mage.wiring import coach_from_settings
from tests.agent.conftest import modern_deck, run_turn
from tests.servers import serving

# The journeys share one event loop and one coach: each journey starts its own conversation, as the players of
# one running app do (a loop and a coach per journey cost more than most journeys' turns).
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("frozen_world")]

DECK_TASKS = {  # the question, and the tool whose answer is the answer to it
    "deck_matchups": ("What are my worst matchups?", "get_deck_matchup_stats"),
    "strategy": ("How do I play against Jeskai Blink?", "generate_deck_matchup_strategy"),
    "sideboard guide": ("How should I sideboard against Jeskai Blink?", "generate_deck_matchup_strategy"),
    "optimize_mainboard": ("Which flex slots should I change in my main deck?", "optimize_mainboard"),
    "optimize_sideboard": ("Optimize my sideboard", "optimize_sideboard"),
}
META_TASKS = {
    "rankings": ("What are the top decks?", "get_format_meta_rankings"),
    "matchups": ("How does Boros Energy do against Jeskai Blink?", "get_deck_matchup_stats"),
    "archetype_page": ("What does the stock Boros Energy list look like?", "get_archetype_page"),
}
CARRIES = {"nothing": "", "the format": " in Modern", "format and window": " in Modern over the last 30 days"}
# how the player answers the coach's format and window questions
ANSWERS = {
    "format, then window": ["Modern", "30"],
    "window first": ["last 30 days", "Modern"],
    "both at once": ["Modern, last 30 days"],
}
ORDERS = ("question with the deck", "deck first", "deck, then a detour")


@dataclass(frozen=True)
class Journey:
    task: str
    carries: str
    answers: str
    order: str

    @property
    def id(self) -> str:
        return f"{self.task} | {self.carries} | {self.answers} | {self.order}"


JOURNEYS = [
    Journey(task, carries, answers, order)
    for task, carries, answers, order in itertools.product(DECK_TASKS, CARRIES, ANSWERS, ORDERS)
    if not (carries == "format and window" and answers != "format, then window")  # nothing left to answer
] + [
    Journey(task, carries, answers, "question")
    for task, carries, answers in itertools.product(META_TASKS, CARRIES, ANSWERS)
    if not (carries == "format and window" and answers != "format, then window")
]


def with_carries(question: str, carries: str) -> str:
    return question[:-1] + CARRIES[carries] + "?" if question.endswith("?") else question + CARRIES[carries]


@dataclass
class Reply:
    text: str
    tools: list[str]
    state: dict[str, Any]
    conversation_id: str | None


Send = Callable[[str, "str | None"], Awaitable[Reply]]


def in_process(offline: Conversations) -> Send:
    async def send(message: str, conversation_id: str | None) -> Reply:
        turn = await run_turn(offline, message, conversation_id)
        return Reply(turn.text, turn.tools(), turn.state, turn.conversation_id)

    return send


def over_http(client: httpx.AsyncClient) -> Send:
    async def send(message: str, conversation_id: str | None) -> Reply:
        response = await client.post("/chat", json={"message": message, "conversation_id": conversation_id})
        assert response.status_code == 200, response.text
        reply = Reply("", [], {}, conversation_id)
        for event, data in sse_events(response.text):
            if event == "metadata":
                reply.conversation_id = data["conversation_id"]
            elif event == "content":
                reply.text += data["text"]
            elif event == "tool_call" and data["status"] == "calling":
                reply.tools.append(data["tool"])
            elif event == "state":
                reply.state = data
        return reply

    return send


async def play(send: Send, journey: Journey) -> Reply:
    """Run the journey; answer whatever the coach asks; return the last turn."""
    deck, _ = modern_deck("Boros Energy")
    question, _tool = DECK_TASKS.get(journey.task) or META_TASKS[journey.task]
    question = with_carries(question, journey.carries)
    if journey.order == "question":
        opening = [question]
    elif journey.order == "question with the deck":
        opening = [f"{question}\n{deck}"]
    elif journey.order == "deck first":
        opening = [deck, question]
    else:  # the deck, a question about something else answered in between, then the deck's question
        opening = [deck, "what are the top decks in Modern over the last 14 days?", f"back to my deck: {question}"]
    answers = list(ANSWERS[journey.answers])
    reply = Reply("", [], {}, None)
    sent = list(opening)
    for _ in range(10):
        reply = await send(sent.pop(0), reply.conversation_id)
        if sent:
            continue
        text = reply.text
        if "Is that right?" in text:
            sent.append("yes, that's my deck")
        elif ("Which format" in text or "How many days" in text) and answers:
            sent.append(answers.pop(0))
        elif "Which format" in text or "How many days" in text:
            sent.append("Modern" if "Which format" in text else "30")
        else:
            break
    return reply


def check(journey: Journey, reply: Reply) -> None:
    _question, tool = DECK_TASKS.get(journey.task) or META_TASKS[journey.task]
    assert tool in reply.tools, f"{journey.id}: ended with {reply.tools}: {reply.text[:300]}"
    if journey.task in DECK_TASKS:
        assert (reply.state.get("format"), reply.state.get("archetype")) == ("Modern", "Boros Energy"), reply.state
        if journey.task in ("strategy", "sideboard guide"):
            assert "**Boros Energy vs Jeskai Blink**" in reply.text


@pytest.fixture(scope="module")
def coach(modern_world: dict[str, Any]) -> Conversations:
    """The coach in offline mode over the Modern world, its tools in process."""
    executor = in_process_executor(modern_world["registry"], modern_world["context"])
    return coach_from_settings(modern_world["settings"], dynamodb=modern_world["db"], executor=executor)


@pytest.mark.parametrize("journey", JOURNEYS, ids=[j.id for j in JOURNEYS])
async def test_the_last_answer_is_the_question_first_asked(coach: Conversations, journey: Journey) -> None:
    check(journey, await play(in_process(coach), journey))


def each_task_and_opening() -> list[Journey]:
    """One journey per task and opening order, the carried words and the answers taken in turn."""
    pairs = dict.fromkeys((j.task, j.order) for j in JOURNEYS)
    return [[j for j in JOURNEYS if (j.task, j.order) == pair][n % 7] for n, pair in enumerate(pairs)]


OVER_HTTP = each_task_and_opening()  # through /chat on real uvicorn


async def test_journeys_over_http(modern_world: dict[str, Any]) -> None:
    # every task, opening, carried words and answer style goes through HTTP at least once
    for factor in ("task", "carries", "answers", "order"):
        assert {getattr(j, factor) for j in OVER_HTTP} == {getattr(j, factor) for j in JOURNEYS}, factor
    with serving(build_app(modern_world["settings"], modern_world["db"])) as url:
        async with httpx.AsyncClient(base_url=url, timeout=60) as client:
            for journey in OVER_HTTP:
                check(journey, await play(over_http(client), journey))
