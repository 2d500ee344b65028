"""A scripted, streaming fake chat model with tool calling, for tests and benchmarks.

langchain-core's GenericFakeChatModel neither binds tools nor streams tool calls; this subclass
does both, records what it was sent, and can raise to imitate a failing provider. Like Bedrock's
Converse API, it refuses a conversation whose first message after the system prompt is not the user's.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

from meta_mage.models.json import JsonObject

Reply = AIMessage | str | BaseException | Callable[[list[BaseMessage], list[str]], "AIMessage | str"]


class ScriptedChatModel(GenericFakeChatModel):
    """Answers each call with the next script item: a message, text, an exception to raise, or a
    function of (messages, bound tool names) returning a message."""

    calls: list[JsonObject] = Field(default_factory=list)

    @classmethod
    def of(cls, *script: Reply) -> ScriptedChatModel:
        return cls(messages=iter(script))  # type: ignore[arg-type]

    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any
    ) -> Runnable[LanguageModelInput, AIMessage]:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        tool_names = [t["function"]["name"] for t in kwargs.get("tools") or []]
        self.calls.append({"messages": list(messages), "tools": tool_names})
        first = next((m for m in messages if not isinstance(m, SystemMessage)), None)
        if not isinstance(first, HumanMessage):
            raise ValueError("ValidationException: A conversation must start with a user message.")
        item: Any = next(self.messages)
        if isinstance(item, BaseException):
            raise item
        if callable(item):
            item = item(list(messages), tool_names)
        message = AIMessage(content=item) if isinstance(item, str) else item
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        message = self._generate(messages, stop, run_manager, **kwargs).generations[0].message
        assert isinstance(message, AIMessage)
        message_id = message.id or f"run-{uuid.uuid4().hex[:8]}"
        for token in re.split(r"(\s)", str(message.content)):
            if token:
                yield ChatGenerationChunk(message=AIMessageChunk(content=token, id=message_id))
        if message.tool_calls:
            chunks = [
                {
                    "name": call["name"],
                    "args": json.dumps(call["args"]),
                    "id": call.get("id"),
                    "index": index,
                    "type": "tool_call_chunk",
                }
                for index, call in enumerate(message.tool_calls)
            ]
            yield ChatGenerationChunk(message=AIMessageChunk(content="", id=message_id, tool_call_chunks=chunks))  # type: ignore[arg-type]

    @property
    def _llm_type(self) -> str:
        return "scripted-fake-chat-model"


def tool_call(name: str, **arguments: Any) -> AIMessage:
    """A model reply that calls one tool."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": arguments, "id": f"call-{uuid.uuid4().hex[:8]}"}])


def route(workflow: str, task: str = "none", confidence: float = 0.9, **slots: Any) -> AIMessage:
    """A router reply: the RouteDecision structured output as the model returns it (a tool call)."""
    return tool_call("RouteDecision", workflow=workflow, task=task, confidence=confidence, **slots)
