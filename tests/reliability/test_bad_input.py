"""Bad input (issue 6): every HTTP endpoint (the FastAPI app and the small Powertools functions), every
tool (in process and over MCP) and every ingest input (the CLI and the S3 drop zone) is fed input a real
client may send by mistake. Each gets a clear refusal — a 4xx naming the field, an MCP tool error naming
the field, an ingest failure naming the file and the field — or, where a real product should accept it,
a helpful answer. The service keeps serving (a good request afterwards works), and no table changes:
every case snapshots every table of the Modern world before and after (only an accepted chat turn may
write its own conversation's checkpoint items).

Every case is recorded in ``tests/reliability/conftest.py``'s collector, which prints
"N bad inputs tried, N rejected cleanly, 0 state changes" at the end of the run (``-v`` lists them)."""

from __future__ import annotations

import copy
import gc
import gzip
import io
import json
import tarfile
import unicodedata
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

import boto3
import httpx
import pytest
from fastapi import FastAPI
from moto.core import DEFAULT_ACCOUNT_ID
from moto.dynamodb.models import dynamodb_backends

from meta_mage.api import handlers
from meta_mage.api.factory import build_app
from meta_mage.cli import main as cli
from meta_mage.config import DEMO_DATA_DIR, get_settings
from meta_mage.errors import MetaMageError
from meta_mage.ingest import lambda_handler
from meta_mage.local.chat_client import sse_events
from tests.agent.conftest import modern_deck
from tests.conftest import call
from tests.ingest_drop_zone.conftest import s3_event
from tests.lambda_helpers import FakeLambdaContext, entry_point
from tests.mcp_server.conftest import mcp_session
from tests.reliability.conftest import BAD_INPUTS, BadInputOutcome

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"
TARKIR = DEMO_DATA_DIR / "drafts" / "tarkir.json"
DROP_BUCKET = "meta-mage-bad-input"
UNKNOWN_CARDS = "4 Xyzzy Plugh\n4 Frobnitz Qux\n52 Glorpwump Island"
FIVE_HUNDRED_LINES = "\n".join(["4 Lightning Bolt"] + ["1 Island"] * 499)
ONE_MEGABYTE = "x" * 1_000_000

# --- table snapshots -------------------------------------------------------------------------------

Snapshot = dict[str, dict[tuple[Any, Any], int]]


def _value(value: Any) -> Any:
    inner = value.value
    if isinstance(inner, dict):
        return value.type, tuple(sorted((k, _value(v)) for k, v in inner.items()))
    if isinstance(inner, list):
        return value.type, tuple(_value(v) if hasattr(v, "value") else v for v in inner)
    return value.type, inner


_SCALARS = (str, bytes, bool, type(None))


def snapshot(tables: list[str]) -> Snapshot:
    """Every item of every table, read straight from moto's backend: what a full Scan returns, without the
    botocore round trip (a boto3 Scan of the 7,000-item world takes ~2 s, this ~20 ms). Each item is kept
    as the 64-bit hash of all its attributes: keeping the tuples themselves sets off the garbage
    collector's full passes (~0.2 s each) over the world's millions of objects."""
    backend = dynamodb_backends[DEFAULT_ACCOUNT_ID]["us-east-1"]
    out: Snapshot = {}
    for name in tables:
        table = backend.get_table(name)
        items: dict[tuple[Any, Any], int] = {}
        for entry in table.items.values():
            for item in entry.values() if table.range_key_attr else (entry,):
                parts = [
                    (k, v.type, v.value if isinstance(v.value, _SCALARS) else _value(v)) for k, v in item.attrs.items()
                ]
                parts.sort()
                items[(item.hash_key.value, item.range_key.value if item.range_key else None)] = hash(tuple(parts))
        out[name] = items
    return out


def changes(before: Snapshot, after: Snapshot, allowed: Callable[[str, tuple[Any, Any]], bool]) -> list[str]:
    """Items added, deleted or changed, except those ``allowed``."""
    found = []
    for table, items in before.items():
        if items == after[table]:
            continue
        for key in items.keys() | after[table].keys():
            if items.get(key) != after[table].get(key) and not allowed(table, key):
                kind = "added" if key not in items else "deleted" if key not in after[table] else "changed"
                found.append(f"{table}: {kind} {key}")
    return sorted(found)


@dataclass
class Probe:
    """What one case saw: a one-line outcome for the report, and conversations it may have created."""

    outcome: str = ""
    conversations: list[str] = field(default_factory=list)


@dataclass
class Tables:
    """The world's tables and the snapshot taken after the last case (valid while nothing else writes)."""

    names: list[str]
    checkpoints: str
    last: Snapshot | None = None

    def stale(self) -> None:
        """Something wrote between cases (a good request afterwards): take the next "before" afresh."""
        self.last = None


@pytest.fixture(scope="module", autouse=True)
def _frozen_world(modern_world: dict[str, Any]) -> Iterator[None]:
    """Move the world's millions of objects out of the garbage collector's sight for this module: its full
    passes over them (~0.2 s each, set off by every chat turn and snapshot) would be most of the run."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


@pytest.fixture(scope="module")
def tables(modern_world: dict[str, Any]) -> Tables:
    settings = modern_world["settings"]
    return Tables(list(settings.table_names().values()), settings.checkpoint_table)


@contextmanager
def bad_input(tables: Tables, case: str, surface: str) -> Iterator[Probe]:
    """Snapshot every table, run the case, snapshot again; record the case; fail on any change."""
    probe = Probe()
    before = tables.last or snapshot(tables.names)
    tables.last = None
    passed = False
    try:
        yield probe
        passed = True
    finally:
        after = snapshot(tables.names)

        def allowed(table: str, key: tuple[Any, Any]) -> bool:  # an accepted turn's own checkpoints
            return table == tables.checkpoints and any(cid in str(key[0]) for cid in probe.conversations)

        diff = changes(before, after, allowed)
        tables.last = after
        outcome = probe.outcome if passed else f"UNEXPECTED: {probe.outcome or 'the case failed'}"
        BAD_INPUTS.record(BadInputOutcome(case, surface, outcome, passed and not diff, bool(diff)))
    assert not diff, f"{case} changed the tables: {diff[:5]}"


def test_the_snapshot_reads_what_a_scan_returns(modern_world: dict[str, Any], tables: Tables) -> None:
    """The backend snapshot holds the items DynamoDB reports: as many as ``ItemCount`` in every table, and
    the very keys a boto3 Scan returns in the tables small enough to scan here (moto builds a whole-table
    response for every Scan page, ~1 s for the large two)."""
    client = modern_world["db"].meta.client
    taken = snapshot(tables.names)
    for name in tables.names:
        description = client.describe_table(TableName=name)["Table"]
        assert description["ItemCount"] == len(taken[name]), name
        if len(taken[name]) > 1000:
            continue
        keys = [k["AttributeName"] for k in sorted(description["KeySchema"], key=lambda k: k["KeyType"])]
        pages = client.get_paginator("scan").paginate(TableName=name)
        scanned = {
            (item[keys[0]], item[keys[1]] if len(keys) > 1 else None) for page in pages for item in page["Items"]
        }
        assert scanned == set(taken[name]), name


# --- shared inputs ---------------------------------------------------------------------------------


INPUTS: dict[str, Any] = {}  # valid inputs the bad ones are made from (filled once per module below)


@pytest.fixture(scope="module", autouse=True)
def valid_inputs(modern_world: dict[str, Any]) -> None:
    with tarfile.open(modern_world["archive"]) as archive:
        member = min((m for m in archive.getmembers() if m.isfile()), key=lambda m: m.size)  # the fewest decks
        handle = archive.extractfile(member)
        assert handle is not None
        INPUTS["tournament"] = handle.read()
    deck, _ = modern_deck("Boros Energy")
    INPUTS["cards"] = call(modern_world, "get_enriched_deck", deck=deck)["card_details"]
    INPUTS["stats"] = call(modern_world, "get_deck_matchup_stats", format="Modern", archetype="Boros Energy", days=30)


def known_tournament() -> bytes:
    """A Modern tournament file already in the world (re-ingesting it is "unchanged")."""
    data: bytes = INPUTS["tournament"]
    return data


def tournament(**changes: Any) -> dict[str, Any]:
    """The known tournament with top-level keys replaced (``None`` deletes one)."""
    document: dict[str, Any] = json.loads(known_tournament())
    for key, value in changes.items():
        if value is None:
            document.pop(key)
        else:
            document[key] = value
    return document


def archive_bytes(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@cache
def demo_card(name: str) -> dict[str, Any]:
    """One entry of the bundled card corpus, as the corpus spells it."""
    cards: list[dict[str, Any]] = json.loads(gzip.decompress((DEMO_DATA_DIR / "cards.json.gz").read_bytes()))
    return next(c for c in cards if c["name"] == name)


def draft(**changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(TARKIR.read_text())
    for key, value in changes.items():
        if value is None:
            document.pop(key)
        else:
            document[key] = value
    return document


def dumps(document: Any) -> bytes:
    return json.dumps(document, ensure_ascii=False).encode()


# --- the FastAPI app (httpx over ASGI) -------------------------------------------------------------


@pytest.fixture(scope="module")
def app(modern_world: dict[str, Any]) -> FastAPI:
    return build_app(modern_world["settings"], modern_world["db"], serve_page=True)


@asynccontextmanager
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http:
        yield http


def body_of(payload: Any) -> bytes:
    return payload if isinstance(payload, bytes) else json.dumps(payload).encode()


@dataclass(frozen=True)
class Refusal:
    """An HTTP request that must be refused: its status, error code, field, and words its message holds."""

    case: str
    method: str
    path: str
    payload: Any
    status: int
    error: str
    field: str | None
    says: str

    def __str__(self) -> str:
        return self.case


def _chat(case: str, payload: Any, status: int, error: str, field: str | None, says: str) -> Refusal:
    return Refusal(case, "POST", "/chat", payload, status, error, field, says)


def _get(case: str, path: str, status: int, error: str, field: str | None, says: str) -> Refusal:
    return Refusal(case, "GET", path, None, status, error, field, says)


BAD, MISSING, TOO_LARGE = "invalid_argument", "not_found", "payload_too_large"
SURROGATE_MESSAGE = b'{"message": "top decks \\ud800 in Modern"}'
SURROGATE_CONTEXT = b'{"message": "coach me", "context": {"archetype": "Boros \\udfff Energy"}}'
LONG_DECK = "4 Lightning Bolt\n" * 1177  # 20,009 characters
DEEP_NESTING = b"[" * 2000  # deeper than Python's parser recurses (depth <= 1000 was a 400 already)
LONG_NUMBER = b'{"message": 1' + b"0" * 4999 + b"}"  # past int()'s 4,300-digit limit
HUGE_NAME = "a" * 100_000  # a 100 KB query parameter name (in a URL: 60 KB, httpx's limit is 64 KB)
HUGE_FIELD = "a" * 200 + "… (100,000 characters)"  # as an error's field names it
LONG_NAME = HUGE_NAME[:60_000]
# fmt: off
CHAT_REFUSALS = [
    _chat("chat: malformed JSON", b'{"message": "top decks",', 400, BAD, None, "not valid JSON"),
    _chat("chat: body is a JSON array", b'["top decks"]', 400, BAD, None, "JSON object"),
    _chat("chat: empty body", b"", 400, BAD, None, "JSON object"),
    _chat("chat: body is not UTF-8", b'{"message": "top \xc3\x28 decks"}', 400, BAD, None, "not valid JSON"),
    _chat("chat: message of the wrong type", {"message": 123}, 400, BAD, "message", "non-empty string"),
    _chat("chat: message missing", {"context": {"format": "Modern"}}, 400, BAD, "message", "non-empty string"),
    _chat("chat: blank message", {"message": " \n\t "}, 400, BAD, "message", "non-empty string"),
    _chat("chat: conversation_id of the wrong type", {"message": "hi", "conversation_id": 42}, 400, BAD,
          "conversation_id", "string or null"),
    _chat("chat: conversation_id not an id", {"message": "hi", "conversation_id": "../../etc/passwd"}, 400, BAD,
          "conversation_id", "UUID"),
    _chat("chat: unknown conversation", {"message": "hi", "conversation_id": "0b7d5a8e-7c55-4b1e-9d53-3c1c8f5e2a10"},
          404, "conversation_not_found", "conversation_id", "does not exist"),
    _chat("chat: unknown top-level field", {"message": "hi", "format": "Modern"}, 400, BAD, "format",
          "unexpected field"),
    _chat("chat: context of the wrong type", {"message": "hi", "context": "Modern"}, 400, BAD, "context",
          "object or null"),
    _chat("chat: unknown context field (typo)", {"message": "hi", "context": {"fromat": "Modern"}}, 400, BAD,
          "context.fromat", "unexpected field"),
    _chat("chat: unknown format", {"message": "hi", "context": {"format": "Commander"}}, 400, BAD, "context.format",
          "allowed: Modern"),
    _chat("chat: days 0", {"message": "hi", "context": {"days": 0}}, 400, BAD, "context.days",
          "greater than or equal to 1"),
    _chat("chat: days 10,000", {"message": "hi", "context": {"days": 10_000}}, 400, BAD, "context.days",
          "less than or equal to 365"),
    _chat("chat: days of the wrong type (text)", {"message": "hi", "context": {"days": "thirty"}}, 400, BAD,
          "context.days", "valid integer"),
    _chat("chat: days of the wrong type (true)", {"message": "hi", "context": {"days": True}}, 400, BAD,
          "context.days", "not true/false"),
    _chat("chat: 1 MB message", {"message": ONE_MEGABYTE}, 413, TOO_LARGE, None, "limit is 65536"),
    _chat("chat: message one character over the limit", {"message": "x" * 8001}, 413, TOO_LARGE, "message",
          "limit is 8000"),
    _chat("chat: 20,009-character deck in context", {"message": "coach me", "context": {"deck_text": LONG_DECK}},
          400, BAD, "context.deck_text", "at most 20000 characters"),
    _chat("chat: lone surrogate in the message", SURROGATE_MESSAGE, 400, BAD, "message", "not valid Unicode"),
    _chat("chat: lone surrogate in a context field", SURROGATE_CONTEXT, 400, BAD, "context.archetype", "unicode"),
    _chat("chat: unknown draft in context", {"message": "show the pool", "context": {"draft_id": "nope"}}, 404,
          MISSING, "context.draft_id", "known drafts: tarkir"),
    _get("chat: GET instead of POST", "/chat", 405, "method_not_allowed", None, "Method Not Allowed"),
    _chat("chat: 2,000 nested arrays", DEEP_NESTING, 400, BAD, None, "nested too deeply"),
    _chat("chat: a 5,000-digit number", LONG_NUMBER, 400, BAD, None, "a number has more than 4300 digits"),
    _chat("chat: NaN (not JSON)", b'{"message": NaN}', 400, BAD, None, "NaN is not a JSON value"),
]
READ_REFUSALS = [
    _get("conversation: id not a UUID", "/conversations/not-a-uuid", 400, BAD, "conversation_id", "UUID"),
    _get("conversation: a UUID of another version (nil)", f"/conversations/{uuid.UUID(int=0)}", 400, BAD,
         "conversation_id", "UUID"),
    _get("conversation: unknown id", f"/conversations/{uuid.UUID(int=7, version=4)}", 404, "conversation_not_found",
         "conversation_id", "does not exist"),
    _get("archetypes: format missing", "/archetypes", 400, BAD, "format", "required query parameter"),
    _get("archetypes: unknown format", "/archetypes?format=Commander", 400, BAD, "format", "allowed: Modern"),
    _get("archetypes: format without data", "/archetypes?format=Pioneer", 404, MISSING, "format",
         "formats with data: Modern"),
    _get("archetypes: homoglyph format (Cyrillic М)", "/archetypes?format=%D0%9Codern", 400, BAD, "format",
         "unknown format 'Мodern'"),
    _get("archetypes: days 0", "/archetypes?format=Modern&days=0", 400, BAD, "days", "greater than or equal to 1"),
    _get("archetypes: as_of in year 1", "/archetypes?format=Modern&as_of=0001-01-01", 400, BAD, "as_of",
         "greater than or equal to 1993-08-05"),
    _get("archetypes: days 10,000", "/archetypes?format=Modern&days=10000", 400, BAD, "days",
         "less than or equal to 365"),
    _get("archetypes: days of the wrong type", "/archetypes?format=Modern&days=many", 400, BAD, "days",
         "valid integer"),
    _get("archetypes: unknown parameter", "/archetypes?format=Modern&dayz=30", 400, BAD, "dayz", "unexpected argument"),
    _get("archetypes: format given twice", "/archetypes?format=Modern&format=Legacy", 400, BAD, "format",
         "given more than once"),
    _get("archetypes: days given twice (same value)", "/archetypes?format=Modern&days=30&days=30", 400, BAD, "days",
         "given more than once"),
    _get("draft pool: color given twice", "/drafts/tarkir/pool?color=G&color=U", 400, BAD, "color",
         "given more than once"),
    _get("draft pool: unknown parameter", "/drafts/tarkir/pool?colour=G", 400, BAD, "colour", "unexpected argument"),
    _get("formats: parameter given twice", "/formats?x=1&x=2", 400, BAD, "x", "given more than once"),
    _get("formats: unexpected parameter", "/formats?format=Modern", 400, BAD, "format", "takes no parameters"),
    Refusal("formats: POST", "POST", "/formats", {}, 405, "method_not_allowed", None, "Method Not Allowed"),
    _get("drafts: unexpected parameter", "/drafts?draft_id=tarkir", 400, BAD, "draft_id", "takes no parameters"),
    _get("draft pool: unknown draft", "/drafts/nope/pool", 404, MISSING, "draft_id", "known drafts: tarkir"),
    _get("draft pool: control characters in the id", "/drafts/%00%1B%5B31m/pool", 404, MISSING, "draft_id",
         "known drafts: tarkir"),
    _get("draft pool: id too long", f"/drafts/{'a' * 65}/pool", 400, BAD, "draft_id", "at most 64 characters"),
    _get("draft pool: unknown colour", "/drafts/tarkir/pool?color=P", 400, BAD, "color", "unknown color 'P'"),
    _get("draft pool: flag of the wrong type", "/drafts/tarkir/pool?include_draft_results=maybe", 400, BAD,
         "include_draft_results", "valid boolean"),
    _get("draft pool: id in the query too", "/drafts/tarkir/pool?draft_id=other", 400, BAD, "draft_id",
         "in the path"),
    _get("welcome: unexpected parameter", "/welcome?format=Modern", 400, BAD, "format", "takes no parameters"),
    Refusal("healthz: POST", "POST", "/healthz", {}, 405, "method_not_allowed", None, "Method Not Allowed"),
    Refusal("page: POST", "POST", "/", {}, 405, "method_not_allowed", None, "Method Not Allowed"),
    _get("unknown endpoint", "/admin", 404, MISSING, None, "Not Found"),
]
# fmt: on


async def still_serving(http: httpx.AsyncClient, tables: Tables, *, chat: bool) -> None:
    """A good request afterwards works: the reads, and for chat cases a new turn (which writes its own
    conversation, so the next case snapshots afresh)."""
    drafts = await http.get("/drafts")
    assert drafts.status_code == 200 and drafts.json()["drafts"][0]["draft_id"] == "tarkir"
    if chat:
        tables.stale()
        response = await http.post(
            "/chat", content=body_of({"message": "hi"}), headers={"content-type": "application/json"}
        )
        assert response.status_code == 200 and sse_events(response.text)[-1][0] == "done"


def assert_refused(response: httpx.Response, refusal: Refusal) -> str:
    assert response.status_code == refusal.status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["error"] == refusal.error and body.get("field") == refusal.field, body
    assert refusal.says.lower() in body["message"].lower(), body
    if refusal.error == "invalid_argument" and refusal.field:
        assert refusal.field.split(".")[-1] in body["message"], body  # the message names the field too
    return f"{response.status_code} {body['error']}" + (f" ({body['field']})" if refusal.field else "")


@pytest.mark.parametrize("refusal", CHAT_REFUSALS + READ_REFUSALS, ids=str)
async def test_http_refuses_bad_input(app: FastAPI, tables: Tables, refusal: Refusal) -> None:
    async with client(app) as http:
        with bad_input(tables, refusal.case, "http") as probe:
            content = None if refusal.payload is None else body_of(refusal.payload)
            headers = {"content-type": "application/json"} if refusal.method == "POST" else {}
            response = await http.request(refusal.method, refusal.path, content=content, headers=headers)
            probe.outcome = assert_refused(response, refusal)
        await still_serving(http, tables, chat=refusal.path == "/chat")


# (case, method, path, body): each echoes a 60 KB (in a /chat body under its 64 KB cap, 50 KB) input
ECHO_CASES = [
    ("archetypes: 60 KB unknown parameter name", "GET", f"/archetypes?format=Modern&{LONG_NAME}=1", None),
    ("formats: 60 KB parameter name", "GET", f"/formats?{LONG_NAME}=1", None),
    ("archetypes: 60 KB format", "GET", f"/archetypes?format={LONG_NAME}", None),
    ("unknown endpoint: 60 KB path", "GET", f"/{LONG_NAME}", None),
    ("draft pool: 60 KB unknown parameter name", "GET", f"/drafts/tarkir/pool?{LONG_NAME}=1", None),
    ("chat: 50 KB unknown field name", "POST", "/chat", {"message": "hi", HUGE_NAME[:50_000]: 1}),
    ("chat: 50 KB unknown context field", "POST", "/chat", {"message": "hi", "context": {HUGE_NAME[:50_000]: 1}}),
]


@pytest.mark.parametrize(("case", "method", "path", "payload"), ECHO_CASES, ids=[c[0] for c in ECHO_CASES])
async def test_http_errors_echo_long_input_cut_short(
    app: FastAPI, tables: Tables, case: str, method: str, path: str, payload: Any
) -> None:
    """The error names the input, cut to its first characters and its length, not repeated whole (a
    100 KB parameter name came back twice, in the message and the field)."""
    async with client(app) as http:
        with bad_input(tables, case, "http") as probe:
            content = None if payload is None else body_of(payload)
            response = await http.request(method, path, content=content, headers={"content-type": "application/json"})
            body = response.json()
            assert response.status_code in {400, 404} and len(response.content) < 3000, (response.status_code, case)
            assert "characters" in body["message"] and "a" * 50 in body["message"], body["message"][:300]
            assert len(body.get("field") or "") < 300
            probe.outcome = f"{response.status_code} {body['error']}, {len(response.content)}-byte answer"
        await still_serving(http, tables, chat=False)


async def chat_turn(
    http: httpx.AsyncClient, payload: Any, probe: Probe
) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """An accepted turn: its conversation (allowed to write its checkpoints), answer text and events."""
    response = await http.post("/chat", content=body_of(payload), headers={"content-type": "application/json"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    events = sse_events(response.text)
    assert events[0][0] == "metadata" and events[-1][0] == "done", events[-3:]
    assert not [e for e in events if e[0] == "error"]
    probe.conversations.append(events[0][1]["conversation_id"])
    return "".join(d["text"] for k, d in events if k == "content"), events


async def test_chat_answers_unicode_and_keeps_it_intact(app: FastAPI, tables: Tables) -> None:
    message = "Top decks in Modern? 🧙\u200d♂️ עברית \u202e Ünïcødé \u0000 fin"
    async with client(app) as http:
        with bad_input(tables, "chat: unicode, RTL override and NUL", "http") as probe:
            text, _ = await chat_turn(http, {"message": message, "context": {"days": 30}}, probe)
            assert "**Top decks in Modern**" in text and "| 1 |" in text
            view = (await http.get(f"/conversations/{probe.conversations[0]}")).json()
            assert view["messages"][0] == {"role": "user", "content": message}  # stored and read back exactly
            probe.outcome = "200: the rankings, message stored byte for byte"
        await still_serving(http, tables, chat=True)


async def test_chat_answers_control_characters_with_the_menu(app: FastAPI, tables: Tables) -> None:
    async with client(app) as http:
        with bad_input(tables, "chat: only control characters", "http") as probe:
            text, events = await chat_turn(http, {"message": "\x00\x07\x1b[31m\x7f"}, probe)
            assert "I can help in three ways" in text and not [e for e in events if e[0] == "tool_call"]
            probe.outcome = "200: asks which of the three workflows, no tool call"
        await still_serving(http, tables, chat=True)


async def test_chat_refuses_a_500_line_deck_in_the_answer(app: FastAPI, tables: Tables) -> None:
    context = {"format": "Modern", "days": 30, "deck_text": FIVE_HUNDRED_LINES}
    async with client(app) as http:
        with bad_input(tables, "chat: 500-line deck", "http") as probe:
            text, events = await chat_turn(http, {"message": "coach my deck", "context": context}, probe)
            calls = [d for k, d in events if k == "tool_call"]
            assert [(c["tool"], c["status"]) for c in calls] == [
                ("get_enriched_deck", "calling"),
                ("get_enriched_deck", "error"),
            ]
            assert calls[1]["summary"] == "deck has 500 lines; at most 300 are accepted"
            assert "deck has 500 lines; at most 300 are accepted" in text
            probe.outcome = "200: tool_call error 'deck has 500 lines; at most 300 are accepted'"
        await still_serving(http, tables, chat=True)


async def test_chat_says_no_card_of_the_deck_is_known(app: FastAPI, tables: Tables) -> None:
    context = {"format": "Modern", "days": 30, "deck_text": UNKNOWN_CARDS}
    async with client(app) as http:
        with bad_input(tables, "chat: deck of only unknown cards", "http") as probe:
            text, events = await chat_turn(http, {"message": "coach my deck", "context": context}, probe)
            calls = [(d["tool"], d["status"]) for k, d in events if k == "tool_call"]
            assert calls == [("get_enriched_deck", "calling"), ("get_enriched_deck", "complete")]
            assert "could not match any card in that list to a real card name" in text
            probe.outcome = "200: 'could not match any card in that list', no coaching tool called"
        await still_serving(http, tables, chat=True)


async def test_chat_tries_an_unknown_archetype_once(app: FastAPI, tables: Tables) -> None:
    context = {"format": "Modern", "days": 30, "archetype": "Goblin Storm"}
    tables.stale()  # this turn writes its conversation outside any case
    async with client(app) as http:
        response = await http.post(
            "/chat",
            content=body_of({"message": "how does my deck do?", "context": context}),
            headers={"content-type": "application/json"},
        )
    calls = [d for k, d in sse_events(response.text) if k == "tool_call" and d["status"] == "calling"]
    assert len(calls) == 1


# --- the small functions (Powertools handlers over HTTP API events) --------------------------------


@pytest.fixture(scope="module")
def world_env(modern_world: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The world's tables in the environment (the small functions, the CLI and the drop zone read it), plus a
    bucket and a failure queue for the drop zone."""
    settings = modern_world["settings"]
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket=DROP_BUCKET)
    sqs = boto3.client("sqs", region_name="us-east-1")
    queue_url = sqs.create_queue(QueueName="meta-mage-bad-input-failures")["QueueUrl"]
    caches = (get_settings, handlers.wiring, handlers.reads, handlers.welcome_model, lambda_handler.runtime)
    with pytest.MonkeyPatch.context() as patch:
        for key in ("meta_table", "cards_table", "drafts_table", "checkpoint_table", "locks_table"):
            patch.setenv(f"META_MAGE_{key.upper()}", getattr(settings, key))
        patch.setenv("META_MAGE_INGEST_FAILURE_QUEUE_URL", queue_url)
        patch.setenv("POWERTOOLS_METRICS_NAMESPACE", "MetaMageTest")
        for cached in caches:
            cached.cache_clear()
        # the CLI's commands use this DynamoDB resource (the same tables) instead of building one per call
        patch.setattr("meta_mage.cli.shared.dynamodb", lambda settings: modern_world["db"])
        yield {"s3": s3, "sqs": sqs, "queue_url": queue_url}
    for cached in caches:
        cached.cache_clear()
    for obj in s3.list_objects_v2(Bucket=DROP_BUCKET).get("Contents", []):
        s3.delete_object(Bucket=DROP_BUCKET, Key=obj["Key"])
    s3.delete_bucket(Bucket=DROP_BUCKET)
    sqs.delete_queue(QueueUrl=queue_url)


@cache
def small_function(function: str) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    return entry_point(function)


def http_api_event(path: str, query: dict[str, str] | None = None, method: str = "GET") -> dict[str, Any]:
    """An HTTP API (v2) event like ``events/formats.json`` for another path and query."""
    event: dict[str, Any] = copy.deepcopy(json.loads((EVENTS / "formats.json").read_text()))
    event["rawPath"] = event["requestContext"]["http"]["path"] = path
    event["requestContext"]["http"]["method"] = method
    event["routeKey"] = f"{method} {path}"
    event["rawQueryString"] = urlencode(query or {})
    if query:
        event["queryStringParameters"] = query
    return event


def invoke(function: str, event: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    response = small_function(function)(event, FakeLambdaContext())
    return response["statusCode"], json.loads(response["body"])


@dataclass(frozen=True)
class FunctionRefusal:
    case: str
    function: str
    event: dict[str, Any]
    status: int
    error: str
    field: str | None
    says: str

    def __str__(self) -> str:
        return self.case


def _sample(name: str) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((EVENTS / name).read_text())
    return event


def _fn(
    case: str, function: str, path: str, query: dict[str, str], status: int, field: str, says: str
) -> FunctionRefusal:
    return FunctionRefusal(case, function, http_api_event(path, query), status, BAD, field, says)


def _fn_raw(case: str, function: str, path: str, raw_query: str, field: str, says: str) -> FunctionRefusal:
    """An event for a query string with a repeated or odd parameter: HTTP API puts the raw string in
    ``rawQueryString`` and joins a repeated parameter's values with commas in ``queryStringParameters``."""
    event = http_api_event(path)
    event["rawQueryString"] = raw_query
    joined: dict[str, list[str]] = {}
    for name, value in parse_qsl(raw_query, keep_blank_values=True):
        joined.setdefault(name, []).append(value)
    event["queryStringParameters"] = {name: ",".join(values) for name, values in joined.items()}
    return FunctionRefusal(case, function, event, 400, BAD, field, says)


# fmt: off
FUNCTION_REFUSALS = [
    FunctionRefusal("archetypes fn: format missing (sample event)", "archetypes",
                    _sample("archetypes_missing_format.json"), 400, BAD, "format", "required"),
    _fn("archetypes fn: unknown format", "archetypes", "/archetypes", {"format": "Commander"}, 400, "format",
        "allowed: Modern"),
    _fn("archetypes fn: days 0", "archetypes", "/archetypes", {"format": "Modern", "days": "0"}, 400, "days",
        "greater than or equal to 1"),
    _fn("archetypes fn: days 10,000", "archetypes", "/archetypes", {"format": "Modern", "days": "10000"}, 400, "days",
        "less than or equal to 365"),
    _fn("archetypes fn: days of the wrong type", "archetypes", "/archetypes", {"format": "Modern", "days": "30.5"},
        400, "days", "valid integer"),
    _fn("archetypes fn: zero-width space in the format", "archetypes", "/archetypes", {"format": "Mod\u200bern"}, 400,
        "format", "unknown format"),
    FunctionRefusal("draft pool fn: unknown draft (sample event)", "draft_pool", _sample("draft_pool_unknown.json"),
                    404, MISSING, "draft_id", "known drafts: tarkir"),
    _fn("draft pool fn: unknown colour", "draft_pool", "/drafts/tarkir/pool", {"color": "purple"}, 400, "color",
        "unknown color"),
    _fn("formats fn: unexpected parameter", "formats", "/formats", {"format": "Modern"}, 400, "format",
        "takes no parameters"),
    _fn("drafts fn: unexpected parameter", "draft_pool", "/drafts", {"limit": "5"}, 400, "limit",
        "takes no parameters"),
    _fn("welcome fn: unexpected parameter", "welcome", "/welcome", {"lang": "fr"}, 400, "lang", "takes no parameters"),
    _fn_raw("archetypes fn: format given twice", "archetypes", "/archetypes", "format=Modern&format=Legacy", "format",
            "given more than once"),
    _fn_raw("draft pool fn: color given twice", "draft_pool", "/drafts/tarkir/pool", "color=G&color=G", "color",
            "given more than once"),
    _fn_raw("formats fn: 100 KB parameter name", "formats", "/formats", f"{HUGE_NAME}=1", HUGE_FIELD,
            "unexpected argument"),
]
# fmt: on


@pytest.mark.parametrize("refusal", FUNCTION_REFUSALS, ids=str)
def test_small_functions_refuse_bad_input(world_env: dict[str, Any], tables: Tables, refusal: FunctionRefusal) -> None:
    with bad_input(tables, refusal.case, "function") as probe:
        status, body = invoke(refusal.function, refusal.event)
        assert status == refusal.status and body["error"] == refusal.error, body
        assert body.get("field") == refusal.field and refusal.says in body["message"], body
        probe.outcome = f"{status} {body['error']} ({body['field']})"
    status, body = invoke("formats", _sample("formats.json"))
    assert status == 200 and body["formats"] == ["Modern"]


def test_small_functions_refuse_an_unknown_route(world_env: dict[str, Any], tables: Tables) -> None:
    with bad_input(tables, "formats fn: unknown route", "function") as probe:
        status, body = invoke("formats", http_api_event("/admin"))
        assert status == 404 and body["message"] == "Not found"
        probe.outcome = "404 Not found (Powertools)"
    assert invoke("formats", _sample("formats.json"))[0] == 200


# --- tools: in process (registry.call) and over MCP (the SDK's client) -----------------------------


@dataclass(frozen=True)
class ToolRefusal:
    case: str
    tool: str
    arguments: Any
    error: str
    field: str
    says: str
    over_mcp: bool = True  # False: the SDK's client cannot send it (it validates arguments first)

    def __str__(self) -> str:
        return self.case


def _coaching(**extra: Any) -> Callable[[], dict[str, Any]]:
    def build() -> dict[str, Any]:
        arguments = {"card_details": INPUTS["cards"], "archetype": "Boros Energy", "format": "Modern"}
        arguments.update({k: (v() if callable(v) else v) for k, v in extra.items()})
        return arguments

    return build


def _strategy(**extra: Any) -> Callable[[], dict[str, Any]]:
    def build() -> dict[str, Any]:
        arguments = {
            "card_details": INPUTS["cards"],
            "archetype": "Boros Energy",
            "opponent_archetype": "Jeskai Blink",
            "matchup_stats": INPUTS["stats"],
        }
        arguments.update(extra)
        return arguments

    return build


T = ToolRefusal
RANKINGS, MATCHUPS, ENRICH = "get_format_meta_rankings", "get_format_matchup_stats", "get_enriched_deck"
ARCHETYPES = "get_format_archetypes"
MAIN, SIDE, STRATEGY = "optimize_mainboard", "optimize_sideboard", "generate_deck_matchup_strategy"
POOL = "get_draft_pool"
NO_QUANTITY = [{"name": "Lightning Bolt", "section": "mainboard"}]
TRUE_QUANTITY = [{"name": "Lightning Bolt", "quantity": True, "section": "mainboard"}]
# fmt: off
TOOL_REFUSALS = [
    T("list_formats: unexpected argument", "list_formats", {"verbose": True}, BAD, "verbose", "unexpected argument"),
    T("list_formats: arguments not an object", "list_formats", ["Modern"], BAD, "arguments", "JSON object",
      over_mcp=False),  # the SDK's client refuses to send it; test_mcp_endpoint_refuses_malformed_requests does
    T("rankings: unknown format", RANKINGS, {"format": "Commander"}, BAD, "format", "allowed: Modern"),
    T("rankings: format without data", RANKINGS, {"format": "Pioneer"}, MISSING, "format", "formats with data: Modern"),
    T("rankings: days 0", RANKINGS, {"format": "Modern", "current_days": 0}, BAD, "current_days",
      "greater than or equal to 1"),
    T("rankings: days 10,000", RANKINGS, {"format": "Modern", "previous_days": 10_000}, BAD, "previous_days",
      "less than or equal to 365"),
    T("rankings: days of the wrong type (true)", RANKINGS, {"format": "Modern", "current_days": True}, BAD,
      "current_days", "not true/false"),
    T("rankings: unknown colour", RANKINGS, {"format": "Modern", "color_identity": "P"}, BAD, "color_identity",
      "unknown colour identity"),
    T("rankings: unknown strategy", RANKINGS, {"format": "Modern", "strategy": "zoo"}, BAD, "strategy", "'aggro'"),
    T("matchups: days of the wrong type", MATCHUPS, {"format": "Modern", "days": "many"}, BAD, "days", "valid integer"),
    T("matchups: days 10,000", MATCHUPS, {"format": "Modern", "days": 10_000}, BAD, "days",
      "less than or equal to 365"),
    T("archetypes: format missing", ARCHETYPES, {}, BAD, "format", "required argument is missing"),
    T("archetypes: days 0", ARCHETYPES, {"format": "Modern", "days": 0}, BAD, "days", "greater than or equal to 1"),
    T("rankings: as_of in year 1", RANKINGS, {"format": "Modern", "as_of": "0001-01-05", "current_days": 365}, BAD,
      "as_of", "greater than or equal to 1993-08-05"),
    T("enriched deck: 500-line deck", ENRICH, {"deck": FIVE_HUNDRED_LINES}, BAD, "deck", "500 lines; at most 300"),
    T("enriched deck: 1 MB deck", ENRICH, {"deck": ONE_MEGABYTE}, BAD, "deck", "at most 20000 characters"),
    T("enriched deck: deck of the wrong type", ENRICH, {"deck": ["4 Lightning Bolt"]}, BAD, "deck", "valid string"),
    T("enriched deck: blank deck", ENRICH, {"deck": " \n "}, BAD, "deck", "deck is empty"),
    T("enriched deck: 120 copies over two lines", ENRICH, {"deck": "60 Island\n60 Island"}, BAD, "deck",
      "deck: Island has 120 copies in total; at most 100"),
    T("enriched deck: 120 copies in two spellings", ENRICH, {"deck": "60 Island\n60 island"}, BAD, "deck",
      "deck: Island has 120 copies in total; at most 100"),
    T("enriched deck: lone surrogate", ENRICH, {"deck": "4 Lightning Bolt\ud800"}, BAD, "deck", "unicode",
      over_mcp=False),  # the SDK's client cannot encode it; test_mcp_refuses_a_lone_surrogate_sent_raw sends it
    T("classify: format missing", "classify_deck", {"deck": "4 Lightning Bolt"}, BAD, "format",
      "required argument is missing"),
    T("classify: 500-line deck", "classify_deck", {"deck": FIVE_HUNDRED_LINES, "format": "Modern"}, BAD, "deck",
      "500 lines; at most 300"),
    T("deck matchups: unknown archetype", "get_deck_matchup_stats",
      {"format": "Modern", "archetype": "Goblin Storm", "days": 30}, MISSING, "archetype",
      "unknown archetype 'Goblin Storm'"),
    T("deck matchups: days 0", "get_deck_matchup_stats", {"format": "Modern", "archetype": "Boros Energy", "days": 0},
      BAD, "days", "greater than or equal to 1"),
    T("mainboard: empty card_details", MAIN, _coaching(card_details=[]), BAD, "card_details", "at least 1 item"),
    T("mainboard: card_details of the wrong type", MAIN, _coaching(card_details="4 Lightning Bolt"), BAD,
      "card_details", "valid list"),
    T("mainboard: card without quantity", MAIN, _coaching(card_details=NO_QUANTITY), BAD, "card_details.0.quantity",
      "required argument is missing"),
    T("mainboard: unknown archetype", MAIN, _coaching(archetype="Goblin Storm"), MISSING, "archetype",
      "unknown archetype 'Goblin Storm'"),
    T("sideboard: top_n 0", SIDE, _coaching(top_n=0), BAD, "top_n", "greater than or equal to 1"),
    T("sideboard: quantity of the wrong type (true)", SIDE, _coaching(card_details=TRUE_QUANTITY), BAD,
      "card_details.0.quantity", "not true/false"),
    T("strategy: unknown opponent", STRATEGY, _strategy(opponent_archetype="Goblin Storm"), MISSING,
      "opponent_archetype", "no Goblin Storm lists"),
    T("strategy: matchup_stats of the wrong type", STRATEGY, _strategy(matchup_stats="good"), BAD, "matchup_stats",
      "valid dictionary"),
    T("strategy: matchup_stats of another archetype", STRATEGY, _strategy(archetype="Jeskai Blink"), BAD,
      "matchup_stats", "are for 'Boros Energy', not archetype 'Jeskai Blink'"),
    T("list_drafts: unexpected argument", "list_drafts", {"draft_id": "tarkir"}, BAD, "draft_id",
      "unexpected argument"),
    T("draft pool: unknown draft", POOL, {"draft_id": "nope"}, MISSING, "draft_id", "known drafts: tarkir"),
    T("draft pool: draft_id missing", POOL, {}, BAD, "draft_id", "required argument is missing"),
    T("draft pool: unknown colour", POOL, {"draft_id": "tarkir", "color": "P"}, BAD, "color", "unknown color"),
    T("draft pool: flag of the wrong type", POOL, {"draft_id": "tarkir", "include_card_details": "yes please"}, BAD,
      "include_card_details", "valid boolean"),
    T("draft pool: control characters in the id", POOL, {"draft_id": "\x00\x1b[31m"}, MISSING, "draft_id",
      "known drafts: tarkir"),
    T("unknown tool", "drop_tables", {}, BAD, "tool", "unknown tool 'drop_tables'"),
]
# fmt: on


def arguments_of(refusal: ToolRefusal) -> Any:
    return refusal.arguments() if callable(refusal.arguments) else refusal.arguments


def assert_tool_error(body: dict[str, Any], refusal: ToolRefusal) -> str:
    assert body["error"] == refusal.error and body.get("field") == refusal.field, body
    assert refusal.says.lower() in body["message"].lower(), body
    if refusal.error == "invalid_argument":  # the message names the field too
        assert refusal.field.split(".")[-1] in body["message"], body
    return f"{body['error']} ({body['field']})"


REGISTRY_ERRORS: dict[str, dict[str, Any]] = {}  # case → the in-process error, for the MCP run to match


def registry_error(world: dict[str, Any], refusal: ToolRefusal) -> dict[str, Any]:
    if refusal.case not in REGISTRY_ERRORS:
        with pytest.raises(MetaMageError) as raised:
            world["registry"].call(refusal.tool, arguments_of(refusal), world["context"])
        REGISTRY_ERRORS[refusal.case] = dict(raised.value.to_dict())
    return REGISTRY_ERRORS[refusal.case]


@pytest.mark.parametrize("refusal", TOOL_REFUSALS, ids=str)
def test_tools_in_process_refuse_bad_input(modern_world: dict[str, Any], tables: Tables, refusal: ToolRefusal) -> None:
    with bad_input(tables, refusal.case, "registry") as probe:
        REGISTRY_ERRORS.pop(refusal.case, None)
        probe.outcome = assert_tool_error(registry_error(modern_world, refusal), refusal)
    assert call(modern_world, "list_drafts")["drafts"][0]["draft_id"] == "tarkir"


async def test_tools_over_mcp_refuse_bad_input(mcp_url: str, modern_world: dict[str, Any], tables: Tables) -> None:
    """The same refusals through the SDK's client, one session for all (a session per case costs more than
    the case): each is recorded on its own, and a good call follows each."""
    failed: list[str] = []
    async with mcp_session(mcp_url) as session:
        for refusal in MCP_REFUSALS:
            try:
                with bad_input(tables, refusal.case, "mcp") as probe:
                    result = await session.call_tool(refusal.tool, arguments_of(refusal))
                    assert result.isError
                    body = json.loads(result.content[0].text)  # type: ignore[union-attr]
                    assert body == registry_error(modern_world, refusal)  # the very error registry.call raises
                    probe.outcome = "isError: " + assert_tool_error(body, refusal)
                assert not (await session.call_tool("list_drafts", {})).isError
            except AssertionError as exc:
                failed.append(f"{refusal.case}: {exc}")
    assert not failed, failed


@dataclass(frozen=True)
class ToolAnswer:
    """A bad-looking input a tool should answer, and what the answer must say."""

    case: str
    tool: str
    arguments: Callable[[], dict[str, Any]]
    check: Callable[[dict[str, Any]], str]

    def __str__(self) -> str:
        return self.case


def _only_unknown_cards(result: dict[str, Any]) -> str:
    # every card kept at its count, marked unknown (issue 24: a deck still adds up), none read
    assert all(c["unknown"] for c in result["card_details"]) and result["corrected"] == {}
    assert sum(c["quantity"] for c in result["card_details"]) == 60
    assert [u["name"] for u in result["unresolved"]] == ["Xyzzy Plugh", "Frobnitz Qux", "Glorpwump Island"]
    assert result["counts"]["unresolved"] == result["counts"]["mainboard"] == 60
    return "answered: 0 cards resolved, all 3 names listed as unresolved and kept as unknown"


UNICODE_DECK = (
    "4 Lightning Bolt\x00\n4 Ragavan, Nimble Pilferer\x07\n2 Lim-Dûl's Vault 🧙\u200d♂️\n"
    "1 Lim-Du\u0302l's Vault\n\x1b[31m1 Island\n4 Ｌｉｇｈｔｎｉｎｇ Ｈｅｌｉｘ"
)


def _unicode_deck(result: dict[str, Any]) -> str:
    assert [(c["name"], c["quantity"]) for c in result["card_details"] if not c["unknown"]] == [
        ("Lightning Bolt", 4),
        ("Ragavan, Nimble Pilferer", 4),
        ("Lim-Dûl's Vault", 1),  # typed decomposed (u + combining circumflex): the same card
    ]
    assert result["corrected"] == {}  # control characters are read as spaces: the names are exact
    unresolved = {u["name"]: u["suggestions"] for u in result["unresolved"]}
    assert list(unresolved) == ["Lim-Dûl's Vault 🧙\u200d♂️", "Ｌｉｇｈｔｎｉｎｇ Ｈｅｌｉｘ"]
    assert "Lim-Dûl's Vault" in unresolved["Lim-Dûl's Vault 🧙\u200d♂️"]
    assert result["skipped_lines"] == ["[31m1 Island"]
    return "answered: control characters read as spaces, NFD name matched, emoji/fullwidth names unresolved"


def _classified_unknown(result: dict[str, Any]) -> str:
    assert (result["archetype"], result["matched_by"], result["candidates"]) == ("Unknown", "unknown", [])
    return "answered: archetype Unknown (matched_by unknown)"


def _optimized_unknown(result: dict[str, Any]) -> str:
    assert result["core_cards"] == []
    assert {(u["name"], u["inclusion_rate"]) for u in result["flex_spots"]} == {("Xyzzy Plugh", 0.0), ("Frobnitz", 0.0)}
    assert {s["cut"] for s in result["swaps"]} == {"Xyzzy Plugh", "Frobnitz"}
    assert all("0.0% of" in s["reason"] for s in result["swaps"])
    return "answered: every card a 0% flex spot, swaps to the archetype's core cards"


UNKNOWN_DETAILS = [
    {"name": "Xyzzy Plugh", "quantity": 4, "section": "mainboard"},
    {"name": "Frobnitz", "quantity": 56, "section": "mainboard"},
]
TOOL_ANSWERS = [
    ToolAnswer(
        "enriched deck: only unknown cards", "get_enriched_deck", lambda: {"deck": UNKNOWN_CARDS}, _only_unknown_cards
    ),
    ToolAnswer(
        "enriched deck: unicode and control characters",
        "get_enriched_deck",
        lambda: {"deck": UNICODE_DECK},
        _unicode_deck,
    ),
    ToolAnswer(
        "classify: only unknown cards",
        "classify_deck",
        lambda: {"deck": UNKNOWN_CARDS, "format": "Modern"},
        _classified_unknown,
    ),
    ToolAnswer(
        "mainboard: only unknown cards",
        "optimize_mainboard",
        _coaching(card_details=UNKNOWN_DETAILS),
        _optimized_unknown,
    ),
]


@pytest.mark.parametrize("answer", TOOL_ANSWERS, ids=str)
def test_tools_in_process_answer_odd_decks(modern_world: dict[str, Any], tables: Tables, answer: ToolAnswer) -> None:
    with bad_input(tables, answer.case, "registry") as probe:
        probe.outcome = answer.check(call(modern_world, answer.tool, **answer.arguments()))


@pytest.mark.parametrize("answer", TOOL_ANSWERS, ids=str)
async def test_tools_over_mcp_answer_odd_decks(
    mcp_url: str, modern_world: dict[str, Any], tables: Tables, answer: ToolAnswer
) -> None:
    async with mcp_session(mcp_url) as session:
        with bad_input(tables, answer.case, "mcp") as probe:
            result = await session.call_tool(answer.tool, answer.arguments())
            assert not result.isError and result.structuredContent == call(
                modern_world, answer.tool, **answer.arguments()
            )
            probe.outcome = answer.check(result.structuredContent)


@dataclass(frozen=True)
class RpcRefusal:
    """A request to the MCP endpoint that is not a well-formed tool call."""

    case: str
    body: bytes
    status: int
    code: int
    says: str
    method: str = "POST"
    content_type: str = "application/json"
    field: str | None = None  # named in the error's data

    def __str__(self) -> str:
        return self.case


def _rpc(method: str, params: Any = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 7, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


# fmt: off
RPC_REFUSALS = [
    RpcRefusal("mcp: malformed JSON", b'{"jsonrpc": "2.0", "id": 7,', 400, -32700, "Parse error"),
    RpcRefusal("mcp: body not a JSON-RPC message", b'["tools/call"]', 400, -32602, "Validation error"),
    RpcRefusal("mcp: arguments not an object", _rpc("tools/call", {"name": "list_formats", "arguments": ["Modern"]}),
               200, -32602, "params.arguments: must be an object", field="params.arguments"),
    RpcRefusal("mcp: tool name missing", _rpc("tools/call", {"arguments": {}}), 200, -32602, "params.name: ",
               field="params.name"),
    RpcRefusal("mcp: unknown method", _rpc("tools/destroy", {}), 200, -32601, "unknown method 'tools/destroy'",
               field="method"),
    RpcRefusal("mcp: GET (no SSE stream)", b"", 405, -32600, "Method Not Allowed", method="GET"),
    RpcRefusal("mcp: wrong content type", _rpc("tools/list"), 400, 0, "Invalid Content-Type",
               content_type="text/plain"),
    RpcRefusal("mcp: 2,000 nested arrays", DEEP_NESTING, 400, -32700, "Parse error: request body is not valid JSON"),
    RpcRefusal("mcp: a 5,000-digit id", b'{"jsonrpc": "2.0", "method": "tools/list", "id": 1' + b"0" * 4999 + b"}",
               400, -32700, "more than 4300 digits"),
    RpcRefusal("mcp: body is not UTF-8", b'{"jsonrpc": "2.0", "id": 7, "method": "tools/\xff"}', 400, -32700,
               "not UTF-8"),
    RpcRefusal("mcp: 2 MB body", _rpc("tools/call", {"name": "get_enriched_deck", "arguments": {"deck": "x" * 2**21}}),
               413, -32600, "the limit is 1048576"),
]
# fmt: on
RPC_HEADERS = {"accept": "application/json, text/event-stream"}


@pytest.mark.parametrize("refusal", RPC_REFUSALS, ids=str)
async def test_mcp_endpoint_refuses_malformed_requests(mcp_url: str, tables: Tables, refusal: RpcRefusal) -> None:
    headers = {**RPC_HEADERS, "content-type": refusal.content_type}
    async with httpx.AsyncClient(timeout=5) as http:
        with bad_input(tables, refusal.case, "mcp") as probe:
            response = await http.request(refusal.method, mcp_url, content=refusal.body or None, headers=headers)
            assert response.status_code == refusal.status, response.text
            if refusal.code:
                error = response.json()["error"]
                assert error["code"] == refusal.code and refusal.says in error["message"], error
                assert refusal.field is None or error["data"] == {"field": refusal.field}, error
                first_line = error["message"].splitlines()[0][:60]
                probe.outcome = f"{response.status_code} JSON-RPC {error['code']}: {first_line}"
            else:
                assert refusal.says in response.text
                probe.outcome = f"{response.status_code} {response.text[:60]}"
        good = await http.post(
            mcp_url,
            content=_rpc("tools/call", {"name": "list_formats", "arguments": {}}),
            headers={**RPC_HEADERS, "content-type": "application/json"},
        )
        assert good.status_code == 200 and good.json()["result"]["isError"] is False


async def test_mcp_refuses_a_lone_surrogate_sent_raw(mcp_url: str, tables: Tables) -> None:
    body = (
        b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "get_enriched_deck", '
        b'"arguments": {"deck": "4 Lightning Bolt\\ud800"}}}'
    )
    async with httpx.AsyncClient(timeout=5) as http:
        with bad_input(tables, "mcp: lone surrogate in the arguments", "mcp") as probe:
            response = await http.post(
                mcp_url, content=body, headers={**RPC_HEADERS, "content-type": "application/json"}
            )
            result = response.json()["result"]
            error = json.loads(result["content"][0]["text"])
            assert result["isError"] and error["field"] == "deck" and "unicode" in error["message"]
            probe.outcome = "isError: invalid_argument (deck)"


# --- ingest: the CLI -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def known_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Good inputs already in the world: ingesting them again changes nothing (the event and the draft are
    "unchanged", the card is rewritten with the same values)."""
    folder = tmp_path_factory.mktemp("known")
    files = {
        "tournaments": folder / "known-event.json",
        "cards": folder / "known-card.json",
        "draft": TARKIR,
    }
    files["tournaments"].write_bytes(known_tournament())
    files["cards"].write_bytes(dumps([demo_card("Lightning Bolt")]))
    return files


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli(list(argv))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def gz_truncated(data: bytes) -> bytes:
    packed = gzip.compress(data)
    return packed[: len(packed) // 2]


@dataclass(frozen=True)
class FileCase:
    """A bad input file for ``meta-mage ingest KIND`` (and, where it applies, the drop zone)."""

    case: str
    kind: str  # tournaments | cards | draft
    name: str
    content: Callable[[], bytes]
    says: tuple[str, ...]  # the field (or what is wrong) the failure must name

    def __str__(self) -> str:
        return self.case


def _counts_as_text() -> bytes:
    document = tournament()
    document["Decks"][0]["Mainboard"][0]["Count"] = "4"
    return dumps(document)


def _bad_format() -> bytes:
    document = tournament()
    document["Tournament"]["Formats"] = "Commander"
    return dumps(document)


def _bad_date() -> bytes:
    document = tournament()
    document["Tournament"]["Date"] = "2025-13-45T00:00:00Z"
    return dumps(document)


def _raw_control_character() -> bytes:
    document = tournament()
    document["Decks"][0]["Player"] = "bell\x07player"
    return json.dumps(document).replace("\\u0007", "\x07").encode()


def _duplicate(first: str, second: str) -> Callable[[], bytes]:
    def build() -> bytes:
        card = demo_card(first)
        return dumps([card, {**card, "name": second}])

    return build


F = FileCase
NO_NAME, TWO_UNKNOWN = [{"manaCost": "{R}"}], [{"name": "Xyzzy Plugh"}, {"name": "Frobnitz Qux"}]
BOLT = "Lightning Bolt"
# fmt: off
FILE_CASES = [
    F("tournament: Rounds missing", "tournaments", "no-rounds.json", lambda: dumps(tournament(Rounds=None)),
      ("missing 'Rounds'",)),
    F("tournament: truncated JSON", "tournaments", "cut.json", lambda: known_tournament()[:5000],
      ("invalid JSON at line",)),
    F("tournament: truncated gzip", "tournaments", "cut.json.gz", lambda: gz_truncated(known_tournament()),
      ("truncated or corrupt gzip",)),
    F("tournament: truncated archive", "tournaments", "cut.tar.gz",
      lambda: archive_bytes({"a.json": known_tournament()})[:3000], ("unreadable archive",)),
    F("tournament: Decks of the wrong type", "tournaments", "decks.json", lambda: dumps(tournament(Decks="all")),
      ("'Decks' and 'Rounds' must be lists",)),
    F("tournament: Count of the wrong type", "tournaments", "count.json", _counts_as_text, ("has Count '4'",)),
    F("tournament: unknown format", "tournaments", "commander.json", _bad_format,
      ("Tournament.Formats is 'Commander'",)),
    F("tournament: impossible date", "tournaments", "date.json", _bad_date, ("Tournament.Date",)),
    F("tournament: raw control character", "tournaments", "bell.json", _raw_control_character,
      ("Invalid control character",)),
    F("tournament: UTF-16 file", "tournaments", "utf16.json", lambda: known_tournament().decode().encode("utf-16"),
      ("not UTF-8 text",)),
    F("tournament: a card corpus instead", "tournaments", "cards.json", lambda: dumps([demo_card(BOLT)]),
      ("expected a JSON object with Tournament, Decks and Rounds",)),
    F("cards: duplicate names", "cards", "dupes.json", _duplicate(BOLT, BOLT),
      ("card name 'Lightning Bolt' appears more than once",)),
    F("cards: names differing only in case", "cards", "case-dupes.json", _duplicate(BOLT, BOLT.upper()),
      ("'LIGHTNING BOLT' appears more than once",)),
    F("cards: names differing only in Unicode form", "cards", "nfd-dupes.json",
      _duplicate("Lim-Dûl's Vault", unicodedata.normalize("NFD", "Lim-Dûl's Vault")), ("appears more than once",)),
    F("cards: not a corpus", "cards", "object.json", lambda: dumps({"cards": [demo_card(BOLT)]}),
      ("not a card corpus",)),
    F("cards: card without a name", "cards", "nameless.json", lambda: dumps(NO_NAME), ("card #1", "'name'")),
    F("cards: mana value of the wrong type", "cards", "mana.json",
      lambda: dumps([{**demo_card(BOLT), "manaValue": "one"}]), ("'Lightning Bolt'", "manaValue is 'one'")),
    F("cards: colours of the wrong type", "cards", "colours.json", lambda: dumps([{**demo_card(BOLT), "colors": 5}]),
      ("colors is 5",)),
    F("cards: truncated gzip", "cards", "cards.json.gz", lambda: gz_truncated(dumps([demo_card(BOLT)] * 50)),
      ("truncated or corrupt gzip",)),
    F("draft: draft_date missing", "draft", "no-date.json", lambda: dumps(draft(draft_date=None)),
      ("draft_date: Field required",)),
    F("draft: only unknown cards", "draft", "unknown.json",
      lambda: dumps(draft(cube=TWO_UNKNOWN, picks=[], drafters=[], opt_outs=[])),
      ("2 cube card(s) not in the card data", "'Xyzzy Plugh'")),
    F("draft: pick_n of the wrong type", "draft", "pick.json",
      lambda: dumps(draft(picks=[{"pick_n": "first", "drafter": "arborist77", "card": "Abrade"}])),
      ("picks.0.pick_n",)),
    F("draft: bad draft_id", "draft", "id.json", lambda: dumps(draft(draft_id="Tarkir Cube!")),
      ("draft_id: String should match pattern",)),
    F("draft: pick of a card not in the cube", "draft", "pick-card.json",
      lambda: dumps(draft(picks=[{"pick_n": 1, "drafter": "arborist77", "card": "Xyzzy Plugh"}])),
      ("picks.0: pick 1 by 'arborist77' is 'Xyzzy Plugh', which is not in the cube",)),
    F("draft: truncated JSON", "draft", "cut-draft.json", lambda: TARKIR.read_bytes()[:700],
      ("invalid JSON at line",)),
]
# fmt: on


def cli_argv(kind: str, path: Path) -> list[str]:
    return ["ingest", kind, str(path)]


def assert_cli_still_ingests(capsys: pytest.CaptureFixture[str], known: dict[str, Path]) -> None:
    """A good ingest afterwards works: the cheapest good input, a card already stored, rewritten with the same
    values (``test_cli_ingests_known_files_after_the_bad_ones`` re-ingests the other kinds)."""
    code, output = run_cli(capsys, "ingest", "cards", str(known["cards"]))
    assert code == 0 and "1 files ingested" in output, output


@pytest.mark.parametrize("case", FILE_CASES, ids=str)
def test_cli_ingest_names_the_file_and_the_field(
    world_env: dict[str, Any],
    tables: Tables,
    known_files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: FileCase,
) -> None:
    path = tmp_path / case.name
    path.write_bytes(case.content())
    with bad_input(tables, case.case, "cli") as probe:
        code, output = run_cli(capsys, *cli_argv(case.kind, path))
        assert code == 1, output
        assert "Traceback" not in output
        failure = next(line for line in output.splitlines() if "FAILED" in line)
        assert str(path) in failure, output
        for words in case.says:
            assert words in failure, output
        probe.outcome = "exit 1: " + failure.split(f"{path}: ", 1)[1][:90]
    assert_cli_still_ingests(capsys, known_files)


PICKS_HEADER = "pick_n,drafter,card\n"
# fmt: off
CSV_CASES = [  # case, pool.csv, picks.csv, the file named, what it says
    ("draft CSV: quantity column missing", "name\nAbrade\n", PICKS_HEADER + "1,arborist77,Abrade\n", "pool.csv",
     "missing column(s) quantity"),
    ("draft CSV: not UTF-8", "name,quantity\nJ\xf6tun Grunt,1\n", PICKS_HEADER, "pool.csv", "not UTF-8 text"),
    ("draft CSV: pick row without a card", "name,quantity\nAbrade,1\n", PICKS_HEADER + "1,arborist77\n", "picks.csv",
     "line 2: no value for card"),
    ("draft CSV: pick_n of the wrong type", "name,quantity\nAbrade,1\n", PICKS_HEADER + "first,arborist77,Abrade\n",
     "picks.csv", "pick_n must be a whole number"),
]
# fmt: on


@pytest.mark.parametrize(("case", "pool", "picks", "culprit", "says"), CSV_CASES, ids=[c[0] for c in CSV_CASES])
def test_cli_ingest_draft_csv_names_the_file_and_the_field(
    world_env: dict[str, Any],
    tables: Tables,
    known_files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: str,
    pool: str,
    picks: str,
    culprit: str,
    says: str,
) -> None:
    (tmp_path / "pool.csv").write_bytes(pool.encode("latin-1"))
    (tmp_path / "picks.csv").write_text(picks)
    pool_csv, picks_csv = str(tmp_path / "pool.csv"), str(tmp_path / "picks.csv")
    argv = ["ingest", "draft", "--pool", pool_csv, "--picks", picks_csv, "--draft-id", "csvcube", "--name", "CSV cube"]
    with bad_input(tables, case, "cli") as probe:
        code, output = run_cli(capsys, *argv, "--date", "2025-12-01")
        assert code == 1 and "Traceback" not in output, output
        assert str(tmp_path / culprit) in output and says in output, output
        probe.outcome = "exit 1: " + output.strip().splitlines()[-1].split(": ", 2)[-1][:90]
    assert_cli_still_ingests(capsys, known_files)


def test_cli_ingest_refuses_missing_and_empty_paths(
    world_env: dict[str, Any],
    tables: Tables,
    known_files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    missing, empty = tmp_path / "no-such-folder", tmp_path / "empty-folder"
    empty.mkdir()
    for case, path, says in [
        ("tournament: path does not exist", missing, "no such file or folder"),
        ("tournament: folder without JSON files", empty, "folder holds no .json"),
    ]:
        with bad_input(tables, case, "cli") as probe:
            code, output = run_cli(capsys, "ingest", "tournaments", str(path))
            assert code == 1 and f"FAILED {path}: {says}" in output, output
            probe.outcome = f"exit 1: {says}"
    assert_cli_still_ingests(capsys, known_files)


def test_cli_ingest_accepts_a_byte_order_mark(
    world_env: dict[str, Any], tables: Tables, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A UTF-8 BOM (Windows editors add one) is ignored, as RFC 8259 allows: the event is the known one."""
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + known_tournament())
    with bad_input(tables, "tournament: UTF-8 byte order mark", "cli") as probe:
        code, output = run_cli(capsys, "ingest", "tournaments", str(path))
        assert code == 0 and "1 unchanged" in output, output
        probe.outcome = "exit 0: read as the known event (1 unchanged)"


def test_cli_ingests_known_files_after_the_bad_ones(
    world_env: dict[str, Any], known_files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """After every bad file, each kind's good file still ingests: the known event and draft are unchanged."""
    for kind, path in (("tournaments", known_files["tournaments"]), ("draft", known_files["draft"])):
        code, output = run_cli(capsys, "ingest", kind, str(path))
        assert code == 0 and "1 unchanged" in output, output


# --- ingest: the S3 drop zone ----------------------------------------------------------------------


@cache
def ingest_function() -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    return entry_point("ingest")


def drop(env: dict[str, Any], key: str, data: bytes) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Put an object and deliver its notification: the object's result and the failure queue's messages."""
    env["s3"].put_object(Bucket=DROP_BUCKET, Key=key, Body=data)
    response = ingest_function()(s3_event(key, bucket=DROP_BUCKET), FakeLambdaContext("IngestFunction", 1024))
    [result] = response["objects"]
    messages = []
    while batch := env["sqs"].receive_message(QueueUrl=env["queue_url"], MaxNumberOfMessages=10).get("Messages", []):
        for message in batch:
            messages.append(json.loads(message["Body"]))
            env["sqs"].delete_message(QueueUrl=env["queue_url"], ReceiptHandle=message["ReceiptHandle"])
    return result, messages


DROP_PREFIX = {"tournaments": "tournaments", "cards": "cards", "draft": "drafts"}
CSV_HEADER = {"pool_csv": "pool.csv", "picks_csv": "picks.csv"}
# fmt: off
DROP_CASES = [
    *FILE_CASES,
    F("drop: draft in the CSV form", "draft", "header.json",
      lambda: dumps({**draft(cube=None, picks=None), **CSV_HEADER}), ("names pool_csv and picks_csv",)),
    F("drop: 1 MB of garbage", "tournaments", "big.json", lambda: ONE_MEGABYTE.encode(), ("invalid JSON at line 1",)),
    F("drop: empty file", "cards", "empty.json", lambda: b"", ("file is empty",)),
]
# fmt: on


def assert_good_drop_still_works(env: dict[str, Any]) -> None:
    """A good file afterwards is ingested: a card already stored, rewritten with the same values."""
    result, messages = drop(env, "cards/known/lightning-bolt.json", dumps([demo_card("Lightning Bolt")]))
    assert result["status"] == "ingested" and result["totals"] == {"cards stored": 1} and messages == []


@pytest.mark.parametrize("case", DROP_CASES, ids=lambda c: f"drop {c}")
def test_drop_zone_reports_the_key_and_the_field(world_env: dict[str, Any], tables: Tables, case: FileCase) -> None:
    key = f"{DROP_PREFIX[case.kind]}/bad/{case.name}"
    with bad_input(
        tables, f"drop: {case.case}" if not case.case.startswith("drop") else case.case, "drop zone"
    ) as probe:
        result, messages = drop(world_env, key, case.content())
        assert result["status"] == "failed", result
        [message] = messages
        assert message["key"] == key and message["error_code"] == "invalid_file", message
        assert message["source"].startswith(key)
        for words in case.says:
            assert words in message["reason"], message
        probe.outcome = f"failure queue: invalid_file: {message['reason'][:80]}"
    assert_good_drop_still_works(world_env)


# fmt: off
KEY_CASES = [  # case, key, content, error code, what the reason says
    ("drop: unknown prefix", "decks/my-list.json", known_tournament, "unknown_prefix", "is not under a known prefix"),
    ("drop: wrong extension", "tournaments/list.txt", known_tournament, "unsupported_file", "must end with .json"),
    ("drop: unicode and control characters in the key", "tournaments/ünïcødé \u202e/évent\x07.json",
     lambda: dumps(tournament(Rounds=None)), "invalid_file", "missing 'Rounds'"),
]
# fmt: on


@pytest.mark.parametrize(("case", "key", "content", "code", "says"), KEY_CASES, ids=[c[0] for c in KEY_CASES])
def test_drop_zone_names_odd_keys_exactly(
    world_env: dict[str, Any], tables: Tables, case: str, key: str, content: Callable[[], bytes], code: str, says: str
) -> None:
    with bad_input(tables, case, "drop zone") as probe:
        result, messages = drop(world_env, key, content())
        [message] = messages
        assert result["status"] == "failed" and message["key"] == key and message["error_code"] == code, message
        assert says in message["reason"], message
        probe.outcome = f"failure queue: {code}: {message['reason'][:60]}"
    assert_good_drop_still_works(world_env)


# --- the summary -----------------------------------------------------------------------------------


MCP_REFUSALS = [r for r in TOOL_REFUSALS if r.over_mcp]
CASES_PER_TEST = {  # the bad inputs each test tries (1 unless listed)
    "test_the_snapshot_reads_what_a_scan_returns": 0,
    "test_chat_tries_an_unknown_archetype_once": 0,
    "test_tools_over_mcp_refuse_bad_input": len(MCP_REFUSALS),
    "test_cli_ingest_refuses_missing_and_empty_paths": 2,
    "test_cli_ingests_known_files_after_the_bad_ones": 0,
}


def test_zz_every_bad_input_was_refused_cleanly(request: pytest.FixtureRequest) -> None:
    """Runs last in this module: every selected case was recorded, refused (or answered) cleanly, and
    changed no table. The terminal summary prints the line."""
    selected = [i for i in request.session.items if i.path == request.node.path and i is not request.node]
    expected = sum(CASES_PER_TEST.get(getattr(i, "originalname", i.name), 1) for i in selected)
    assert BAD_INPUTS.tried == expected, BAD_INPUTS.line()
    assert BAD_INPUTS.clean == BAD_INPUTS.tried and BAD_INPUTS.changed == 0, [
        o for o in BAD_INPUTS.outcomes if not o.clean or o.changed
    ]
    defined = (
        len(CHAT_REFUSALS + READ_REFUSALS + FUNCTION_REFUSALS + TOOL_REFUSALS + RPC_REFUSALS + FILE_CASES + CSV_CASES)
        + len(ECHO_CASES)
        + len(MCP_REFUSALS)
        + 2 * len(TOOL_ANSWERS)
        + len(DROP_CASES + KEY_CASES)
        + 4  # accepted chat turns
        + 1  # unknown route of the small functions
        + 1  # lone surrogate sent raw over MCP
        + 2  # missing path, empty folder
        + 1  # byte order mark
    )
    assert defined >= 40
