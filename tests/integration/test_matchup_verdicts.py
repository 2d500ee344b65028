"""Statistics a player can bet on (issue 35), on the bundled data of every format: verdicts come from the
matchup model and need three distinct players; what to play never picks one player's deck; every answer with
win rates says where its matches come from; the model is fitted where the data is written and read back."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest

from meta_mage.agent.conversation import Conversations
from meta_mage.agent.tools import in_process_executor
from meta_mage.analytics.clustering import MIN_PLAYERS
from meta_mage.analytics.matchup_fit import FITTED_WINDOWS, fingerprint
from meta_mage.analytics.stats import FEW_MATCHES
from meta_mage.archetypes.classifier import get_classifier
from meta_mage.config import Settings
from meta_mage.wiring import coach_from_settings
from tests.agent.conftest import run_turn
from tests.conftest import call

FORMATS = ("Legacy", "Modern", "Pauper", "Pioneer", "Standard", "Vintage")
VERDICT_WORDS = ("favoured", "unfavoured", "too close to call")


@pytest.fixture(scope="module")
def world(demo_world: dict[str, Any]) -> dict[str, Any]:
    """Every bundled format from the demo snapshot, with an offline coach."""
    settings, db = demo_world["settings"], demo_world["db"]
    executor = in_process_executor(demo_world["registry"], demo_world["context"])
    return {**demo_world, "coach": coach_from_settings(settings, dynamodb=db, executor=executor)}


def test_one_players_clean_sweep_is_an_anecdote_not_unfavoured(world: dict[str, Any]) -> None:
    # Given Pauper's 30 days, where Mono Blue Terror is 0-4 against Esper Faeries, all four by one player
    # (a record the coach called "unfavoured": its Wilson interval 0-49 % sits under 50 %)
    spread = call(world, "get_deck_matchup_stats", format="Pauper", archetype="Mono Blue Terror", days=30)
    cell = next(c for c in spread["matchups"] if c["opponent"] == "Esper Faeries")
    assert (cell["wins"], cell["losses"], cell["players"]) == (0, 4, 1)
    # Then it gets no verdict word, and says why
    assert cell["verdict"] == "anecdote: 4 matches all by one player"
    # and a record one player made is worth fewer independent matches than it has
    assert cell["effective_matches"] < 4


async def test_the_answer_says_all_by_one_player_and_no_verdict(world: dict[str, Any]) -> None:
    coach: Conversations = world["coach"]
    turn = await run_turn(coach, "How does Mono Blue Terror do against Esper Faeries in Pauper over the last 30 days?")
    line = next(line for line in turn.text.splitlines() if line.startswith("Against **Esper Faeries**"))
    assert "0-4-0, all by one player" in line and "anecdote" in line
    assert not re.search(r"\b(unfavoured|favoured|leans)\b", line), line


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_verdict_word_rests_on_fewer_than_three_players_or_a_lean_on_a_few_matches(
    world: dict[str, Any], fmt: str
) -> None:
    for days in (7, 30):
        table = call(world, "get_format_matchup_stats", format=fmt, days=days)
        for row in table["archetypes"]:
            for cell in row["matchups"]:
                decided, where = cell["wins"] + cell["losses"], (fmt, days, row["archetype"], cell)
                if cell["verdict"] in VERDICT_WORDS:
                    assert cell["players"] >= MIN_PLAYERS, where
                    assert decided >= FEW_MATCHES or cell["verdict"] in ("favoured", "unfavoured"), where
                elif cell["verdict"] == "too few matches to call":
                    assert cell["players"] >= MIN_PLAYERS and decided < FEW_MATCHES, where
                elif decided:
                    assert cell["verdict"].startswith("anecdote: "), where
                    assert cell["players"] < MIN_PLAYERS


@pytest.mark.parametrize("fmt", FORMATS)
def test_both_sides_of_a_matchup_agree(world: dict[str, Any], fmt: str) -> None:
    grid = call(world, "get_format_matchup_stats", format=fmt, days=30, top_n=10)["grid"]
    flipped = {"favoured": "unfavoured", "too close to call": "too close to call"}
    flipped["too few matches to call"] = "too few matches to call"
    flipped |= {b: a for a, b in flipped.items()}
    for i, row in enumerate(grid["cells"]):
        for j, cell in enumerate(row):
            if cell is None:
                continue
            other = grid["cells"][j][i]
            assert cell["estimate"] + other["estimate"] == pytest.approx(100.0, abs=0.02)
            assert cell["players"] == other["players"]
            if cell["verdict"] in flipped:
                assert other["verdict"] == flipped[cell["verdict"]]
            if cell["wins"] + cell["losses"] == 0:
                assert cell["basis"] == "model: strengths only" and cell["verdict"] == "no decided matches"


def picked(text: str) -> list[str]:
    """The pick a what-to-play answer names, or the decks it says the data cannot separate."""
    if one := re.search(r"\*\*(.+?)\*\* is the pick", text):
        return [one.group(1)]
    if tied := re.search(r"The data cannot separate (.+?): ", text):
        return re.findall(r"\*\*(.+?)\*\*", tied.group(1))
    return []


@pytest.mark.parametrize("fmt", FORMATS)
async def test_what_to_play_never_picks_a_deck_of_fewer_than_three_players(world: dict[str, Any], fmt: str) -> None:
    # Given a week, where decks one or two players took to the playoffs rank high on their few matches
    table = call(world, "get_format_matchup_stats", format=fmt, days=7)
    few = {f["archetype"]: f["players"] for f in table["field"] if f["players"] < MIN_PLAYERS}
    # When a player asks what to play
    turn = await run_turn(world["coach"], f"What should I play in {fmt} over the last 7 days?")
    # Then the pick, or each deck the data cannot separate, has results by three players or more
    assert not set(picked(turn.text)) & set(few), turn.text
    # and every deck of the table with one or two players is named as such where it stands
    for line in turn.text.splitlines():
        cells = line.split(" | ")
        if re.match(r"\| \d+ \| ", line) and cells[1].split(" (")[0] in few:
            notes = ("(one player's deck)", "(only 2 players)", "(a catch-all: lists no archetype rule names)")
            assert any(note in cells[1] for note in notes), line


@pytest.mark.parametrize("fmt", FORMATS)
async def test_what_to_play_never_picks_a_catch_all(world: dict[str, Any], fmt: str) -> None:
    # Given the fallback names of the format's own rule files ("Combo", "Midrange": lists no archetype names)
    rules = get_classifier(Settings().archetype_rules_dir).rules_for(fmt)
    fallbacks = {rule.name for rule in rules.fallbacks} | {"Unknown"}
    table = call(world, "get_format_matchup_stats", format=fmt, days=7)
    named = {rule.name for rule in rules.archetypes if not rule.include_color}  # else it reads "Azorius Control"
    # Then the field marks those, and never a name an archetype rule gives
    for row in table["field"]:
        if row["archetype"] in fallbacks - named:
            assert row["catch_all"], row["archetype"]
        if row["archetype"] in named:
            assert not row["catch_all"], row["archetype"]
    # and the answer names them so and never picks one
    turn = await run_turn(world["coach"], f"What should I play in {fmt} over the last 7 days?")
    catch_alls = {row["archetype"] for row in table["field"] if row["catch_all"]}
    assert not set(picked(turn.text)) & catch_alls
    for name in catch_alls & {row["archetype"] for row in table["field"][:10]}:
        assert f"| {name} (a catch-all: lists no archetype rule names) |" in turn.text


async def test_a_ranked_one_player_deck_is_named_when_it_stands_above_the_pick(world: dict[str, Any]) -> None:
    # Pioneer's last 7 days: Boros Hammer (two players) and Mono Red Hero Aggro (one) rank in the top five
    table = call(world, "get_format_matchup_stats", format="Pioneer", days=7)
    order = [f["archetype"] for f in table["field"]]
    hero = table["field"][order.index("Mono Red Hero Aggro")]
    assert hero["players"] == 1 and order.index("Mono Red Hero Aggro") < 5
    turn = await run_turn(world["coach"], "What should I play in Pioneer over the last 7 days?")
    assert "Mono Red Hero Aggro (one player's deck)" in turn.text


@pytest.mark.parametrize(
    "question",
    [
        "What are the top decks in Legacy over the last 14 days?",
        "What are the matchups in Legacy over the last 14 days?",
        "How does Izzet Tempo do in Legacy over the last 14 days?",
        "What should I play in Legacy over the last 14 days?",
    ],
)
async def test_every_answer_with_win_rates_says_where_the_matches_come_from(
    world: dict[str, Any], question: str
) -> None:
    rankings = call(world, "get_format_meta_rankings", format="Legacy", current_days=14)
    said = rankings["metadata"]["matches_from"]
    # MTGO Challenge files hold only the 7 playoff matches of each event; melee.gg files their Swiss rounds
    challenges = re.match(r"(\d+) top-8 playoff matches of (\d+) MTGO Challenges, ", said)
    assert challenges and int(challenges.group(1)) <= 7 * int(challenges.group(2)), said
    assert "Swiss and playoff matches of" in said and "melee.gg event" in said
    turn = await run_turn(world["coach"], question)
    assert f"Matches: {said}." in turn.text


def test_the_model_is_fitted_where_data_is_written_and_read_back(world: dict[str, Any]) -> None:
    meta = world["context"].meta
    for fmt in FORMATS:
        info = meta.format_info(fmt)
        end = dt.date.fromisoformat(info.last_date)
        for days in FITTED_WINDOWS:
            _, total = meta.total_of(info, days, None)
            stored = meta.repository.matchup_model(fmt, days, end.isoformat(), fingerprint(total))
            assert stored is not None, (fmt, days)  # fitted at ingest, of exactly the figures read now
            assert set(stored.strengths) <= set(total.archetypes)


async def test_archetypes_split_by_one_or_two_cards_are_flagged_as_possibly_one_deck(world: dict[str, Any]) -> None:
    # Given Pioneer, where the rules split Rakdos Midrange by Kroxa (and Kolaghan's Command)
    table = call(world, "get_format_matchup_stats", format="Pioneer", days=30)
    pair = next(item for item in table["lookalikes"] if "Rakdos Kroxa Midrange" in item["archetypes"])
    assert pair["archetypes"] == ["Rakdos Kroxa Midrange", "Rakdos Midrange"]
    assert "Kroxa, Titan of Death's Hunger" in pair["differ_by"] and len(pair["differ_by"]) <= 2
    # When the player asks for the top decks, the answer says they are possibly one deck
    turn = await run_turn(world["coach"], "What are the top decks in Pioneer over the last 30 days?")
    assert "Possibly one deck, split by the archetype rules: Rakdos Kroxa Midrange and Rakdos Midrange" in turn.text


async def test_what_to_play_names_at_most_five_decks_it_cannot_separate(world: dict[str, Any]) -> None:
    # Given Modern's 30 days, where no deck's low end clears the next by the margin
    turn = await run_turn(world["coach"], "What should I play in Modern over the last 30 days?")
    # Then the answer names the first five it cannot separate and counts the rest, not a wall of names
    tied = re.search(r"The data cannot separate (.+?): no low end", turn.text)
    assert tied is not None, turn.text
    assert len(picked(turn.text)) == 5 and re.search(r" and \d+ more within 5 points", tied.group(1)), tied.group(1)
