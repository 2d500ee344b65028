"""``meta-mage bedrock-check``: is the configured Bedrock model usable, end to end?

Three steps, each one line: the model or inference profile is visible to these credentials in this region
(Bedrock's control plane), one streamed coach answer goes through it (a planned tool call, the model's answer
checked sentence by sentence, the ``grounding`` event), and what it cost (time to the first word, model requests,
tokens). Nothing is written but the conversation of that one turn.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import UsageMetadataCallbackHandler
from langchain_core.tracers.context import register_configure_hook

from meta_mage.agent.conversation import Conversations
from meta_mage.bedrock import BEDROCK_ERRORS, bedrock_error_reason, model_access
from meta_mage.models.json import JsonObject

QUESTION = "What are the top decks in {format} over the last 30 days?"


@dataclass
class CheckReport:
    """What the check found: one line per step, and whether every step passed."""

    lines: list[str] = field(default_factory=list)
    ok: bool = True

    def passed(self, line: str) -> None:
        self.lines.append(f"✓ {line}")

    def failed(self, line: str) -> None:
        self.lines.append(f"✗ {line}")
        self.ok = False


class ModelRequests(UsageMetadataCallbackHandler):
    """Counts the chat model requests of a turn, and adds up their tokens (LangChain's usage callback)."""

    def __init__(self) -> None:
        super().__init__()
        self.requests = 0

    def on_chat_model_start(self, serialized: JsonObject, messages: Any, **kwargs: Any) -> None:
        self.requests += 1


_counting: ContextVar[ModelRequests | None] = ContextVar("meta_mage_model_requests", default=None)
register_configure_hook(_counting, inheritable=True)  # every model call under the ContextVar reports to it


@dataclass
class Timing:
    started: float = field(default_factory=time.perf_counter)
    first_word: float | None = None

    def word(self) -> None:
        if self.first_word is None:
            self.first_word = time.perf_counter() - self.started


async def streamed_answer(
    conversations: Conversations, question: str, report: CheckReport, write: Callable[[str], None]
) -> None:
    """One turn through the coach and its model: the answer as it streams, then what it cost."""
    timing, counter = Timing(), ModelRequests()
    tools: list[str] = []
    seen: dict[str, JsonObject] = {}
    token = _counting.set(counter)
    try:
        async for event in conversations.turn(question, None, None):
            if event.event == "content":
                timing.word()
                write(event.data["text"])
            elif event.event == "tool_call" and event.data.get("status") == "complete":
                tools.append(f"{event.data['tool']} ({event.data.get('summary', '')})")
            elif event.event in ("grounding", "error") or "unavailable" in str(event.data.get("content", "")):
                seen[event.event] = event.data
    finally:
        _counting.reset(token)
    write("\n")
    _judge(report, tools, seen)
    used = list(counter.usage_metadata.values())
    tokens_in = sum(u.get("input_tokens", 0) for u in used)
    tokens_out = sum(u.get("output_tokens", 0) for u in used)
    report.passed(
        f"first word after {timing.first_word or 0:.2f} s, whole answer {time.perf_counter() - timing.started:.2f} s; "
        f"{counter.requests} model request(s), {tokens_in} tokens in, {tokens_out} out"
    )


def _judge(report: CheckReport, tools: list[str], seen: dict[str, JsonObject]) -> None:
    problem = seen.get("error") or seen.get("thinking")
    if problem is not None:
        report.failed(f"the model did not answer: {problem.get('message') or problem.get('content')}")
        return
    report.passed(f"tools: {'; '.join(tools) or 'none'}")
    grounding = seen.get("grounding")
    if grounding is None:
        report.failed("no grounding event: the answer was not the model's")
        return
    misses = grounding.get("unmatched", [])
    said = ", ".join(f"{m['figure']} ({m['kind']})" for m in misses)
    report.passed(f"grounding: {'every figure matched the data' if not misses else 'marked ' + said}")


def model_line(bedrock: Any, model_id: str, report: CheckReport) -> bool:
    """The model-access step: its line, and whether the answer step should run."""
    try:
        report.passed(model_access(bedrock, model_id))
        return True
    except BEDROCK_ERRORS as exc:
        report.failed(f"{model_id} is not usable here: {bedrock_error_reason(exc)}")
        return False
