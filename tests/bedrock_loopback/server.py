"""A loopback Amazon Bedrock Runtime: Converse and ConverseStream on 127.0.0.1, for tests.

It validates each request as Bedrock does (SigV4 credential scope, model id, message order, tool use
pairing, tool specs, blank text, system blocks, maxTokens) and answers a broken one with a
ValidationException; it answers a valid one with the next turn of its script (a reply, or a fault), and
records every request.

    script = [Reply(ToolCall("search_decks", {"archetype": "Affinity"})), Reply(Text("Affinity is..."))]
    with running_bedrock(script) as (url, bedrock):
        client = bedrock_runtime_client(url)  # or set AWS_ENDPOINT_URL_BEDROCK_RUNTIME=url
        ...
        assert all(request.valid for request in bedrock.requests)
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import unquote

import boto3
from botocore.config import Config
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Send

from tests.bedrock_loopback.eventstream import CONTENT_TYPE, encode_event, encode_exception
from tests.servers import serving

DEFAULT_REGION = "us-east-1"
DEFAULT_MODEL_ID = "us.anthropic.claude-haiku-4-5-20251001-v1:0"
DEFAULT_MAX_TOKENS_LIMIT = 64_000
FAKE_KEY = "testing"

StopReason = Literal["end_turn", "tool_use", "max_tokens"]
Operation = Literal["Converse", "ConverseStream"]


@dataclass(frozen=True)
class Text:
    """A text block of a reply, streamed in chunks of the loopback's ``text_chunk_chars``, or in ``chunks``
    exactly (``Text.in_chunks("at 6", "1.2%")`` cuts a figure across two stream events)."""

    text: str
    chunks: tuple[str, ...] = ()

    @classmethod
    def in_chunks(cls, *chunks: str) -> Text:
        return cls("".join(chunks), chunks)


@dataclass(frozen=True)
class ToolCall:
    """A toolUse block of a reply, its input JSON streamed in fragments. Without an id, one is made up."""

    name: str
    input: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


Block = Text | ToolCall


@dataclass(frozen=True, init=False)
class Reply:
    """An assistant message: ``Reply(Text("..."), ToolCall(...), stop_reason=None)``. The stop reason
    defaults to tool_use when the reply calls a tool, else end_turn."""

    blocks: tuple[Block, ...]
    stop_reason: StopReason

    def __init__(self, *blocks: Block, stop_reason: StopReason | None = None) -> None:
        calls_a_tool = any(isinstance(block, ToolCall) for block in blocks)
        object.__setattr__(self, "blocks", blocks)
        object.__setattr__(self, "stop_reason", stop_reason or ("tool_use" if calls_a_tool else "end_turn"))


_PARTIAL_REPLY = Reply(Text("An answer that starts well enough but never reaches its end."))


@dataclass(frozen=True)
class Throttling:
    """ThrottlingException before any byte of the answer (botocore retries it). Bedrock's status is 429."""

    message: str = "Too many requests, please wait before trying again."
    status: int = 429


@dataclass(frozen=True)
class ServiceUnavailable:
    """HTTP 503 ServiceUnavailableException (botocore retries it)."""

    message: str = "Bedrock is unable to process your request."


@dataclass(frozen=True)
class ModelStreamError:
    """A modelStreamErrorException event after ``after_events`` events of ``reply`` (default: half).
    Converse answers HTTP 424 ModelErrorException instead."""

    reply: Reply = _PARTIAL_REPLY
    after_events: int | None = None
    message: str = "An error occurred while streaming the response. Retry your request."


@dataclass(frozen=True)
class ConnectionCut:
    """The connection dropped after ``after_events`` events of ``reply`` (default: half); for Converse,
    after half the JSON body."""

    reply: Reply = _PARTIAL_REPLY
    after_events: int | None = None


@dataclass(frozen=True)
class SlowFirstByte:
    """``reply``, after ``seconds`` of silence before the first byte (status line included)."""

    seconds: float
    reply: Reply = Reply(Text("A reply that took its time."))


Fault = Throttling | ServiceUnavailable | ModelStreamError | ConnectionCut | SlowFirstByte
Turn = Reply | Fault
ScriptItem = Turn | Block | Sequence[Block]


def as_turn(item: ScriptItem) -> Turn:
    """A script item as a turn: a bare block or a list of blocks is a Reply."""
    if isinstance(item, Text | ToolCall):
        return Reply(item)
    if isinstance(item, Reply | Throttling | ServiceUnavailable | ModelStreamError | ConnectionCut | SlowFirstByte):
        return item
    return Reply(*item)


@dataclass
class RecordedRequest:
    """One request as the loopback received it."""

    operation: Operation
    path: str
    model_id: str
    headers: dict[str, str]
    body: Any
    valid: bool
    error: str | None = None
    turn: Turn | None = None
    arrived: float = field(default_factory=time.monotonic)  # when the request arrived (time.monotonic)


class InvalidRequest(Exception):
    """A request Bedrock would refuse; the message is the ValidationException's."""


_AUTHORIZATION = re.compile(
    r"AWS4-HMAC-SHA256 Credential=(?P<key>[^/,\s]+)/(?P<date>\d{8})/(?P<region>[^/]+)/(?P<service>[^/]+)/aws4_request,"
    r"\s*SignedHeaders=[^,\s]+,\s*Signature=[0-9a-f]{64}"
)
_TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_MODEL_PATH = re.compile(r"/model/(?P<model_id>.+)/converse(?:-stream)?")


def _require_signature(headers: dict[str, str], region: str) -> None:
    authorization = headers.get("authorization")
    if not authorization:
        raise InvalidRequest("Missing Authentication Token: the request must be signed with SigV4.")
    if authorization.startswith("Bearer "):
        raise InvalidRequest("Bearer tokens are not accepted here (is AWS_BEARER_TOKEN_BEDROCK set?); sign with SigV4.")
    scope = _AUTHORIZATION.fullmatch(authorization)
    if scope is None:
        raise InvalidRequest(f"Malformed SigV4 Authorization header: {authorization[:80]!r}")
    if scope["region"] != region:
        raise InvalidRequest(
            f"Credential should be scoped to a valid region, not '{scope['region']}' (expected '{region}')."
        )
    if scope["service"] != "bedrock":
        raise InvalidRequest(f"Credential should be scoped to correct service: 'bedrock', not '{scope['service']}'.")


def _is_blank(text: Any) -> bool:
    return not isinstance(text, str) or not text.strip()


def _check_content(message: dict[str, Any], index: int) -> None:
    content = message.get("content")
    if not isinstance(content, list) or not content:
        raise InvalidRequest(f"messages.{index}.content must be a non-empty list of content blocks.")
    for position, block in enumerate(content):
        if not isinstance(block, dict) or len(block) != 1:
            raise InvalidRequest(f"messages.{index}.content.{position} must set exactly one member of ContentBlock.")
        if "text" in block and _is_blank(block["text"]):
            raise InvalidRequest(
                f"The text field in the ContentBlock object at messages.{index}.content.{position} is blank. "
                "Add text to the text field, and try again."
            )


def _check_messages(messages: Any) -> list[dict[str, Any]]:
    if not isinstance(messages, list) or not messages:
        raise InvalidRequest("messages must be a non-empty list.")
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            raise InvalidRequest(f"messages.{index}.role must be 'user' or 'assistant'.")
        if index == 0 and message["role"] != "user":
            raise InvalidRequest(
                "A conversation must start with a user message. "
                "Try again with a conversation that starts with a user message."
            )
        if index > 0 and message["role"] == messages[index - 1]["role"]:
            raise InvalidRequest(
                "A conversation must alternate between user and assistant roles. "
                "Make sure the conversation alternates between user and assistant roles and try again."
            )
        _check_content(message, index)
    return messages


def _blocks_of(message: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [block[kind] for block in message["content"] if isinstance(block.get(kind), dict)]


def _check_tool_pairing(messages: list[dict[str, Any]]) -> None:
    asked: list[str] = []
    for index, message in enumerate(messages):
        if message["role"] == "assistant":
            asked = [use.get("toolUseId", "") for use in _blocks_of(message, "toolUse")]
            continue
        answered = [result.get("toolUseId", "") for result in _blocks_of(message, "toolResult")]
        unknown = sorted(set(answered) - set(asked))
        if unknown:
            raise InvalidRequest(
                f"The toolResult blocks at messages.{index}.content name toolUseIds that the previous "
                f"assistant message did not ask for: {', '.join(unknown)}."
            )
        unanswered = [tool_use_id for tool_use_id in asked if answered.count(tool_use_id) != 1]
        if unanswered:
            raise InvalidRequest(
                f"Expected exactly one toolResult block at messages.{index}.content for each of the "
                f"following Ids: {', '.join(unanswered)}."
            )
        asked = []


def _check_system(system: Any) -> None:
    if not isinstance(system, list):
        raise InvalidRequest('system must be a list of SystemContentBlock objects such as {"text": "..."}.')
    for index, block in enumerate(system):
        if not isinstance(block, dict) or len(block) != 1 or not ({"text", "cachePoint"} & block.keys()):
            raise InvalidRequest(f'system.{index} must be a SystemContentBlock such as {{"text": "..."}}.')
        if "text" in block and _is_blank(block["text"]):
            raise InvalidRequest(
                f"The text field in the SystemContentBlock object at system.{index} is blank. "
                "Add text to the text field, and try again."
            )


def _check_tool_config(tool_config: Any) -> None:
    tools = tool_config.get("tools") if isinstance(tool_config, dict) else None
    if not isinstance(tools, list) or not tools:
        raise InvalidRequest("toolConfig.tools must be a non-empty list of tools.")
    for index, tool in enumerate(tools):
        if isinstance(tool, dict) and "cachePoint" in tool:
            continue
        spec = tool.get("toolSpec") if isinstance(tool, dict) else None
        if not isinstance(spec, dict):
            raise InvalidRequest(f"toolConfig.tools.{index} must hold a toolSpec.")
        name = spec.get("name")
        if not isinstance(name, str) or not _TOOL_NAME.fullmatch(name):
            raise InvalidRequest(
                f"1 validation error detected: Value '{name}' at 'toolConfig.tools.{index}.member.toolSpec.name' "
                "failed to satisfy constraint: Member must satisfy regular expression pattern: ^[a-zA-Z0-9_-]{1,64}$"
            )
        schema = spec.get("inputSchema")
        json_schema = schema.get("json") if isinstance(schema, dict) else None
        if not isinstance(json_schema, dict) or json_schema.get("type") != "object":
            raise InvalidRequest(
                f"The value at toolConfig.tools.{index}.toolSpec.inputSchema.json.type must be one of the "
                "following: object."
            )


def _uses_tools(messages: list[dict[str, Any]]) -> bool:
    return any(_blocks_of(message, "toolUse") or _blocks_of(message, "toolResult") for message in messages)


def _check_inference_config(inference_config: Any, max_tokens_limit: int) -> None:
    if not isinstance(inference_config, dict):
        raise InvalidRequest("inferenceConfig must be an object.")
    max_tokens = inference_config.get("maxTokens")
    if max_tokens is None:
        return
    if not isinstance(max_tokens, int) or max_tokens < 1:
        raise InvalidRequest(
            f"1 validation error detected: Value '{max_tokens}' at 'inferenceConfig.maxTokens' failed to satisfy "
            "constraint: Member must have value greater than or equal to 1"
        )
    if max_tokens > max_tokens_limit:
        raise InvalidRequest(
            f"The maximum tokens you requested ({max_tokens}) exceeds the model limit of {max_tokens_limit}. "
            f"Try again with a maximum tokens value that is lower than {max_tokens_limit}."
        )


def validate_body(body: Any, max_tokens_limit: int = DEFAULT_MAX_TOKENS_LIMIT) -> None:
    """Raise InvalidRequest when Bedrock would refuse this Converse/ConverseStream body."""
    if not isinstance(body, dict):
        raise InvalidRequest("The request body must be a JSON object.")
    messages = _check_messages(body.get("messages"))
    if "system" in body:
        _check_system(body["system"])
    if "toolConfig" in body:
        _check_tool_config(body["toolConfig"])
    elif _uses_tools(messages):
        raise InvalidRequest("The toolConfig field must be defined when using toolUse and toolResult content blocks.")
    _check_tool_pairing(messages)
    if "inferenceConfig" in body:
        _check_inference_config(body["inferenceConfig"], max_tokens_limit)


def estimate_tokens(characters: int) -> int:
    """The loopback's token count: a quarter of the characters, rounded up, at least 1."""
    return max(1, -(-characters // 4))


def _characters(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(_characters(item) for item in value.values())
    if isinstance(value, list):
        return sum(_characters(item) for item in value)
    return 0


def _input_tokens(body: dict[str, Any]) -> int:
    return estimate_tokens(_characters([body.get("system"), body.get("messages"), body.get("toolConfig")]))


def _output_tokens(reply: Reply) -> int:
    characters = 0
    for block in reply.blocks:
        characters += len(block.text) if isinstance(block, Text) else len(json.dumps(block.input))
    return estimate_tokens(characters)


def _pieces(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)] or [text]


def _padding(index: int) -> str:
    """Bedrock pads each event with a ``p`` field of varying length; clients must ignore it."""
    return "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[: 8 + index % 40]


def _error(status: int, error_type: str, message: str) -> JSONResponse:
    headers = {"x-amzn-ErrorType": error_type, "x-amzn-RequestId": str(uuid.uuid4())}
    return JSONResponse({"message": message}, status_code=status, headers=headers)


class _DroppingStreamingResponse(StreamingResponse):
    """Streams its chunks, but drops the connection (no closing chunk) after ``keep`` of them."""

    def __init__(self, content: AsyncIterator[bytes], keep: int, **options: Any) -> None:
        super().__init__(content, **options)
        self.keep = keep

    async def stream_response(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        sent = 0
        async for chunk in self.body_iterator:
            if sent == self.keep:
                return
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            sent += 1


async def _sleep_unless_disconnected(request: Request, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while (remaining := deadline - time.monotonic()) > 0:
        if await request.is_disconnected():
            return
        await asyncio.sleep(min(0.05, remaining))


class LoopbackBedrock:
    """The loopback service: ``.app`` (Starlette), ``.script`` (turns still to play, appendable),
    ``.requests`` (every request received, valid or not)."""

    def __init__(
        self,
        region: str = DEFAULT_REGION,
        model_id: str = DEFAULT_MODEL_ID,
        script: Sequence[ScriptItem] = (),
        *,
        max_tokens_limit: int = DEFAULT_MAX_TOKENS_LIMIT,
        text_chunk_chars: int = 8,
        tool_input_fragment_chars: int = 10,
        first_token_seconds: float = 0.0,
    ) -> None:
        self.region = region
        self.model_id = model_id
        self.script: list[ScriptItem] = list(script)
        self.requests: list[RecordedRequest] = []
        self.max_tokens_limit = max_tokens_limit
        self.text_chunk_chars = text_chunk_chars
        self.tool_input_fragment_chars = tool_input_fragment_chars
        self.first_token_seconds = first_token_seconds  # a model's time to first token, before every answer
        self._tool_use_ids = 0
        self.app = Starlette(
            routes=[
                Route("/model/{model_id:path}/converse-stream", self._converse_stream, methods=["POST"]),
                Route("/model/{model_id:path}/converse", self._converse, methods=["POST"]),
                Route("/inference-profiles/{profile_id:path}", self._inference_profile, methods=["GET"]),
                Route("/{path:path}", self._unknown_operation, methods=["GET", "POST", "PUT", "DELETE", "PATCH"]),
            ]
        )

    @property
    def bodies(self) -> list[Any]:
        """The JSON bodies of the valid requests, in order."""
        return [request.body for request in self.requests if request.valid]

    async def _converse_stream(self, request: Request) -> Response:
        return await self._answer(request, "ConverseStream")

    async def _converse(self, request: Request) -> Response:
        return await self._answer(request, "Converse")

    async def _inference_profile(self, request: Request) -> Response:
        """Bedrock's control plane, GetInferenceProfile: the loopback's model id is a system-defined profile that
        routes to two regions; any other id is not found."""
        try:
            _require_signature(dict(request.headers), self.region)
        except InvalidRequest as invalid:
            return _error(403, "AccessDeniedException", str(invalid))
        profile_id = self._model_id_of_profile(request.scope.get("raw_path", b"").decode("latin-1"))
        if profile_id != self.model_id:
            return _error(404, "ResourceNotFoundException", f"Inference profile {profile_id} not found.")
        foundation = profile_id.split(".", 1)[1]
        return JSONResponse(
            {
                "inferenceProfileName": f"US {foundation}",
                "inferenceProfileId": profile_id,
                "inferenceProfileArn": f"arn:aws:bedrock:{self.region}:123456789012:inference-profile/{profile_id}",
                "models": [
                    {"modelArn": f"arn:aws:bedrock:{region}::foundation-model/{foundation}"}
                    for region in (self.region, "us-west-2")
                ],
                "status": "ACTIVE",
                "type": "SYSTEM_DEFINED",
            }
        )

    @staticmethod
    def _model_id_of_profile(raw_path: str) -> str:
        return unquote(raw_path.removeprefix("/inference-profiles/"))

    async def _unknown_operation(self, request: Request) -> Response:
        return _error(
            404,
            "UnknownOperationException",
            f"The loopback serves Converse and ConverseStream only, not {request.url.path}.",
        )

    @staticmethod
    def _model_id_of(raw_path: str) -> str:
        match = _MODEL_PATH.fullmatch(raw_path)
        return unquote(match["model_id"]) if match else ""

    def _validate(self, headers: dict[str, str], model_id: str, body: Any) -> None:
        _require_signature(headers, self.region)
        if model_id != self.model_id:
            raise InvalidRequest("The provided model identifier is invalid.")
        validate_body(body, self.max_tokens_limit)

    async def _answer(self, request: Request, operation: Operation) -> Response:
        started = time.monotonic()
        headers = dict(request.headers)
        try:
            body = json.loads(await request.body())
        except ValueError:
            body = None
        raw_path = request.scope.get("raw_path", request.url.path.encode()).decode("latin-1")
        model_id = self._model_id_of(raw_path)
        record = RecordedRequest(operation, raw_path, model_id, headers, body, valid=True)
        self.requests.append(record)
        try:
            self._validate(headers, model_id, body)
        except InvalidRequest as invalid:
            record.valid, record.error = False, str(invalid)
            return _error(400, "ValidationException", str(invalid))
        if not self.script:
            return _error(400, "LoopbackScriptExhausted", "The loopback's script has no turn left for this request.")
        turn = record.turn = as_turn(self.script.pop(0))
        if isinstance(turn, Throttling):
            return _error(turn.status, "ThrottlingException", turn.message)
        if isinstance(turn, ServiceUnavailable):
            return _error(503, "ServiceUnavailableException", turn.message)
        if isinstance(turn, SlowFirstByte):
            await _sleep_unless_disconnected(request, turn.seconds)
        if self.first_token_seconds:
            await asyncio.sleep(self.first_token_seconds)
        if operation == "Converse":
            return self._converse_response(turn, body, started)
        return self._stream_response(turn, body, started)

    def _tool_use_id(self, call: ToolCall) -> str:
        if call.id:
            return call.id
        self._tool_use_ids += 1
        return f"tooluse_loopback{self._tool_use_ids:06d}"

    def _reply_of(self, turn: Reply | ModelStreamError | ConnectionCut | SlowFirstByte) -> Reply:
        return turn if isinstance(turn, Reply) else turn.reply

    def _usage(self, body: dict[str, Any], reply: Reply) -> dict[str, int]:
        input_tokens, output_tokens = _input_tokens(body), _output_tokens(reply)
        return {"inputTokens": input_tokens, "outputTokens": output_tokens, "totalTokens": input_tokens + output_tokens}

    def _converse_response(self, turn: Turn, body: dict[str, Any], started: float) -> Response:
        if isinstance(turn, ModelStreamError):
            return _error(424, "ModelErrorException", turn.message)
        assert not isinstance(turn, Throttling | ServiceUnavailable)
        reply = self._reply_of(turn)
        content: list[dict[str, Any]] = [
            {"text": block.text}
            if isinstance(block, Text)
            else {"toolUse": {"toolUseId": self._tool_use_id(block), "name": block.name, "input": block.input}}
            for block in reply.blocks
        ]
        answer = {
            "output": {"message": {"role": "assistant", "content": content}},
            "stopReason": reply.stop_reason,
            "usage": self._usage(body, reply),
            "metrics": {"latencyMs": int((time.monotonic() - started) * 1000)},
        }
        headers = {"x-amzn-RequestId": str(uuid.uuid4())}
        if isinstance(turn, ConnectionCut):
            payload = json.dumps(answer).encode()

            async def half_of_the_body() -> AsyncIterator[bytes]:
                yield payload[: len(payload) // 2]
                yield payload[len(payload) // 2 :]

            headers["content-length"] = str(len(payload))
            return _DroppingStreamingResponse(
                half_of_the_body(), keep=1, headers=headers, media_type="application/json"
            )
        return JSONResponse(answer, headers=headers)

    def _events(self, reply: Reply) -> list[tuple[str, dict[str, Any]]]:
        """The reply's stream events up to messageStop (metadata comes last, with the latency)."""
        events: list[tuple[str, dict[str, Any]]] = [("messageStart", {"role": "assistant"})]
        for index, block in enumerate(reply.blocks):
            deltas: list[dict[str, Any]]
            if isinstance(block, Text):
                pieces = block.chunks or _pieces(block.text, self.text_chunk_chars)
                deltas = [{"text": piece} for piece in pieces]
            else:
                start = {"toolUse": {"toolUseId": self._tool_use_id(block), "name": block.name}}
                events.append(("contentBlockStart", {"contentBlockIndex": index, "start": start}))
                fragments = _pieces(json.dumps(block.input), self.tool_input_fragment_chars)
                deltas = [{"toolUse": {"input": fragment}} for fragment in fragments]
            events += [("contentBlockDelta", {"contentBlockIndex": index, "delta": delta}) for delta in deltas]
            events.append(("contentBlockStop", {"contentBlockIndex": index}))
        events.append(("messageStop", {"stopReason": reply.stop_reason}))
        return events

    def _stream_response(self, turn: Turn, body: dict[str, Any], started: float) -> Response:
        assert not isinstance(turn, Throttling | ServiceUnavailable)
        reply = self._reply_of(turn)
        events = self._events(reply)
        usage = self._usage(body, reply)
        total_events = len(events) + 1
        stop_after = total_events
        if isinstance(turn, ModelStreamError | ConnectionCut):
            stop_after = turn.after_events if turn.after_events is not None else total_events // 2

        async def frames() -> AsyncIterator[bytes]:
            for index, (event_type, payload) in enumerate(events[:stop_after]):
                yield encode_event(event_type, {**payload, "p": _padding(index)})
            if isinstance(turn, ModelStreamError):
                error = {"message": turn.message, "originalStatusCode": 500, "originalMessage": turn.message}
                yield encode_exception("modelStreamErrorException", error)
            elif stop_after >= total_events:
                latency = int((time.monotonic() - started) * 1000)
                yield encode_event("metadata", {"usage": usage, "metrics": {"latencyMs": latency}, "p": _padding(0)})

        headers = {"x-amzn-RequestId": str(uuid.uuid4())}
        if isinstance(turn, ConnectionCut):
            return _DroppingStreamingResponse(frames(), keep=stop_after, headers=headers, media_type=CONTENT_TYPE)
        return StreamingResponse(frames(), headers=headers, media_type=CONTENT_TYPE)


def bedrock_runtime_client(url: str, region: str = DEFAULT_REGION, config: Config | None = None) -> Any:
    """A boto3 ``bedrock-runtime`` client for the loopback at ``url``, with fake credentials."""
    return boto3.client(
        "bedrock-runtime",
        region_name=region,
        endpoint_url=url,
        config=config,
        aws_access_key_id=FAKE_KEY,
        aws_secret_access_key=FAKE_KEY,
    )


@contextmanager
def running_bedrock(
    script: Sequence[ScriptItem] = (),
    *,
    region: str = DEFAULT_REGION,
    model_id: str = DEFAULT_MODEL_ID,
    **options: Any,
) -> Iterator[tuple[str, LoopbackBedrock]]:
    """Serve a LoopbackBedrock on 127.0.0.1 for the block; yield its base URL and the loopback."""
    loopback = LoopbackBedrock(region, model_id, script, **options)
    with serving(loopback.app) as url:
        yield url, loopback
