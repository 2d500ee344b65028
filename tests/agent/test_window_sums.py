"""The summed windows a process keeps (``storage/meta/reads.py``'s ``_total_of``) are shared by every tool call: no
reader may change them, and a rewrite of a day is read afresh."""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any

from meta_mage.agent.conversation import Conversations
from meta_mage.analytics.matchup_fit import window_start
from meta_mage.config import Settings
from meta_mage.storage.dynamo import pack
from meta_mage.storage.meta import MetaRepository
from meta_mage.storage.meta.reads import _total_of
from tests.agent.conftest import modern_deck, run_turn

WINDOW = ("2025-10-01", "2025-12-31")  # every demo Modern day


async def test_no_tool_changes_a_shared_window(offline: Conversations, modern_world: dict[str, Any]) -> None:
    meta = MetaRepository(modern_world["db"].Table(modern_world["settings"].meta_table))
    # Given the format's windows and every archetype's, summed and kept
    windows = [("FMT#Modern", 30), ("FMT#Modern", 14)]
    names = list(meta.format_stats("Modern", *WINDOW).archetype_decks)
    windows += [(f"ARCH#Modern#{name}", 30) for name in names]
    end = meta.get_format("Modern").last_date  # type: ignore[union-attr]
    start = {days: window_start(dt.date.fromisoformat(end), days).isoformat() for _, days in windows}
    kept = {(pk, days): meta._day_items(pk, start[days], end) for pk, days in windows}
    before = {key: copy.deepcopy(_total_of(items)) for key, items in kept.items()}
    # When the coach answers every kind of question over them
    deck, _ = modern_deck("Boros Energy")
    first = await run_turn(offline, f"Here is my deck:\n{deck}\n\nWhat are my worst matchups over the last 30 days?")
    for question in (
        "How do I sideboard against Jeskai Blink?",
        "Which flex slots should I change?",
        "What should I change in my sideboard?",
    ):
        await run_turn(offline, question, first.conversation_id)
    for question in (
        "What are the top decks in Modern over the last 14 days?",
        "How does Boros Energy do against Jeskai Blink in Modern, last 30 days?",
        "Show the matchup grid of Modern over the last 30 days",
        "What should I play in Modern?",
    ):
        await run_turn(offline, question)
    # Then each kept sum is as it was, and as summed afresh
    for key, items in kept.items():
        assert _total_of(items) == before[key], key
        assert _total_of(items) == _total_of.__wrapped__(items), key


def test_a_rewritten_day_is_summed_afresh(dynamodb: Any, settings: Settings) -> None:
    table = dynamodb.Table(settings.meta_table)
    meta = MetaRepository(table)
    # Given a day summed once
    table.put_item(Item={"pk": "FMT#Modern", "sk": "DAY#2025-11-01", "data": pack({"decks": 3})})
    assert meta.format_total("Modern", "2025-11-01", "2025-11-01").decks == 3
    # When the day is rewritten (by an ingest, or in another table with the same keys)
    table.put_item(Item={"pk": "FMT#Modern", "sk": "DAY#2025-11-01", "data": pack({"decks": 5})})
    # Then the next read sums what is stored now
    assert meta.format_total("Modern", "2025-11-01", "2025-11-01").decks == 5
    # and a second part of the day adds to it
    table.put_item(Item={"pk": "FMT#Modern", "sk": "DAY#2025-11-01#2", "data": pack({"decks": 1})})
    assert meta.format_total("Modern", "2025-11-01", "2025-11-01").decks == 6
    # and spans read together sum apart
    table.put_item(Item={"pk": "FMT#Modern", "sk": "DAY#2025-11-03", "data": pack({"decks": 7})})
    spans = meta.format_totals("Modern", ("2025-11-02", "2025-11-03"), ("2025-11-01", "2025-11-01"))
    assert [total.decks for total in spans] == [7, 6]
