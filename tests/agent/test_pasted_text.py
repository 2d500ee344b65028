"""Text as users paste it: a decklist copied on Windows (CRLF line endings) is read like any other."""

from meta_mage.agent.conversation import Conversations
from tests.agent.conftest import modern_deck, run_turn


async def test_a_list_pasted_with_windows_line_endings_reads_like_any_other(offline: Conversations) -> None:
    deck, _ = modern_deck("Boros Energy")
    question = f"Here is my deck:\n{deck}\n\nWhat are my worst matchups?"
    context = {"format": "Modern", "days": 30}

    unix = await run_turn(offline, question, context=context)
    windows = await run_turn(offline, question.replace("\n", "\r\n"), context=context)

    assert windows.tools() == unix.tools() and "get_enriched_deck" in unix.tools()
    assert windows.text == unix.text
    assert windows.state == unix.state
