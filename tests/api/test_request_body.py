"""Request bodies and echoed input: JSON parsing that never raises past the API, error messages that
repeat client input cut short, query parameters given once, and what the OpenAPI document says."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from meta_mage.api.factory import build_app
from meta_mage.api.reads import single_values
from meta_mage.api.request_body import load_json
from meta_mage.errors import InvalidArgument, MetaMageError, echo


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (b"[" * 2000, "nested too deeply"),
        (b"[" * 999 + b"]" * 999, None),  # deep, but the parser manages it: parsed
        (b'{"n": 1' + b"0" * 4999 + b"}", f"a number has more than {sys.get_int_max_str_digits()} digits"),
        (b'{"n": NaN}', "NaN is not a JSON value"),
        (b'{"n": -Infinity}', "-Infinity is not a JSON value"),
        (b'{"m": "\xc3\x28"}', "not UTF-8 text (invalid continuation byte at byte 7)"),
        (b'{"m": ', "not valid JSON: Expecting value"),
    ],
)
def test_load_json_parses_or_names_the_problem(raw: bytes, says: str | None) -> None:
    if says is None:
        assert load_json(raw) is not None
        return
    with pytest.raises(InvalidArgument) as caught:
        load_json(raw)
    assert says in caught.value.message


def test_echo_cuts_long_input_and_says_how_long_it_was() -> None:
    assert echo("Modern") == "'Modern'"
    assert echo("a" * 1000) == "'" + "a" * 100 + "'… (1,000 characters)"
    assert echo(["x" * 500]).endswith("… (504 characters)")  # the repr of a list, cut alike


def test_an_error_bounds_its_message_and_field_whatever_it_repeats() -> None:
    error = MetaMageError(f"{'a' * 100_000}: unexpected argument; allowed: format, days", field="b" * 100_000)
    assert len(error.message) < 2100 and error.message.endswith("unexpected argument; allowed: format, days")
    assert "characters cut" in error.message
    assert error.field == "b" * 200 + "… (100,000 characters)"
    assert MetaMageError("short", field="format").to_dict() == {"error": "error", "message": "short", "field": "format"}


def test_single_values_refuses_a_repeated_parameter_by_name() -> None:
    assert single_values([("format", "Modern"), ("days", "30")]) == {"format": "Modern", "days": "30"}
    with pytest.raises(InvalidArgument) as caught:
        single_values([("format", "Modern"), ("days", "30"), ("format", "Modern")])
    assert caught.value.field == "format" and caught.value.message == "format: given more than once; give it once"


def test_the_openapi_document_describes_the_chat_body_and_the_errors(modern_world: dict[str, Any]) -> None:
    app = build_app(modern_world["settings"], modern_world["db"])
    document = app.openapi()
    chat = document["paths"]["/chat"]["post"]
    body = chat["requestBody"]["content"]["application/json"]["schema"]
    assert body["required"] == ["message"] and body["additionalProperties"] is False
    assert body["properties"]["message"]["maxLength"] == modern_world["settings"].max_message_chars
    context = body["properties"]["context"]["anyOf"][0]
    assert context["additionalProperties"] is False and context["properties"]["days"]["anyOf"][0]["maximum"] == 365
    assert set(chat["responses"]) == {"200", "400", "404", "408", "409", "413", "415", "503"}
    assert "text/event-stream" in chat["responses"]["200"]["content"]
    error = chat["responses"]["400"]["content"]["application/json"]["schema"]["$ref"]
    assert error == "#/components/schemas/ErrorBody"
    archetypes = {p["name"]: p for p in document["paths"]["/archetypes"]["get"]["parameters"]}
    assert archetypes["format"]["required"] and archetypes["days"]["schema"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 365,
        "default": 30,
    }
    pool = [p["name"] for p in document["paths"]["/drafts/{draft_id}/pool"]["get"]["parameters"]]
    assert pool.count("draft_id") == 1 and "color" in pool
