"""Schemathesis over ``/openapi.json`` of the chat app (every endpoint ``meta-mage serve`` has), served by
real uvicorn on loopback over the Modern world: no answer is a 5xx, and every answer conforms to what the
document says of its operation (status code, content type, headers, body schema). Each operation gets
valid (positive) and invalid (negative) requests, a bounded number, derandomized so a run is repeatable;
``/chat`` runs an offline agent turn per accepted request, so it gets few valid ones.

(Schemathesis' lazy pytest loader, ``from_fixture``, fails under pytest 9 — it sets ``Function._nodeid`` —
so its Python API drives Hypothesis here.)"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import Case, GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from meta_mage.api.factory import build_app
from tests.servers import serving

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
POSITIVE, NEGATIVE = GenerationMode.POSITIVE, GenerationMode.NEGATIVE
# (operation, mode, examples); an operation with nothing to get wrong (no parameters, or a path parameter
# any string fills) has no invalid requests to make
RUNS = [
    ("GET /healthz", POSITIVE, 5),
    ("POST /chat", POSITIVE, 8),  # an accepted request is an agent turn (~0.3 s); a refused one is quick
    ("POST /chat", NEGATIVE, 150),
    ("GET /conversations/{conversation_id}", POSITIVE, 100),
    ("GET /welcome", POSITIVE, 5),
    ("GET /formats", POSITIVE, 5),
    ("GET /archetypes", POSITIVE, 150),
    ("GET /archetypes", NEGATIVE, 150),
    ("GET /archetypes/{archetype}/page", POSITIVE, 60),
    ("GET /archetypes/{archetype}/page", NEGATIVE, 60),
    ("GET /drafts", POSITIVE, 5),
    ("GET /drafts/{draft_id}/pool", POSITIVE, 150),
    ("GET /drafts/{draft_id}/pool", NEGATIVE, 150),
]
# runs with a real format or draft, so that valid requests reach the answers too (generated ones name none)
KNOWN = [
    ("GET /archetypes", {"query": {"format": "Modern"}}, 60),
    ("GET /drafts/{draft_id}/pool", {"path_parameters": {"draft_id": "tarkir"}}, 15),  # ~0.3 s each
    (
        "GET /archetypes/{archetype}/page",
        {"path_parameters": {"archetype": "boros-energy"}, "query": {"format": "Modern"}},
        8,  # ~0.3 s each
    ),
]
SENT: Counter[str] = Counter()  # requests made, and their statuses


class _Summary:
    """Prints the requests made and their statuses at the end of the run."""

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if SENT:
            terminalreporter.section("schemathesis")
            statuses = ", ".join(f"{status}: {n}" for status, n in sorted(SENT.items()) if status != "requests")
            terminalreporter.write_line(f"{SENT['requests']} requests ({statuses})")


@pytest.fixture(scope="module")
def api_schema(modern_world: dict[str, Any], request: pytest.FixtureRequest) -> Iterator[Any]:
    app = build_app(modern_world["settings"], modern_world["db"], serve_page=True)
    if not request.config.pluginmanager.has_plugin("schemathesis-summary"):
        request.config.pluginmanager.register(_Summary(), "schemathesis-summary")
    with serving(app) as base, requests.Session() as session:
        schema = schemathesis.openapi.from_url(f"{base}/openapi.json", config=SchemathesisConfig())
        yield schema, session


def test_the_document_lists_every_operation(api_schema: Any) -> None:
    schema, _ = api_schema
    labels = {result.ok().label for result in schema.get_all_operations()}
    assert labels == {label for label, _, _ in RUNS}


def conforms(session: requests.Session, strategy: Any, examples: int) -> None:
    """Send ``examples`` requests drawn from ``strategy``; each answer passes every check."""

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def run(case: Case[Any]) -> None:
        response = case.call(session=session, timeout=30)
        SENT["requests"] += 1
        SENT[str(response.status_code)] += 1
        case.validate_response(response, checks=CHECKS)

    run()


@pytest.mark.parametrize(("label", "mode", "examples"), RUNS, ids=[f"{r[0]} {r[1].value}" for r in RUNS])
def test_operation_conforms_to_the_document(api_schema: Any, label: str, mode: GenerationMode, examples: int) -> None:
    schema, session = api_schema
    conforms(session, schema.find_operation_by_label(label).as_strategy(generation_mode=mode), examples)


@pytest.mark.parametrize(("label", "fixed", "examples"), KNOWN, ids=[k[0] for k in KNOWN])
def test_answers_conform_to_the_document(api_schema: Any, label: str, fixed: dict[str, Any], examples: int) -> None:
    schema, session = api_schema
    conforms(session, schema.find_operation_by_label(label).as_strategy(**fixed), examples)
