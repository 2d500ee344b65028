"""The loopback Bedrock Runtime, driven by botocore, boto3 and langchain_aws as production drives Bedrock."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

import httpx
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.eventstream import ChecksumMismatch, EventStreamBuffer
from botocore.exceptions import BotoCoreError, ClientError, EventStreamError, ReadTimeoutError
from botocore.retries.standard import ExponentialBackoff
from langchain_aws import ChatBedrockConverse
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import BaseModel, Field
from urllib3.exceptions import ProtocolError

from meta_mage.bedrock import BedrockText
from tests.bedrock_loopback import (
    DEFAULT_MODEL_ID,
    ConnectionCut,
    Fault,
    LoopbackBedrock,
    ModelStreamError,
    Reply,
    ServiceUnavailable,
    SlowFirstByte,
    Text,
    Throttling,
    ToolCall,
    bedrock_runtime_client,
    running_bedrock,
)
from tests.bedrock_loopback.eventstream import encode_event, encode_exception

QUESTION = [{"role": "user", "content": [{"text": "How is Affinity doing in Modern?"}]}]
SINGLE_ATTEMPT = Config(retries={"total_max_attempts": 1})


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, LoopbackBedrock]]:
    with running_bedrock() as served:
        yield served


@pytest.fixture()
def bedrock(served: tuple[str, LoopbackBedrock]) -> LoopbackBedrock:
    """The module's loopback, its script and record emptied."""
    loopback = served[1]
    loopback.script.clear()
    loopback.requests.clear()
    return loopback


@pytest.fixture()
def url(served: tuple[str, LoopbackBedrock]) -> str:
    return served[0]


@pytest.fixture()
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """botocore's standard retries (3 attempts) without their sleeps."""
    monkeypatch.delenv("AWS_RETRY_MODE", raising=False)
    monkeypatch.delenv("AWS_MAX_ATTEMPTS", raising=False)
    monkeypatch.setattr(ExponentialBackoff, "delay_amount", lambda self, context: 0.0)


def stream_events(client: Any, **request: Any) -> list[dict[str, Any]]:
    response = client.converse_stream(modelId=DEFAULT_MODEL_ID, **request)
    return list(response["stream"])


def streamed_text(events: list[dict[str, Any]]) -> str:
    return "".join(
        event["contentBlockDelta"]["delta"].get("text", "") for event in events if "contentBlockDelta" in event
    )


def streamed_tool_calls(events: list[dict[str, Any]]) -> list[tuple[str, str, dict[str, Any]]]:
    """(id, name, input) of each streamed toolUse block, its input fragments joined."""
    starts = {
        e["contentBlockStart"]["contentBlockIndex"]: e["contentBlockStart"]["start"]["toolUse"]
        for e in events
        if "contentBlockStart" in e
    }
    fragments: dict[int, str] = {}
    for event in events:
        delta = event.get("contentBlockDelta")
        if delta and "toolUse" in delta["delta"]:
            index = delta["contentBlockIndex"]
            fragments[index] = fragments.get(index, "") + delta["delta"]["toolUse"]["input"]
    return [(start["toolUseId"], start["name"], json.loads(fragments[index])) for index, start in starts.items()]


def test_eventstream_messages_decode_with_botocore() -> None:
    messages = [
        encode_event("messageStart", {"role": "assistant"}),
        encode_event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Ragavan, Nimble Pilferer ✓"}}),
        encode_exception("modelStreamErrorException", {"message": "boom", "originalStatusCode": 500}),
    ]
    decoder = EventStreamBuffer()
    wire = b"".join(messages)
    for start in range(0, len(wire), 7):
        decoder.add_data(wire[start : start + 7])
    decoded: list[Any] = list(decoder)

    assert [m.headers for m in decoded] == [
        {":event-type": "messageStart", ":content-type": "application/json", ":message-type": "event"},
        {":event-type": "contentBlockDelta", ":content-type": "application/json", ":message-type": "event"},
        {
            ":exception-type": "modelStreamErrorException",
            ":content-type": "application/json",
            ":message-type": "exception",
        },
    ]
    assert json.loads(decoded[1].payload)["delta"]["text"] == "Ragavan, Nimble Pilferer ✓"
    assert decoded[2].to_response_dict()["status_code"] == 400

    corrupted = bytearray(messages[0])
    corrupted[-6] ^= 0xFF
    decoder = EventStreamBuffer()
    decoder.add_data(bytes(corrupted))
    with pytest.raises(ChecksumMismatch):
        list(decoder)


def test_converse_stream_streams_text_and_tool_calls(url: str, bedrock: LoopbackBedrock) -> None:
    bedrock.script.append(
        Reply(
            Text("Affinity is a tier-two deck; let me check the latest results."),
            ToolCall("search_decks", {"archetype": "Affinity", "format": "modern", "limit": 5}),
            ToolCall("card_price", {"card": "Urza's Saga"}, id="tooluse_saga"),
        )
    )
    events = stream_events(bedrock_runtime_client(url), messages=QUESTION, inferenceConfig={"maxTokens": 1024})

    assert streamed_text(events) == "Affinity is a tier-two deck; let me check the latest results."
    assert sum("text" in e.get("contentBlockDelta", {}).get("delta", {}) for e in events) > 1
    calls = streamed_tool_calls(events)
    assert [(name, arguments) for _, name, arguments in calls] == [
        ("search_decks", {"archetype": "Affinity", "format": "modern", "limit": 5}),
        ("card_price", {"card": "Urza's Saga"}),
    ]
    assert calls[1][0] == "tooluse_saga"
    assert sum("toolUse" in e.get("contentBlockDelta", {}).get("delta", {}) for e in events) > 2
    assert list(events[0]) == ["messageStart"] and events[0]["messageStart"] == {"role": "assistant"}
    assert events[-2] == {"messageStop": {"stopReason": "tool_use"}}
    usage = events[-1]["metadata"]["usage"]
    assert usage["totalTokens"] == usage["inputTokens"] + usage["outputTokens"] > 0
    assert "latencyMs" in events[-1]["metadata"]["metrics"]

    (request,) = bedrock.requests
    assert request.valid and request.operation == "ConverseStream"
    assert request.path == f"/model/{quote(DEFAULT_MODEL_ID, safe='')}/converse-stream"
    assert request.model_id == DEFAULT_MODEL_ID
    assert "/us-east-1/bedrock/aws4_request" in request.headers["authorization"]
    assert request.body == {"messages": QUESTION, "inferenceConfig": {"maxTokens": 1024}}
    assert bedrock.script == []


def test_converse_answers_the_next_reply(url: str, bedrock: LoopbackBedrock) -> None:
    bedrock.script += [
        [Text("First, streamed.")],
        Reply(Text("Second, whole and cut short"), stop_reason="max_tokens"),
    ]
    client = bedrock_runtime_client(url)
    assert streamed_text(stream_events(client, messages=QUESTION)) == "First, streamed."
    response = client.converse(modelId=DEFAULT_MODEL_ID, messages=QUESTION, system=[{"text": "You coach Magic."}])

    assert response["output"]["message"] == {"role": "assistant", "content": [{"text": "Second, whole and cut short"}]}
    assert response["stopReason"] == "max_tokens"
    assert response["usage"]["outputTokens"] == 7
    assert [(r.operation, r.valid) for r in bedrock.requests] == [("ConverseStream", True), ("Converse", True)]
    assert bedrock.bodies[1]["system"] == [{"text": "You coach Magic."}]


@dataclass(frozen=True)
class BadRequest:
    """A request Bedrock refuses; ``via`` is how it is sent (boto3 with client-side validation off, or raw)."""

    body: dict[str, Any]
    expected_message: str
    region: str = "us-east-1"
    model_id: str = DEFAULT_MODEL_ID
    via: Literal["boto3", "signed", "unsigned"] = "boto3"


def _tool_spec(name: str = "search_decks", schema: Any = None) -> dict[str, Any]:
    return {"toolSpec": {"name": name, "inputSchema": {"json": schema or {"type": "object", "properties": {}}}}}


TOOLS = {"tools": [_tool_spec()]}


def _asked(*tool_use_ids: str) -> dict[str, Any]:
    uses = [{"toolUse": {"toolUseId": i, "name": "search_decks", "input": {}}} for i in tool_use_ids]
    return {"role": "assistant", "content": uses}


def _answered(*tool_use_ids: str) -> dict[str, Any]:
    results = [{"toolResult": {"toolUseId": i, "content": [{"text": "2 wins"}]}} for i in tool_use_ids]
    return {"role": "user", "content": results}


ASSISTANT = {"role": "assistant", "content": [{"text": "Affinity is doing fine."}]}

BAD_REQUESTS = {
    "wrong_region_in_credential_scope": BadRequest(
        {"messages": QUESTION}, "scoped to a valid region", region="us-west-2"
    ),
    "missing_authorization": BadRequest({"messages": QUESTION}, "Missing Authentication Token", via="unsigned"),
    "wrong_model_id": BadRequest(
        {"messages": QUESTION}, "model identifier is invalid", model_id="anthropic.claude-3-haiku-20240307-v1:0"
    ),
    "assistant_first": BadRequest({"messages": [ASSISTANT, *QUESTION]}, "must start with a user message"),
    "two_user_messages_in_a_row": BadRequest({"messages": [*QUESTION, *QUESTION]}, "must alternate"),
    "tool_use_left_unanswered": BadRequest(
        {"messages": [*QUESTION, _asked("tooluse_a", "tooluse_b"), _answered("tooluse_a")], "toolConfig": TOOLS},
        "Ids: tooluse_b",
    ),
    "tool_result_with_unknown_id": BadRequest(
        {"messages": [*QUESTION, _asked("tooluse_a"), _answered("tooluse_a", "tooluse_zz")], "toolConfig": TOOLS},
        "did not ask for: tooluse_zz",
    ),
    "tool_blocks_without_tool_config": BadRequest(
        {"messages": [*QUESTION, _asked("tooluse_a"), _answered("tooluse_a")]}, "toolConfig field must be defined"
    ),
    "bad_tool_name": BadRequest(
        {"messages": QUESTION, "toolConfig": {"tools": [_tool_spec("search decks!")]}}, "regular expression pattern"
    ),
    "non_object_input_schema": BadRequest(
        {"messages": QUESTION, "toolConfig": {"tools": [_tool_spec(schema={"type": "string"})]}},
        "inputSchema.json.type must be one of the following: object",
    ),
    "blank_text_block": BadRequest({"messages": [{"role": "user", "content": [{"text": "  \n"}]}]}, "is blank"),
    "system_not_a_list_of_text_blocks": BadRequest(
        {"messages": QUESTION, "system": "You coach Magic."}, "system must be a list", via="signed"
    ),
    "max_tokens_over_the_limit": BadRequest(
        {"messages": QUESTION, "inferenceConfig": {"maxTokens": 64_001}}, "exceeds the model limit of 64000"
    ),
}


def send_bad_request(url: str, request: BadRequest) -> tuple[int, str, str]:
    """Send ``request``; return the HTTP status, error type and message it got."""
    if request.via == "boto3":
        client = bedrock_runtime_client(
            url, request.region, Config(parameter_validation=False, retries={"total_max_attempts": 1})
        )
        with pytest.raises(ClientError) as refused:
            client.converse_stream(modelId=request.model_id, **request.body)
        error = refused.value.response
        return error["ResponseMetadata"]["HTTPStatusCode"], error["Error"]["Code"], error["Error"]["Message"]
    path = f"/model/{quote(request.model_id, safe='')}/converse-stream"
    body = json.dumps(request.body).encode()
    headers = {"Content-Type": "application/json"}
    if request.via == "signed":
        signed = AWSRequest(method="POST", url=url + path, data=body, headers=headers)
        SigV4Auth(Credentials("testing", "testing"), "bedrock", request.region).add_auth(signed)
        headers = dict(signed.headers.items())
    response = httpx.post(url + path, content=body, headers=headers)
    return response.status_code, response.headers["x-amzn-ErrorType"], response.json()["message"]


@pytest.mark.parametrize("request_", BAD_REQUESTS.values(), ids=BAD_REQUESTS.keys())
def test_bad_request_is_refused_with_validation_exception(
    url: str, bedrock: LoopbackBedrock, request_: BadRequest
) -> None:
    bedrock.script.append(Reply(Text("Never sent.")))

    status, error_type, message = send_bad_request(url, request_)

    assert (status, error_type) == (400, "ValidationException")
    assert request_.expected_message in message
    assert [(r.valid, r.error) for r in bedrock.requests] == [(False, message)]
    assert len(bedrock.script) == 1


RETRIED_FAULTS = {
    "throttling": (Throttling(), "ThrottlingException", 429),
    "service_unavailable": (ServiceUnavailable(), "ServiceUnavailableException", 503),
}


@pytest.mark.parametrize(
    ("config", "attempts"),
    [(SINGLE_ATTEMPT, 1), (Config(retries={"max_attempts": 1}), 2), (Config(), 3)],
    ids=["total_max_attempts_1", "max_attempts_1_is_one_retry", "default_standard_mode"],
)
@pytest.mark.parametrize(("fault", "code", "status"), RETRIED_FAULTS.values(), ids=RETRIED_FAULTS.keys())
@pytest.mark.usefixtures("no_backoff")
def test_retried_fault_raises_after_the_retries(
    url: str, bedrock: LoopbackBedrock, fault: Fault, code: str, status: int, config: Config, attempts: int
) -> None:
    bedrock.script += [fault] * 3
    client = bedrock_runtime_client(url, config=config)

    with pytest.raises(ClientError) as failed:
        client.converse_stream(modelId=DEFAULT_MODEL_ID, messages=QUESTION)

    assert failed.value.response["Error"]["Code"] == code
    assert failed.value.response["ResponseMetadata"]["HTTPStatusCode"] == status
    assert failed.value.response["ResponseMetadata"]["RetryAttempts"] == attempts - 1
    assert len(bedrock.requests) == attempts
    assert all(r.valid for r in bedrock.requests)


@pytest.mark.parametrize("fault", [Throttling(), ServiceUnavailable()], ids=["throttling", "service_unavailable"])
@pytest.mark.usefixtures("no_backoff")
def test_retried_fault_then_the_reply(url: str, bedrock: LoopbackBedrock, fault: Fault) -> None:
    bedrock.script += [fault, Reply(Text("Worth the wait."))]
    response = bedrock_runtime_client(url).converse_stream(modelId=DEFAULT_MODEL_ID, messages=QUESTION)

    assert response["ResponseMetadata"]["RetryAttempts"] == 1
    assert streamed_text(list(response["stream"])) == "Worth the wait."
    assert [r.turn for r in bedrock.requests] == [fault, Reply(Text("Worth the wait."))]


def test_model_stream_error_surfaces_mid_stream(url: str, bedrock: LoopbackBedrock) -> None:
    bedrock.script.append(ModelStreamError(Reply(Text("Affinity put up two top-8 finishes")), after_events=3))
    response = bedrock_runtime_client(url, config=SINGLE_ATTEMPT).converse_stream(
        modelId=DEFAULT_MODEL_ID, messages=QUESTION
    )
    received: list[dict[str, Any]] = []

    with pytest.raises(EventStreamError) as broken:
        received.extend(response["stream"])

    assert broken.value.response["Error"]["Code"] == "modelStreamErrorException"
    assert [next(iter(event)) for event in received] == ["messageStart", "contentBlockDelta", "contentBlockDelta"]


def test_connection_cut_mid_stream_raises(url: str, bedrock: LoopbackBedrock) -> None:
    bedrock.script.append(ConnectionCut(Reply(Text("Affinity put up two top-8 finishes this weekend."))))
    response = bedrock_runtime_client(url, config=SINGLE_ATTEMPT).converse_stream(
        modelId=DEFAULT_MODEL_ID, messages=QUESTION
    )
    received: list[dict[str, Any]] = []

    with pytest.raises((ProtocolError, BotoCoreError)):
        received.extend(response["stream"])

    assert 0 < len(received) < 10
    assert not any("messageStop" in event for event in received)


def test_connection_cut_in_converse_gives_an_empty_response(url: str, bedrock: LoopbackBedrock) -> None:
    """botocore reads with enforce_content_length=False: a truncated Converse body parses to nothing."""
    bedrock.script.append(ConnectionCut())
    response = bedrock_runtime_client(url, config=SINGLE_ATTEMPT).converse(modelId=DEFAULT_MODEL_ID, messages=QUESTION)

    assert "output" not in response


def test_slow_first_byte_delays_the_answer(url: str, bedrock: LoopbackBedrock) -> None:
    bedrock.script += [SlowFirstByte(0.3, Reply(Text("Eventually."))), SlowFirstByte(0.5)]
    client = bedrock_runtime_client(url, config=Config(read_timeout=0.1, retries={"total_max_attempts": 1}))
    patient_client = bedrock_runtime_client(url)

    started = time.monotonic()
    assert streamed_text(stream_events(patient_client, messages=QUESTION)) == "Eventually."
    assert time.monotonic() - started >= 0.3
    with pytest.raises(ReadTimeoutError):
        client.converse_stream(modelId=DEFAULT_MODEL_ID, messages=QUESTION)
    # the abandoned request is recorded by the server when it gets to it (late on a loaded machine): wait for it
    # here, so it is not counted in the next test's record
    deadline = time.monotonic() + 60
    while len(bedrock.requests) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(bedrock.requests) == 2


def test_exhausted_script_is_an_error_botocore_does_not_retry(url: str, bedrock: LoopbackBedrock) -> None:
    with pytest.raises(ClientError) as exhausted:
        bedrock_runtime_client(url).converse(modelId=DEFAULT_MODEL_ID, messages=QUESTION)

    assert exhausted.value.response["Error"]["Code"] == "LoopbackScriptExhausted"
    # a 400 that is not throttling is not retried (botocore's standard mode): one Converse request
    assert [request.operation for request in bedrock.requests] == ["Converse"]


def test_endpoint_from_the_environment_serves_bedrock_text(
    url: str, bedrock: LoopbackBedrock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", url)
    bedrock.script.append(Reply(Text("Welcome, planeswalker.")))

    reply = BedrockText(DEFAULT_MODEL_ID, max_tokens=400, temperature=0.2).invoke("Greet the user.")

    assert reply.content == "Welcome, planeswalker."
    (request,) = bedrock.requests
    assert request.valid and request.operation == "Converse"
    assert request.body["inferenceConfig"] == {"maxTokens": 400, "temperature": 0.2}


class search_decks(BaseModel):
    """Find recent tournament decks of an archetype."""

    archetype: str = Field(description="Archetype name, e.g. Affinity")
    format: str = "modern"


def chat_model(url: str) -> ChatBedrockConverse:
    return ChatBedrockConverse(
        model=DEFAULT_MODEL_ID,
        region_name="us-east-1",
        client=bedrock_runtime_client(url),
        max_tokens=2048,
        temperature=0.2,
    )


async def streamed_message(model: Any, messages: list[BaseMessage]) -> AIMessageChunk:
    chunks = [chunk async for chunk in model.astream(messages)]
    message: AIMessageChunk = sum(chunks[1:], chunks[0])
    return message


async def test_langchain_tool_call_round_trip(url: str, bedrock: LoopbackBedrock) -> None:
    bedrock.script += [
        Reply(Text("Let me look that up."), ToolCall("search_decks", {"archetype": "Affinity"})),
        Reply(Text("Affinity took two top-8 slots.")),
    ]
    model = chat_model(url).bind_tools([search_decks])
    messages: list[BaseMessage] = [SystemMessage("You coach Magic."), HumanMessage("How is Affinity doing?")]

    asking = await streamed_message(model, messages)
    (call,) = asking.tool_calls
    assert (call["name"], call["args"]) == ("search_decks", {"archetype": "Affinity"})
    messages += [asking, ToolMessage(json.dumps({"top8": 2}), tool_call_id=call["id"])]
    answer = await streamed_message(model, messages)

    assert answer.text == "Affinity took two top-8 slots."
    assert asking.usage_metadata and asking.usage_metadata["total_tokens"] > 0
    first, second = bedrock.requests
    assert first.valid and second.valid
    assert first.body["system"] == [{"text": "You coach Magic."}]
    assert first.body["inferenceConfig"] == {"maxTokens": 2048, "temperature": 0.2}
    (tool,) = first.body["toolConfig"]["tools"]
    assert tool["toolSpec"]["name"] == "search_decks"
    assert tool["toolSpec"]["inputSchema"]["json"]["required"] == ["archetype"]
    assert second.body["messages"][1]["content"][1] == {
        "toolUse": {"toolUseId": call["id"], "name": "search_decks", "input": {"archetype": "Affinity"}}
    }
    assert second.body["messages"][2]["content"] == [
        {"toolResult": {"toolUseId": call["id"], "content": [{"text": '{"top8": 2}'}], "status": "success"}}
    ]


async def test_langchain_history_opening_with_the_assistant_is_refused(url: str, bedrock: LoopbackBedrock) -> None:
    """ChatBedrockConverse stands "." in for blank text and merges user runs, but sends a history that opens
    with an assistant message (a replayed welcome, say) as it is."""
    bedrock.script.append(Reply(Text("Never sent.")))
    history: list[BaseMessage] = [AIMessage("Welcome, planeswalker!"), HumanMessage("Hi")]

    with pytest.raises(ClientError) as refused:
        await streamed_message(chat_model(url), history)

    assert refused.value.response["Error"]["Code"] == "ValidationException"
    assert "must start with a user message" in refused.value.response["Error"]["Message"]
    assert bedrock.requests[0].body["messages"][0]["role"] == "assistant"
