"""Conversations players had, replayed over ``/chat`` in offline mode in the order they used (issue 36)."""

from __future__ import annotations

import httpx

from meta_mage.config import DEFAULT_DAYS
from tests.agent.conftest import modern_deck
from tests.api import test_chat_app
from tests.api.test_chat_app import chat

app, client = test_chat_app.app, test_chat_app.client  # the same app and client fixtures


async def say(client: httpx.AsyncClient, message: str, conversation_id: str | None = None) -> tuple[str, str]:
    """The answer's text and the conversation id."""
    response, events = await chat(client, {"message": message, "conversation_id": conversation_id})
    assert response.status_code == 200, response.text
    return "".join(d["text"] for k, d in events if k == "content"), events[0][1]["conversation_id"]


async def test_a_format_outside_the_data_is_named_as_such_and_the_request_goes_on(client: httpx.AsyncClient) -> None:
    # Given a player asking about Commander, which the data does not hold
    text, cid = await say(client, "What are the top decks in Commander?")
    # Then the coach says so and names the formats it has, instead of only asking for a format
    assert text.startswith("I have no tournament data for Commander:") and "Modern" in text
    # and the request goes on once the player picks one, window given in the same message
    text, _ = await say(client, "Modern, 30 days", cid)
    assert text.startswith("**Top decks in Modern**")


async def test_a_card_named_for_a_format_in_a_pasted_list_names_no_format(client: httpx.AsyncClient) -> None:
    # Given a real Modern Amulet Titan list (MTGO, 2025-11-10) that plays Icetill Explorer, pasted with no format
    deck = "4 Amulet of Vigor\n4 Arboreal Grazer\n1 Icetill Explorer\n4 Primeval Titan\n4 Summoner's Pact\n"
    text, _ = await say(client, deck + "4 Urza's Saga\n4 Dryad of the Ilysian Grove\n35 Forest")
    # Then the coach asks which format, and never says it has no data for "Explorer"
    assert "Explorer" not in text and text.startswith("Which format should I look at?"), text


async def test_what_a_card_answers_against_a_deck_is_a_card_question(client: httpx.AsyncClient) -> None:
    text, _ = await say(
        client, "what does Consign to Memory answer against Jeskai Blink in Modern over the last 30 days?"
    )
    assert text.startswith("**Consign to Memory against Jeskai Blink**, Modern")
    assert "What it does by its rules text:" in text


async def test_a_question_about_a_term_is_answered_and_the_request_goes_on(client: httpx.AsyncClient) -> None:
    picks, cid = await say(client, "What should I play in Modern over the last 30 days?")
    assert picks.startswith("**What to play in Modern**")
    # a question about the last answer's words: the glossary, not the menu or another task
    text, _ = await say(client, "what does 'leans favoured' mean?", cid)
    assert text.startswith("**leans favoured / leans unfavoured**:") and "no longer says" in text
    # "why …?" about the ranking: the rule that produced it
    text, _ = await say(
        client, "why is Boros Energy the safest pick if Jeskai Blink has a higher expected win rate?", cid
    )
    assert text.startswith("What to play is ordered on the low end of each archetype's 95% interval")
    # with the last answer's own rows for the two decks named, figures as they were shown, under their header
    named = [line for line in picks.splitlines() if line.split("|")[2:3] in ([" Boros Energy "], [" Jeskai Blink "])]
    header = next(line for line in picks.splitlines() if line.startswith("| # |"))
    assert len(named) == 2 and all(row in text.splitlines() for row in [header, *named]), text
    assert "From the last answer:" in text
    # and the request in progress is still what to play: the follow-up changes its window only
    text, _ = await say(client, "and the last 14 days?", cid)
    assert text.startswith("**What to play in Modern**") and "2025-11-04 to 2025-11-17" in text


async def test_follow_ups_in_a_deck_conversation_keep_the_deck(client: httpx.AsyncClient) -> None:
    deck, _ = modern_deck("Boros Energy")
    text, cid = await say(client, deck)
    text, _ = await say(client, "Modern, 30 days", cid)
    assert "**Boros Energy**" in text
    await say(client, "yes", cid)
    text, _ = await say(client, "how should I sideboard against Affinity?", cid)
    assert text.startswith("**Boros Energy vs Affinity**")
    # "and against X?" / "what about X?" re-run the deck's matchup with the one slot changed
    text, _ = await say(client, "and against Jeskai Blink?", cid)
    assert text.startswith("**Boros Energy vs Jeskai Blink**")
    text, _ = await say(client, "what about Amulet Titan?", cid)
    assert text.startswith("**Boros Energy vs Amulet Titan**")
    # and the deck is still Boros Energy, with no opponent left over in a question that names none
    text, _ = await say(client, "what are my worst matchups?", cid)
    assert text.startswith("**Boros Energy in Modern**") and "Against **Amulet Titan**" not in text


async def test_a_new_deck_does_not_inherit_an_earlier_questions_opponent(client: httpx.AsyncClient) -> None:
    text, cid = await say(client, "How does Jeskai Blink do against Boros Energy in Modern over the last 30 days?")
    assert "Against **Boros Energy**" in text
    deck, _ = modern_deck("Jeskai Blink")
    await say(client, deck, cid)
    text, _ = await say(client, "yes", cid)
    assert "**Jeskai Blink**" in text
    text, _ = await say(client, "what are my worst matchups?", cid)
    assert text.startswith("**Jeskai Blink in Modern**") and "Against **Boros Energy**" not in text
    assert "Worst matchups:" in text


async def test_the_page_starts_at_the_one_default_window(client: httpx.AsyncClient) -> None:
    page = (await client.get("/")).text
    assert f'<input id="days" type="number" min="1" max="365" value="{DEFAULT_DAYS}"' in page


async def test_how_do_you_know_is_answered_from_the_last_answers_rule(client: httpx.AsyncClient) -> None:
    text, cid = await say(client, "What are the top decks in Modern over the last 30 days?")
    for question in ("how do you know?", "explain that table"):
        text, _ = await say(client, question, cid)
        assert text.startswith("The top decks are ordered by meta share") and "“Matches:” line" in text
    text, _ = await say(client, "and in the last 7 days?", cid)
    assert text.startswith("**Top decks in Modern**, 2025-11-11 to 2025-11-17")


async def test_a_message_that_only_sets_the_context_is_acknowledged(client: httpx.AsyncClient) -> None:
    text, cid = await say(client, "Modern, 30 days")
    assert text.startswith("Noted: Modern, the last 30 days.")
    text, _ = await say(client, "what are the top decks?", cid)
    assert text.startswith("**Top decks in Modern**, 2025-10-19 to 2025-11-17")


async def test_a_list_pasted_after_the_question_answers_it(client: httpx.AsyncClient) -> None:
    # the sideboarding question first, then the list, the format, the window and a yes in messages of their own
    text, cid = await say(client, "How should I sideboard against Jeskai Blink?")
    assert "Which format" in text
    deck, _ = modern_deck("Boros Energy")
    await say(client, deck, cid)
    await say(client, "Modern", cid)
    await say(client, "30", cid)
    text, _ = await say(client, "yes", cid)
    # the last answer is the guide first asked for, about the pasted deck
    assert text.startswith("**Boros Energy vs Jeskai Blink** in Modern"), text[:200]
    assert "**Sideboarding against Jeskai Blink**" in text
