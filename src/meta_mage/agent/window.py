"""The messages a turn reads: this turn's, and the window of earlier ones the model sees."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import cast

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)

from meta_mage.agent import prompts
from meta_mage.agent.words import split_paste


def current_turn(messages: list[AnyMessage]) -> list[AnyMessage]:
    """The messages of the turn in progress: the last human message and everything after it."""
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], HumanMessage):
            return messages[index:]
    return []


def is_tool_traffic(message: BaseMessage) -> bool:
    return isinstance(message, ToolMessage) or (isinstance(message, AIMessage) and bool(message.tool_calls))


def llm_window(messages: list[AnyMessage], size: int) -> list[AnyMessage]:
    """The last ``size`` messages before this turn (questions and answers only, from a question on),
    then this turn."""
    turn = current_turn(messages)
    earlier = [m for m in messages[: len(messages) - len(turn)] if not is_tool_traffic(m)]
    return [*cast(list[AnyMessage], starting_with_a_question(earlier[-size:])), *turn]


# from the first opening quote to the last closing one: a quoted line may hold quote marks of its own
_QUOTED = re.compile(r"“.*”", re.S)
# a markdown table: a run of lines that start with "|" (its rows are names from the data: archetypes, cards, players)
_TABLE = re.compile(r"^[ \t]*\|.*(?:\n[ \t]*\|.*)*", re.M)


def quotes_fenced(text: str) -> str:
    """``text`` with what it quotes (“…”: the player's words, a line the coach could not read, a name) inside a
    data block, as the player's pasted text is."""
    return _QUOTED.sub(lambda quoted: prompts.data_block("quoted", quoted.group(0)), text)


def data_fenced(answer: str) -> str:
    """A coach's earlier answer as the model reads it again: each table (names from the data) inside a data
    block, and what the words between them quote fenced (``quotes_fenced``)."""
    parts, start = [], 0
    for table in _TABLE.finditer(answer):
        parts += [quotes_fenced(answer[start : table.start()]), prompts.data_block("table", table.group(0))]
        start = table.end()
    return "".join([*parts, quotes_fenced(answer[start:])])


def fenced_history(messages: list[AnyMessage], size: int) -> list[BaseMessage]:
    """The window the model reads (``llm_window``), tool traffic left out, each player's message fenced
    (``prompts.player_turn``: a pasted decklist inside a data block) and each answer's tables and quotes fenced."""
    window: list[BaseMessage] = []
    for message in llm_window(messages, size):
        if is_tool_traffic(message):
            continue
        if isinstance(message, HumanMessage):
            words, pasted = split_paste(str(message.content))
            message = HumanMessage(prompts.player_turn(words, pasted), id=message.id)
        elif isinstance(message, AIMessage):
            message = AIMessage(data_fenced(message.text), id=message.id, name=message.name)
        window.append(message)
    return window


def starting_with_a_question(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """``messages`` from the first user message on: Bedrock refuses a conversation that starts with
    the assistant (the /welcome message, or a window cut between a question and its answer)."""
    for index, message in enumerate(messages):
        if isinstance(message, HumanMessage):
            return list(messages[index:])
    return []
