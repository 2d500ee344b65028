"""The one table of pasted lists (tests/deck_samples.json) read by the server's rules: the list found in the
message, then its main deck and sideboard counted. The browser test runs the same table through the chat
page's summary, so both sides count alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from meta_mage.agent.words import extract_decklist
from meta_mage.decks.parse import parse_deck_text

SAMPLES: list[dict[str, Any]] = json.loads((Path(__file__).parents[1] / "deck_samples.json").read_text())["samples"]


@pytest.mark.parametrize("sample", SAMPLES, ids=[s["name"] for s in SAMPLES])
def test_the_server_counts_each_sample_list(sample: dict[str, Any]) -> None:
    text = extract_decklist(sample["text"])
    assert text is not None
    deck = parse_deck_text(text)
    assert (sum(deck.mainboard.values()), sum(deck.sideboard.values())) == (sample["main"], sample["side"])
