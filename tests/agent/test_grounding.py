"""The grounding check on 25 answers a model could write from real tool results (the demo Modern data and the
tarkir draft): every right answer passes, and each one with a single wrong figure (a swapped record, a
percentage off by 10, a right figure given to the wrong deck, a wrong count or interval) is caught."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from meta_mage.agent.checked_stream import CheckedStream, marked
from meta_mage.agent.grounding import Facts, unmatched_figures
from tests.agent.conftest import modern_deck
from tests.conftest import call, green_creatures

DAYS = 30


@dataclass
class Case:
    """A realistic answer, the results it was written from, and the same answer with one figure wrong."""

    label: str
    results: list[dict[str, Any]]
    right: str
    wrong: str
    said: tuple[str, ...] = ()


def _record(block: dict[str, Any]) -> str:
    return f"{block['wins']}-{block['losses']}-{block['draws']}"


def _swapped(block: dict[str, Any]) -> str:
    return f"{block['losses']}-{block['wins']}-{block['draws']}"


def rankings_cases(world: dict[str, Any]) -> list[Case]:
    result = call(world, "get_format_meta_rankings", format="Modern", current_days=DAYS, previous_days=DAYS)
    rows = result["rows"]
    cases = []
    for i, row in enumerate(rows[:5]):
        now = row["current"]
        right = (
            f"{row['name']} is number {row['rank']} in Modern at {row['meta_share']:.1f}% of the field over "
            f"{row['decks']} decks, winning {now['win_rate']:.1f}% of its matches ({_record(now)}; 95% CI "
            f"{now['ci_low']:.0f}-{now['ci_high']:.0f}%)."
        )
        wrong = [
            right.replace(f"{row['meta_share']:.1f}%", f"{row['meta_share'] + 10:.1f}%"),
            right.replace(_record(now), _swapped(now)),
            right.replace(row["name"], rows[9]["name"]),  # the right figures given to another deck
            right.replace(f"{row['decks']} decks", f"{row['decks'] + 10} decks"),
            right.replace(f"{now['ci_low']:.0f}-", f"{now['ci_low'] + 10:.0f}-"),
        ][i]
        cases.append(Case(f"rankings {row['name']}", [result], right, wrong))
    return cases


def spread_cases(world: dict[str, Any]) -> list[Case]:
    cases = []
    for i, archetype in enumerate(["Boros Energy", "Jeskai Blink", "Domain Zoo", "Izzet Prowess", "Amulet Titan"]):
        result = call(world, "get_deck_matchup_stats", format="Modern", archetype=archetype, days=DAYS)
        cells = sorted(result["matchups"], key=lambda c: -(c["wins"] + c["losses"]))
        cell, other = cells[0], next(c for c in cells[3:] if _record(c) != _record(cells[0]))
        overall = result["overall"]
        right = (
            f"{archetype} has gone {_record(overall)} overall ({overall['win_rate']:.1f}%). "
            f"Against {cell['opponent']} it is {_record(cell)}, {cell['win_rate']:.1f}% (95% CI "
            f"{cell['ci_low']:.0f}-{cell['ci_high']:.0f}%): {cell['verdict']}."
        )
        wrong = [
            right.replace(f"it is {_record(cell)}", f"it is {_swapped(cell)}"),
            right.replace(f"{cell['win_rate']:.1f}%", f"{cell['win_rate'] + 10:.1f}%"),
            right.replace(f"Against {cell['opponent']}", f"Against {other['opponent']}"),
            right.replace(f"gone {_record(overall)}", f"gone {_swapped(overall)}"),
            right.replace(f"{overall['win_rate']:.1f}%", f"{overall['win_rate'] - 10:.1f}%"),
        ][i]
        cases.append(Case(f"spread {archetype}", [result], right, wrong))
    return cases


def _absent(result: dict[str, Any], figure: float) -> float:
    """``figure``, or the nearest figure below it that no number of the result rounds to (a wrong figure must
    be wrong: the result holds many rates and intervals)."""
    held = {round(v, 1) for v in _numbers(result)}
    while round(figure, 1) in held:
        figure -= 0.7
    return figure


def _numbers(value: Any) -> list[float]:
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return [float(value)] if isinstance(value, (int, float)) and not isinstance(value, bool) else []


def grid_cases(world: dict[str, Any]) -> list[Case]:
    result = call(world, "get_format_matchup_stats", format="Modern", days=DAYS)
    cases = []
    for i, row in enumerate(result["archetypes"][:5]):
        cell = max(row["matchups"], key=lambda c: c["wins"] + c["losses"])
        right = (
            f"{row['archetype']} holds {row['meta_share']:.1f}% of the field; its most played matchup, "
            f"{cell['opponent']}, stands at {_record(cell)} ({cell['win_rate']:.1f}%)."
        )
        wrong = [
            right.replace(_record(cell), _swapped(cell)),
            right.replace(f"{row['meta_share']:.1f}%", f"{row['meta_share'] + 10:.1f}%"),
            right.replace(f"({cell['win_rate']:.1f}%)", f"({_absent(result, cell['win_rate'] - 10):.1f}%)"),
            right.replace(f"{cell['opponent']}, stands", "Living End, stands"),
            right.replace(f"{row['archetype']} holds", f"{result['archetypes'][9]['archetype']} holds"),
        ][i]
        cases.append(Case(f"grid {row['archetype']}", [result], right, wrong))
    return cases


def strategy_cases(world: dict[str, Any]) -> list[Case]:
    cases = []
    for i, (mine, opponent) in enumerate(
        [("Boros Energy", "Jeskai Blink"), ("Jeskai Blink", "Amulet Titan"), ("Izzet Prowess", "Boros Energy")]
    ):
        deck, _ = modern_deck(mine)
        cards = call(world, "get_enriched_deck", deck=deck)["card_details"]
        stats = call(world, "get_deck_matchup_stats", archetype=mine, format="Modern", days=DAYS)
        plan = call(
            world,
            "generate_deck_matchup_strategy",
            card_details=cards,
            archetype=mine,
            opponent_archetype=opponent,
            matchup_stats=stats,
        )
        first, second = plan["opponent_key_cards"][:2]
        record = plan["record"]
        right = (
            f"You are {_record(record)} against {opponent} over {plan['opponent_lists']} of their lists. "
            f"Expect {first['name']} ({first['inclusion_rate']:.0f}% of their lists) and {second['name']} "
            f"({second['inclusion_rate']:.0f}%)."
        )
        wrong = [
            right.replace(f"You are {_record(record)}", f"You are {_swapped(record)}"),
            right.replace(f"{plan['opponent_lists']} of", f"{plan['opponent_lists'] + 10} of"),
            right.replace(f"({second['inclusion_rate']:.0f}%)", f"({second['inclusion_rate'] - 10:.0f}%)"),
        ][i]
        said = (*tuple(c["name"] for c in cards), mine)
        cases.append(Case(f"strategy {mine} vs {opponent}", [plan], right, wrong, said))
    return cases


def card_cases(world: dict[str, Any]) -> list[Case]:
    cases = []
    for i, (card, opponent) in enumerate(
        [
            ("Unholy Heat", "Boros Energy"),
            ("Thoughtseize", "Jeskai Blink"),
            ("Blood Moon", "Amulet Titan"),
            ("Fatal Push", "Izzet Prowess"),
            ("Surgical Extraction", "Goryo's Reanimator"),
        ]
    ):
        result = call(world, "get_card_evidence", format="Modern", days=DAYS, card=card, opponent_archetype=opponent)
        row = max(result["records"], key=lambda r: r["with_card"]["wins"] + r["with_card"]["losses"])
        right = (
            f"{card} answers {len(result['answers'])} of {opponent}'s key cards. "
            f"Lists that play it played {result['matches_with']} of the {result['matches_total']} decided matches "
            f"against them. {row['archetype']} lists with it went {_record(row['with_card'])} against {opponent}."
        )
        wrong = [
            right.replace(f"went {_record(row['with_card'])}", f"went {_swapped(row['with_card'])}"),
            right.replace(f"the {result['matches_total']} decided", f"the {result['matches_total'] + 10} decided"),
            right.replace(f"{row['archetype']} lists", "Living End lists"),  # not among the results at all
            right.replace(f"answers {len(result['answers'])} of", f"answers {len(result['answers']) + 10} of"),
            right.replace(f"played {result['matches_with']} of", f"played {result['matches_with'] + 10} of"),
        ][i]
        cases.append(Case(f"card {card} vs {opponent}", [result], right, wrong))
    return cases


def draft_cases(world: dict[str, Any]) -> list[Case]:
    pool = green_creatures(world)
    drafted = [c for c in pool["cards"] if c["drafted"]]
    right = [
        f"Tarkir's pool held {pool['total_cards']} green creatures, and {len(drafted)} cards of them were drafted.",
        f"{drafted[0]['card_name']} went to {drafted[0]['drafted_by']}, and {drafted[1]['card_name']} to "
        f"{drafted[1]['drafted_by']}.",
    ]
    wrong = [
        right[0].replace(f"{len(drafted)} cards", f"{len(drafted) + 10} cards"),
        right[1].replace(drafted[1]["card_name"], "Lightning Bolt"),  # a real card, not in this pool
    ]
    return [Case(f"draft {i}", [pool], r, w) for i, (r, w) in enumerate(zip(right, wrong, strict=True))]


def all_cases(world: dict[str, Any]) -> list[Case]:
    return (
        rankings_cases(world)
        + spread_cases(world)
        + grid_cases(world)
        + strategy_cases(world)
        + card_cases(world)
        + draft_cases(world)
    )


@pytest.fixture(scope="module")
def cases(modern_world: dict[str, Any]) -> list[Case]:
    found = all_cases(modern_world)
    assert len(found) == 25
    return found


@pytest.fixture(scope="module")
def names(modern_world: dict[str, Any]) -> list[str]:
    """What the coach checks names against: the format's archetypes and a few real card names."""
    archetypes = [
        a["name"] for a in call(modern_world, "get_format_archetypes", format="Modern", days=365)["archetypes"]
    ]
    return [
        *archetypes,
        "Lightning Bolt",
        "Unholy Heat",
        "Thoughtseize",
        "Blood Moon",
        "Fatal Push",
        "Surgical Extraction",
    ]


def test_right_answers_are_not_flagged(cases: list[Case], names: list[str]) -> None:
    flagged = {c.label: unmatched_figures(c.right, Facts.of(c.results, c.said), names) for c in cases}
    print("\n" + "\n".join(f"{label}: {misses}" for label, misses in flagged.items() if misses))
    assert {label: misses for label, misses in flagged.items() if misses} == {}


def test_one_wrong_figure_is_caught_in_every_answer(cases: list[Case], names: list[str]) -> None:
    missed = []
    for case in cases:
        assert case.wrong != case.right, case.label  # the injection changed the text
        if not unmatched_figures(case.wrong, Facts.of(case.results, case.said), names):
            missed.append(f"{case.label}: {case.wrong}")
    assert missed == [], "\n".join(missed)


def test_display_rounding_is_allowed_and_nothing_else() -> None:
    facts = Facts.of([{"name": "Boros Energy", "wins": 89, "losses": 61, "draws": 13, "meta_share": 9.3456}])
    assert unmatched_figures("Boros Energy: 9.3% of the field, 59.3% (89-61-13), 9% share.", facts) == []
    misses = unmatched_figures("Boros Energy: 9.4% of the field and 61-89-13.", facts)
    assert [m.figure for m in misses] == ["9.4%", "61-89-13"]
    # dates, windows, the confidence level are no figures
    assert unmatched_figures("From 2025-10-19 over 30 days, at 95% confidence, even is 50%.", facts) == []


# --- check, then show: the same cases through the stream a reader sees ------------------------------------------


def streamed(text: str, facts: Facts, names: list[str], chunk: int) -> tuple[str, CheckedStream]:
    """``text`` fed to a CheckedStream ``chunk`` characters at a time, and everything it let through."""
    stream = CheckedStream(facts, names)
    shown = [piece for start in range(0, len(text), chunk) for piece in stream.feed(text[start : start + chunk])]
    return "".join(shown + stream.close()), stream


def unmarked(figure: str, shown: str) -> bool:
    """``figure`` stands somewhere in ``shown`` without its mark."""
    return shown.replace(marked(figure), "").count(figure) > 0


@pytest.mark.parametrize("chunk", [1, 3, 8, 10_000])
def test_an_honest_answer_streams_through_byte_for_byte(cases: list[Case], names: list[str], chunk: int) -> None:
    for case in cases:
        shown, stream = streamed(case.right, Facts.of(case.results, case.said), names, chunk)
        assert shown == case.right, case.label
        assert stream.misses == []


@pytest.mark.parametrize("chunk", [1, 3, 8, 10_000])
def test_a_wrong_figure_is_never_shown_unmarked(cases: list[Case], names: list[str], chunk: int) -> None:
    for case in cases:
        facts = Facts.of(case.results, case.said)
        shown, stream = streamed(case.wrong, facts, names, chunk)
        misses = unmatched_figures(case.wrong, facts, names)
        figures = [m.figure for m in misses if m.kind != "name"]
        for figure in figures:
            assert not unmarked(figure, shown), f"{case.label}: {shown}"
        assert stream.misses == misses, case.label  # a wrong name is reported (the grounding event), not struck


def test_each_sentence_is_shown_when_it_ends() -> None:
    facts = Facts.of([{"name": "Boros Energy", "wins": 89, "losses": 61, "draws": 13, "meta_share": 9.3456}])
    stream = CheckedStream(facts, ["Boros Energy"])
    assert stream.feed("Boros Energy holds 9.3% of the field") == []  # not finished: held
    assert stream.feed(". It went 8") == ["Boros Energy holds 9.3% of the field. "]
    assert stream.feed("9-61-13.\n| Boros Energy | 9.4% |\n") == [
        "It went 89-61-13.\n",
        f"| Boros Energy | {marked('9.4%')} |\n",
    ]
    assert stream.close() == []


def test_a_figure_is_marked_however_it_is_set_off() -> None:
    facts = Facts.of([{"name": "Boros Energy", "wins": 89, "losses": 61, "draws": 13, "meta_share": 9.3456}])
    for written in ("about ~71% of games", "_71%_ of games", "(71%) of games", "**71%** of games"):
        shown, _ = streamed(f"Boros Energy wins {written}. ", facts, ["Boros Energy"], 4)
        assert marked("71%") in shown and not unmarked("71%", shown), shown


def test_a_sentence_is_not_cut_inside_parentheses_or_after_an_abbreviation() -> None:
    facts = Facts.of(
        [
            {"name": "Boros Energy", "meta_share": 22.1, "win_rate": 55.9},
            {"name": "Domain Zoo", "meta_share": 7.6, "win_rate": 57.1},
        ]
    )
    names = ["Boros Energy", "Domain Zoo"]
    for honest in (
        "Boros Energy (22.1% share; 55.9% win rate) beats Domain Zoo. ",
        "Boros Energy wins 55.9%, e.g. against Domain Zoo. ",
        "Boros Energy vs. Domain Zoo: 55.9% for Boros Energy. ",
    ):
        shown, stream = streamed(honest, facts, names, 5)
        assert shown == honest and stream.misses == [], (honest, stream.misses)
