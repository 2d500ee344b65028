"""``extract_decklist`` reads a routed message once: the route's steps all ask for the same message's
list (``rule_route``, then ``tidy`` and ``merge_slots``), and the answer is remembered."""

from __future__ import annotations

import pytest

from meta_mage.agent.router import rule_route
from meta_mage.agent.state import ConversationState
from meta_mage.agent.words import extract_decklist
from tests.unit.routing_data import DECK, lookups

LONG = "Review my Modern deck:\n" + "\n".join(f"{i % 4 + 1} Card Number {i}" for i in range(440))


@pytest.mark.parametrize(
    "message",
    [
        f"Here is my deck:\n{DECK}\nthanks",
        f"\n\n  Deck\n{DECK}  \n\n",
        f"   {DECK}\n",
        "  what are the top decks?  ",
        LONG[:8000] + "\n",
    ],
)
def test_the_list_is_the_same_whether_the_message_is_stripped_or_not(message: str) -> None:
    extract_decklist.cache_clear()
    assert extract_decklist(message) == extract_decklist(message.strip())


async def test_a_routed_message_is_read_for_its_list_once() -> None:
    message = LONG[:8000] + "\n"  # rule_route strips it; the others get it as sent
    extract_decklist.cache_clear()
    decision = await rule_route(message, ConversationState(), lookups())
    assert decision.has_decklist and decision.workflow == "deck_coaching"
    assert extract_decklist(message) is not None  # as tidy and merge_slots ask after rule_route
    assert extract_decklist(message) is not None
    info = extract_decklist.cache_info()
    assert (info.misses, info.hits) == (1, 2)
