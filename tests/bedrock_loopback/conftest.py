"""Each test that talks to the session's world starts with no model-written welcome stored in its LocksTable."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _no_welcome_stored(request: pytest.FixtureRequest) -> Iterator[None]:
    if "modern_world" not in request.fixturenames:
        yield
        return
    table = request.getfixturevalue("modern_world")["db"].Table(
        request.getfixturevalue("modern_world")["settings"].locks_table
    )

    def forget() -> None:
        for item in table.scan(ProjectionExpression="pk")["Items"]:
            if str(item["pk"]).startswith("welcome-message#"):
                table.delete_item(Key={"pk": item["pk"]})

    forget()
    yield
    forget()
