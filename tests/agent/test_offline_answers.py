"""Offline mode answers real questions on the demo data with the tools' own figures."""

from __future__ import annotations

import re
from typing import Any

import pytest

from meta_mage.agent.conversation import Conversations
from meta_mage.agent.offline import OFFLINE_NOTE
from meta_mage.models.drafts import REDACTED
from tests.agent.conftest import modern_deck, run_turn
from tests.conftest import call, green_creatures


def rate(block: dict[str, Any]) -> str:
    exact = 100 * block["wins"] / (block["wins"] + block["losses"])  # 14-12 is 53.8%, not 53.85 rounded again
    assert abs(exact - block["win_rate"]) < 0.01
    return f"{exact:.1f}% (95% CI {block['ci_low']:.0f}-{block['ci_high']:.0f}%"


async def test_top_decks_table_matches_the_rankings_tool(offline: Conversations, modern_world: dict[str, Any]) -> None:
    turn = await run_turn(offline, "What are the top decks in Modern over the last 21 days?")
    result = call(modern_world, "get_format_meta_rankings", format="Modern", current_days=21, previous_days=21)
    meta = result["metadata"]
    assert f"({meta['current_decks']} decks from {meta['current_tournaments']} tournaments)" in turn.text
    for row in result["rows"][:10]:
        assert f"| {row['rank']} | {row['name']} | {row['meta_share']:.1f}% |" in turn.text
        if row["current"]["win_rate"] is not None:
            assert rate(row["current"]) in turn.text
    assert result["rows"][10]["name"] not in turn.text.split("|")
    assert turn.text.endswith(OFFLINE_NOTE)


async def test_which_decks_are_trending_names_the_movers(offline: Conversations, modern_world: dict[str, Any]) -> None:
    # Given the top decks over 14 days
    table = await run_turn(offline, "What are the top decks in Modern over the last 14 days?")
    assert "Rising most" not in table.text
    # When the player asks which are on the rise
    turn = await run_turn(offline, "which of them are trending up?", table.conversation_id)
    # Then the three that gained most meta share and the three that lost most come before the table
    rows = call(modern_world, "get_format_meta_rankings", format="Modern", current_days=14, previous_days=14)["rows"]
    moved = sorted((r for r in rows if r["meta_share_trend"]), key=lambda r: -r["meta_share_trend"])
    rising = [r for r in moved if r["meta_share_trend"] > 0][:3]
    falling = [r for r in reversed(moved) if r["meta_share_trend"] < 0][:3]
    said = turn.text.split("**Top decks in Modern**")[0]
    for row in rising + falling:
        assert (
            f"{row['name']} {row['meta_share_trend']:+.1f} (now {row['meta_share']:.1f}%, {row['decks']} decks)" in said
        )
    assert said.index(rising[0]["name"]) < said.index("Falling most") < said.index(falling[0]["name"])


async def test_matchup_between_two_archetypes(offline: Conversations, modern_world: dict[str, Any]) -> None:
    turn = await run_turn(offline, "How does Boros Energy do against Jeskai Blink in Modern, last 30 days?")
    stats = call(modern_world, "get_deck_matchup_stats", format="Modern", archetype="Boros Energy", days=30)
    cell = next(c for c in stats["matchups"] if c["opponent"] == "Jeskai Blink")
    assert turn.tools() == ["get_deck_matchup_stats"]
    assert f"Against **Jeskai Blink**: {rate(cell)}" in turn.text
    assert f"meta share {stats['meta_share']:.1f}%, overall {rate(stats['overall'])}" in turn.text
    plural = "match" if stats["mirror_matches"] == 1 else "matches"
    assert f"{stats['mirror_matches']} mirror {plural} left out" in turn.text


async def test_archetype_list(offline: Conversations, modern_world: dict[str, Any]) -> None:
    turn = await run_turn(offline, "List all the archetypes in Modern for the last 30 days")
    result = call(modern_world, "get_format_archetypes", format="Modern", days=30)
    assert f"**{len(result['archetypes'])} archetypes in Modern**" in turn.text
    for row in result["archetypes"][:25]:
        assert f"- {row['name']} ({row['color_identity']}, {row['strategy']}): {row['meta_share']:.1f}%" in turn.text


async def test_format_matchup_overview(offline: Conversations, modern_world: dict[str, Any]) -> None:
    turn = await run_turn(offline, "Show me the Modern matchups for the last 30 days")
    table = call(modern_world, "get_format_matchup_stats", format="Modern", days=30)
    assert turn.tools() == ["get_format_matchup_stats"]
    for row in table["archetypes"][:10]:
        assert f"- {row['archetype']} ({row['meta_share']:.1f}%): {rate(row['overall'])}" in turn.text
    # the grid: a row per top archetype, a column each, mirrors on the diagonal
    names = table["grid"]["archetypes"]
    assert "| vs | " + " | ".join(names) + " |" in turn.text
    for i, name in enumerate(names):
        row = next(line for line in turn.text.splitlines() if line.startswith(f"| **{name}** |"))
        assert row.removesuffix(" |").split(" | ")[i + 1] == f"mirror ({table['grid']['mirrors'][i]})"
    for line in turn.text.splitlines():  # one judgeable matchup is not both the best and the worst
        best, _, worst = line.partition(", worst vs ")
        if worst:
            assert best.rsplit("best vs ", 1)[1] != worst, line


async def test_a_window_follow_up_keeps_the_matchup_asked_about(
    offline: Conversations, modern_world: dict[str, Any]
) -> None:
    # Given an A-vs-B question
    first = await run_turn(offline, "How does Boros Energy do against Jeskai Blink in Modern, last 30 days?")
    # When the user only changes the window
    turn = await run_turn(offline, "What about the last 14 days?", first.conversation_id)
    # Then the same pair is answered for the new window
    assert turn.tools() == ["get_deck_matchup_stats"]
    assert turn.arguments("get_deck_matchup_stats")["archetype"] == "Boros Energy"
    assert turn.arguments("get_deck_matchup_stats")["days"] == 14
    stats = call(modern_world, "get_deck_matchup_stats", format="Modern", archetype="Boros Energy", days=14)
    cell = next((c for c in stats["matchups"] if c["opponent"] == "Jeskai Blink"), None)
    expected = f"Against **Jeskai Blink**: {rate(cell)}" if cell else "No recorded matches against Jeskai Blink"
    assert expected in turn.text


async def test_places_in_the_top_decks_table_name_a_matchup(
    offline: Conversations, modern_world: dict[str, Any]
) -> None:
    # Given the top decks table
    table = await run_turn(offline, "What are the top decks in Modern over the last 30 days?")
    rows = call(modern_world, "get_format_meta_rankings", format="Modern", current_days=30)["rows"]
    first, second, third = (row["name"] for row in rows[:3])
    # When the player asks about places in it
    turn = await run_turn(offline, "how does the top one do against the second?", table.conversation_id)
    # Then the first and second rows are the matchup, and a follow-up place is the new opponent
    assert turn.tools() == ["get_deck_matchup_stats"]
    assert turn.arguments("get_deck_matchup_stats")["archetype"] == first
    assert f"**{first} in Modern**" in turn.text and f"Against **{second}**" in turn.text
    again = await run_turn(offline, "and against the third?", turn.conversation_id)
    assert again.arguments("get_deck_matchup_stats")["archetype"] == first
    assert f"Against **{third}**" in again.text


async def test_a_format_switch_forgets_the_old_formats_opponent(offline: Conversations) -> None:
    first = await run_turn(offline, "How should I play against Jeskai Blink?", context={"format": "Modern", "days": 30})
    assert first.state["opponent_archetype"] == "Jeskai Blink"
    switched = await run_turn(offline, "What are the top decks in Pioneer?", first.conversation_id)
    assert switched.state["format"] == "Pioneer"
    assert switched.state["opponent_archetype"] is None


async def test_draft_list_and_a_filtered_pool(offline: Conversations, modern_world: dict[str, Any]) -> None:
    listing = await run_turn(offline, "Which drafts do you have?")
    draft = call(modern_world, "list_drafts")["drafts"][0]
    expected = f"**{draft['draft_name']}** (`{draft['draft_id']}`, {draft['draft_date']}): {draft['total_cards']} cards"
    assert expected in listing.text
    assert listing.tools() == ["list_drafts"]

    turn = await run_turn(offline, "Who drafted the black instants in the tarkir cube?")
    pool = call(
        modern_world,
        "get_draft_pool",
        draft_id="tarkir",
        color="B",
        type_contains="Instant",
        include_draft_results=True,
    )
    assert f"{pool['total_cards']} instants with black in their colour identity in the pool" in turn.text
    # "who drafted ...": the drafted ones with their takers; the others counted, not listed
    for card in pool["cards"]:
        if card["drafted"]:
            owner = f"taken by {card['drafted_by']} (pick {card['drafted_pick_n']})"
            assert f"- {card['card_name']}" in turn.text and owner in turn.text
        else:
            assert f"- {card['card_name']} " not in turn.text
    undrafted = sum(not c["drafted"] for c in pool["cards"])
    if undrafted:
        assert f"The other {undrafted} were not drafted" in turn.text

    # "which ... were drafted and who took them": every drafted card, no "… and N more"
    turn = await run_turn(offline, "which green creatures were drafted in the tarkir draft and who took them?")
    green = green_creatures(modern_world)["cards"]
    drafted = [c for c in green if c["drafted"]]
    assert len(drafted) < len(green)
    assert turn.text.count("taken by ") == len(drafted) and "not drafted" not in turn.text.replace(
        "were not drafted", ""
    )
    assert "more (ask for" not in turn.text
    assert f"The other {len(green) - len(drafted)} were not drafted" in turn.text

    # "what … were in the draft, and who took them?" asks for the pool: every card, drafted ones with their taker
    turn = await run_turn(offline, "What green creatures were in the tarkir draft, and who took them?")
    assert turn.text.count("taken by ") == len(drafted) and turn.text.count(": not drafted") == len(green) - len(
        drafted
    )
    assert "The other" not in turn.text

    # the pool chart counts what the answer counts: two Llanowar Elves are one card of the 65 green creatures
    turn = await run_turn(offline, "What green creatures were in the tarkir draft?")
    (chart,) = [e["data"] for e in turn.tool_events if e["status"] == "complete" and e.get("data")]
    total = sum(count for _, count in chart["columns"])
    assert f"{total} creatures with green in their colour identity in the pool" in turn.text


async def test_sideboard_answer_lists_every_count_that_changes(
    offline: Conversations, modern_world: dict[str, Any]
) -> None:
    deck, _ = modern_deck("Jeskai Blink")
    # one sideboard line becomes a card with no role against anything (Thoughtcast draws cards): it is cut
    lines = deck.splitlines()
    count = lines[-1].split()[0]
    deck = "\n".join([*lines[:-1], f"{count} Thoughtcast"])
    pasted = await run_turn(offline, f"My deck:\n{deck}", context={"format": "Modern", "days": 14})
    await run_turn(offline, "yes", pasted.conversation_id)
    turn = await run_turn(offline, "Optimize my sideboard", pasted.conversation_id)
    assert turn.tools() == ["optimize_sideboard"]

    enriched = call(modern_world, "get_enriched_deck", deck=deck)
    result = call(
        modern_world,
        "optimize_sideboard",
        card_details=enriched["card_details"],
        archetype="Jeskai Blink",
        format="Modern",
        days=14,
        top_n=5,
    )
    assert f"from {result['lists_compared']} lists from {result['metadata']['period']['start']}" in turn.text
    side = [c for c in enriched["card_details"] if c["section"] == "sideboard"]
    before = {c["name"].split(" // ")[0]: c["quantity"] for c in side}
    after = {s["name"].split(" // ")[0]: s["quantity"] for s in result["final_sideboard"]}
    changed = {n for n in before.keys() | after.keys() if before.get(n, 0) != after.get(n, 0)}
    assert changed  # the demo list differs from what the tool builds
    for name in changed:
        old, new = before.get(name, 0), after.get(name, 0)
        assert f"{'+' if new > old else '−'}{abs(new - old)} " in turn.text and f"({old} → {new})" in turn.text
    # and every card that leaves says why
    assert "Thoughtcast" in result["cuts"]
    for cut in result["cut_reasons"]:
        assert f"- {cut['quantity']} {cut['name']}: {cut['why']}" in turn.text


async def test_best_matchups_are_won_and_worst_are_lost(offline: Conversations) -> None:
    turn = await run_turn(offline, "What is the matchup spread of Amulet Titan in Modern over 30 days?")
    for label, won in (("Best matchups: ", True), ("Worst matchups: ", False)):
        line = next(line for line in turn.text.splitlines() if line.startswith(label))
        for rate_text in re.findall(r" (\d+\.\d)% \(95% CI", line):
            assert (float(rate_text) > 50) is won, line


async def test_every_decided_matchup_is_stated_with_its_verdict(
    offline: Conversations, modern_world: dict[str, Any]
) -> None:
    # Given a 14-day window, where no cell of the deck reaches the 20-match flag
    stats = call(modern_world, "get_deck_matchup_stats", format="Modern", archetype="Boros Energy", days=14)
    decided = [c for c in stats["matchups"] if c["wins"] + c["losses"]]
    assert decided and all(c["low_sample"] for c in decided)

    # When the player asks for the spread
    turn = await run_turn(offline, "What is the matchup spread of Boros Energy in Modern over the last 14 days?")

    # Then every cell with a decided match is in the answer with its record, estimate and verdict, best first
    rows = [line for line in turn.text.splitlines() if re.match(r"\| \d+ \| ", line)]
    assert len(rows) == len(decided)
    for cell in decided:
        record = f"{cell['wins']}-{cell['losses']}-{cell['draws']}"
        assert f"| {cell['opponent']} | {record} |" in turn.text and f"{cell['estimate']:.1f}%" in turn.text
    estimates = [float(row.split(" | ")[5].split("%")[0]) for row in rows]
    assert estimates == sorted(estimates, reverse=True)
    # and best and worst are named, never "none … enough matches"
    best = next(line for line in turn.text.splitlines() if line.startswith("Best matchups: "))
    worst = next(line for line in turn.text.splitlines() if line.startswith("Worst matchups: "))
    top, bottom = rows[0].split(" | ")[1], rows[-1].split(" | ")[1]
    assert top in best and bottom in worst and "enough matches" not in turn.text


async def test_a_head_to_head_with_few_matches_says_how_far_to_trust_it(offline: Conversations) -> None:
    turn = await run_turn(offline, "How does Boros Energy do against Jeskai Blink in Modern over the last 14 days?")
    line = next(line for line in turn.text.splitlines() if line.startswith("Against **Jeskai Blink**"))
    assert re.search(
        r"\d+\.\d% \(95% CI \d+-\d+%, \d+-\d+-\d+, by \d+ players\), only \d+ decided, "
        r"model estimate \d+\.\d% \(\d+-\d+%\): (leans|too|anecdote)",
        line,
    ), line
    assert "not enough" not in turn.text


async def test_questions_about_the_anonymous_drafter_get_one_sentence(
    offline: Conversations, modern_world: dict[str, Any]
) -> None:
    pool = call(modern_world, "get_draft_pool", draft_id="tarkir", include_draft_results=True)
    private = sum(
        who == REDACTED
        for card in pool["cards"]
        for who in [card["drafted_by"], *(p["drafted_by"] for p in card.get("additional_picks") or [])]
    )
    assert private > 0
    for question in ("what did [REDACTED] pick in the tarkir draft?", "which drafter opted out of the tarkir draft?"):
        turn = await run_turn(offline, question)
        body = turn.text.removesuffix(OFFLINE_NOTE).strip()
        assert body == (
            f"One drafter in **Tarkir** asked not to be named: their {private} picks show as {REDACTED}, "
            "and I don't list them or say who it might be."
        ), question


async def test_a_window_over_the_limit_is_said_and_clamped(offline: Conversations) -> None:
    turn = await run_turn(offline, "What are the top decks in Modern over the last 9999 days?")
    assert turn.text.startswith("You asked for 9999 days; I can look at 1 to 365 days, so this uses the last 365.")
    assert turn.state["days"] == 365


async def test_a_thin_window_also_gives_a_longer_one(offline: Conversations, modern_world: dict[str, Any]) -> None:
    # Given a week with fewer than 20 decided matches for the deck, none of them against Eldrazi Tron
    week = call(modern_world, "get_deck_matchup_stats", format="Modern", archetype="Boros Energy", days=7)
    assert sum(c["wins"] + c["losses"] for c in week["matchups"]) < 20
    assert week["wider"]["period"]["days"] == 60
    # When the player asks about that matchup over the week
    turn = await run_turn(offline, "How does Boros Energy do against Eldrazi Tron in Modern over the last 7 days?")
    # Then the answer says the week has none and gives the 60-day figures, naming the window
    sixty = call(modern_world, "get_deck_matchup_stats", format="Modern", archetype="Boros Energy", days=60)
    far = next(c for c in sixty["matchups"] if c["opponent"] == "Eldrazi Tron")
    period = f"{sixty['metadata']['period']['start']} to {sixty['metadata']['period']['end']}"
    assert "No recorded matches against Eldrazi Tron in this window." in turn.text
    assert f"Over the longer window {period}: against Eldrazi Tron {rate(far)}" in turn.text
    assert "This window is thin" in turn.text
    assert f"Over 60 days ({period}): overall {rate(sixty['overall'])}" in turn.text


async def test_how_to_sideboard_against_a_deck_says_what_comes_in_and_what_goes_out(
    offline: Conversations, modern_world: dict[str, Any]
) -> None:
    deck, _ = modern_deck("Boros Energy")
    pasted = await run_turn(offline, f"My deck:\n{deck}", context={"format": "Modern", "days": 30})
    await run_turn(offline, "yes", pasted.conversation_id)
    turn = await run_turn(offline, "How should I sideboard against Affinity?", pasted.conversation_id)
    assert turn.tools() == ["generate_deck_matchup_strategy"]
    section = turn.text.split("**Sideboarding against Affinity**", 1)[1]
    ins = re.findall(r"^- \+(\d+) (.+?): ", section, re.M)
    outs = re.findall(r"^- −(\d+) (.+?): ", section, re.M)
    assert ins and outs and sum(int(n) for n, _ in ins) == sum(int(n) for n, _ in outs)
    assert not {name for _, name in ins} & {name for _, name in outs}
    assert "That leaves 60 cards in the deck and 15 in the sideboard." in section
    # and no list item runs on into the line after it (a blank line ends every list before a sentence)
    assert not re.search(r"^- [^\n]*\n(?![-\n])", turn.text, re.M), turn.text


async def test_short_names_reach_the_right_decks(offline: Conversations, modern_world: dict[str, Any]) -> None:
    turn = await run_turn(offline, "How does Prowess do against Zoo in Modern over the last 30 days?")
    stats = call(modern_world, "get_deck_matchup_stats", format="Modern", archetype="Izzet Prowess", days=30)
    cell = next(c for c in stats["matchups"] if c["opponent"] == "Domain Zoo")
    assert "**Izzet Prowess in Modern**" in turn.text and f"Against **Domain Zoo**: {rate(cell)}" in turn.text


async def test_an_opponent_without_matches_points_to_archetypes_named_like_it(
    offline: Conversations, modern_world: dict[str, Any]
) -> None:
    # Given "Tron", an archetype of its own with no match against Boros Energy in 60 days, and Eldrazi Tron with some
    turn = await run_turn(offline, "How does Boros Energy do against Tron in Modern, last 60 days?")
    stats = call(modern_world, "get_deck_matchup_stats", format="Modern", archetype="Boros Energy", days=60)
    assert not any(c["opponent"] == "Tron" for c in stats["matchups"])
    eldrazi = next(c for c in stats["matchups"] if c["opponent"] == "Eldrazi Tron")
    # Then the answer says so and gives the record against Eldrazi Tron beside it
    assert "No recorded matches against Tron in this window." in turn.text
    assert f"Archetypes whose name holds “Tron”: **Eldrazi Tron** {rate(eldrazi)}" in turn.text


async def test_a_composed_answer_streams_a_paragraph_or_table_per_event(offline: Conversations) -> None:
    # Given the matchup grid, a long answer with a table
    turn = await run_turn(offline, "What are the matchups in Modern over the last 30 days?")
    pieces = [e.data["text"] for e in turn.events if e.event == "content"]
    # Then each content event is one paragraph (or one whole table), not one word (574 events before)
    assert "".join(pieces) == turn.text and "|---|" in turn.text
    assert len(pieces) == len([p for p in turn.text.split("\n\n") if p.strip()]) < 20
    assert all("\n\n" not in piece.rstrip("\n") for piece in pieces)


@pytest.mark.parametrize("archetype", ["Boros Energy", "Jeskai Blink", "Izzet Prowess"])
async def test_best_and_worst_lead_with_matchups_that_have_a_verdict(
    offline: Conversations, modern_world: dict[str, Any], archetype: str
) -> None:
    # Given an archetype's spread, When the coach names its best and worst matchups
    turn = await run_turn(offline, f"How does {archetype} do in Modern over the last 30 days?")
    for side, called in (("Best", ("favoured",)), ("Worst", ("unfavoured",))):
        line = next(line for line in turn.text.splitlines() if line.startswith(f"{side} matchups: "))
        verdicts = [entry.rsplit(": ", 1)[-1].rstrip(".") for entry in line.split(": ", 1)[1].split("; ")]
        # Then a cell with too few matches to call never comes before one with a verdict on that side
        first_uncalled = next((i for i, v in enumerate(verdicts) if v not in called), len(verdicts))
        assert all(v not in called for v in verdicts[first_uncalled:]), line


async def test_a_card_missing_from_the_card_data_stays_in_the_deck(
    offline: Conversations, modern_world: dict[str, Any]
) -> None:
    # Given a real Boros Energy list where one main-deck four-of is a card the corpus does not know
    deck, _ = modern_deck("Boros Energy")
    lines = deck.splitlines()
    four = next(i for i, line in enumerate(lines) if line.startswith("4 ") and "Land" not in line)
    lines[four] = "4 Qwxyz Unprintable Card"
    pasted = await run_turn(offline, "My deck:\n" + "\n".join(lines), context={"format": "Modern", "days": 30})
    await run_turn(offline, "yes", pasted.conversation_id)
    # When the player asks for a sideboard plan
    turn = await run_turn(offline, "How should I sideboard against Affinity?", pasted.conversation_id)
    # Then the deck still adds up to their 60 + 15, and the answer says the card was kept and not judged
    assert (
        "That leaves 60 cards in the deck and 15 in the sideboard." in turn.text
        or "stay with the main deck" in turn.text
        or "no main-deck card has a reason to come out" in turn.text
    )
    assert "kept at their count and not judged: 4 Qwxyz Unprintable Card" in turn.text
    assert "−4 Qwxyz" not in turn.text


def field_expectation(world: dict[str, Any], archetype: str) -> float:
    """Written apart from analytics/field.py: the meta-share-weighted mean of the window's model's P(win) of the
    archetype against every archetype of the window (50 in the mirror)."""
    meta = world["context"].meta
    info = meta.format_info("Modern")
    period, total = meta.total_of(info, 30, None)
    model = meta.model_of("Modern", period, total)
    decks = {name: a.decks for name, a in total.archetypes.items() if name != "Unknown"}
    mean = sum(n * (0.5 if name == archetype else model.probability(archetype, name)) for name, n in decks.items())
    return 100 * mean / sum(decks.values())


async def test_what_should_i_play_is_a_recommendation_against_the_field(
    offline: Conversations, modern_world: dict[str, Any]
) -> None:
    # When a player asks what to play
    turn = await run_turn(offline, "What should I play in Modern over the last 30 days?")
    # Then the coach ranks archetypes by expected win rate against the field, not by popularity
    assert turn.tools() == ["get_format_matchup_stats"]
    assert "**What to play in Modern**" in turn.text and "Top decks in Modern" not in turn.text
    rows = re.findall(r"^\| (\d+) \| ([^|]+) \| ([\d.]+)% \(([\d.]+)-([\d.]+)%\)", turn.text, re.M)
    assert len(rows) == 10
    table = call(modern_world, "get_format_matchup_stats", format="Modern", days=30)
    # each figure is the tool's, and the order is on the interval's low end
    field = {f["archetype"]: f for f in table["field"]}
    for _, name, expected, low, high in rows:
        row = field[name.split(" (")[0]]
        assert (float(expected), float(low), float(high)) == (row["expected"], row["ci_low"], row["ci_high"])
    lows = [float(low) for *_, low, _ in rows]
    assert lows == sorted(lows, reverse=True)
    # and each expectation is the share-weighted mean of the model's estimates against the whole field
    for _, name, expected, _, _ in rows[:3]:
        assert float(expected) == pytest.approx(field_expectation(modern_world, name.split(" (")[0]), abs=0.11)


async def test_a_card_question_gets_a_card_answer(offline: Conversations, modern_world: dict[str, Any]) -> None:
    # When a player asks about one card against one deck
    turn = await run_turn(offline, "Is Fatal Push good against Boros Energy in Modern over the last 30 days?")
    # Then the coach reads the card against their key cards and compares lists with it and without it
    assert turn.tools() == ["get_card_evidence"]
    assert turn.arguments("get_card_evidence") == {
        "format": "Modern",
        "days": 30,
        "card": "Fatal Push",
        "opponent_archetype": "Boros Energy",
    }
    result = call(
        modern_world,
        "get_card_evidence",
        format="Modern",
        days=30,
        card="Fatal Push",
        opponent_archetype="Boros Energy",
    )
    assert turn.text.startswith("**Fatal Push against Boros Energy**, Modern")
    assert "Boros Energy's matchup" not in turn.text and "Best matchups" not in turn.text
    # what it answers: creatures of mana value 4 or less (revolt), each named with its share of their lists
    cards = {
        c["name"]: c
        for c in call(modern_world, "get_enriched_deck", deck="\n".join(f"1 {a['name']}" for a in result["answers"]))[
            "card_details"
        ]
    }
    assert len(result["answers"]) >= 5
    for answered in result["answers"]:
        card = cards[answered["name"]]
        assert "Creature" in card["type_line"] and card["cmc"] <= 4, card["name"]
        assert f"{answered['name']} ({answered['inclusion_rate']:.0f}%)" in turn.text
    spells = sum(not a["is_land"] for a in result["answers"])
    assert f"it answers {spells} of their {result['opponent_key_cards']} key spells" in turn.text
    # each archetype's lists with it and without it add up to its record against Boros Energy
    for row in result["records"]:
        stats = call(modern_world, "get_deck_matchup_stats", format="Modern", archetype=row["archetype"], days=30)
        cell = next(c for c in stats["matchups"] if c["opponent"] == "Boros Energy")
        both = (
            row["with_card"]["wins"] + row["without_card"]["wins"],
            row["with_card"]["losses"] + row["without_card"]["losses"],
        )
        assert both == (cell["wins"], cell["losses"]), row["archetype"]
    assert sum(r["with_card"]["wins"] + r["with_card"]["losses"] for r in result["records"]) == result["matches_with"]
    assert (
        f"Lists with it played {result['matches_with']} of the {result['matches_total']} decided matches" in turn.text
    )
    assert "**In short:**" in turn.text


async def test_a_misspelt_card_is_read_and_said(offline: Conversations) -> None:
    turn = await run_turn(offline, "should I play Thoughtsieze in Modern, last 30 days?")
    assert turn.tools() == ["get_card_evidence"]
    assert "(I read “Thoughtsieze” as Thoughtseize.)" in turn.text
    # without an opponent: the top decks' key cards it takes, and the pooled records per section
    assert "Among the top decks' key cards it answers: " in turn.text
    assert re.search(r"^\| all of these \| mainboard \| \d+ of \d+ \|", turn.text, re.M)
