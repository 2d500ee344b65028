"""Every tool on real demo data (Modern; every format for the match totals) in moto, compared with independent
counts."""

import json
import tarfile
from collections import Counter, defaultdict
from typing import Any

import pytest

from meta_mage.archetypes.classifier import get_classifier
from meta_mage.errors import InvalidArgument, NotFound
from meta_mage.storage.meta import MetaRepository
from tests.conftest import DEMO_TOURNAMENTS, call

BURN_DECK = """4 Goblin Guide
4 Monastery Swiftspear
4 Lightning Bolt
4 Lava Spike
4 Rift Bolt
4 Skewer the Critics
4 Boros Charm
4 Lightning Helix
4 Eidolon of the Great Revel
2 Light Up the Stage
4 Inspiring Vantage
4 Sacred Foundry
4 Sunbaked Canyon
10 Mountain

3 Path to Exile
4 Kor Firewalker
4 Deflecting Palm
4 Smash to Smithereens
"""


def test_catalog_lists_every_tool(modern_world: dict[str, Any]) -> None:
    names = modern_world["registry"].names()
    assert names == [
        "list_formats",
        "get_format_meta_rankings",
        "get_format_matchup_stats",
        "get_format_archetypes",
        "get_enriched_deck",
        "classify_deck",
        "get_deck_matchup_stats",
        "generate_deck_matchup_strategy",
        "optimize_mainboard",
        "optimize_sideboard",
        "get_card_evidence",
        "get_archetype_page",
        "list_drafts",
        "get_draft_pool",
    ]
    for entry in modern_world["registry"].catalog():
        assert entry["description"] and entry["input_schema"]["type"] == "object"


def independent_modern_counts(archive: Any, start: str, end: str) -> Counter[str]:
    """Classify the window's decks straight from the files, without the tables."""
    classifier = get_classifier(modern_world_rules())
    counts: Counter[str] = Counter()
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            doc = json.loads(tar.extractfile(member).read())  # type: ignore[union-attr]
            if not start <= doc["Tournament"]["Date"][:10] <= end:
                continue
            for deck in doc["Decks"]:
                main = {}
                for e in deck["Mainboard"]:
                    main[e["CardName"].split(" // ")[0]] = main.get(e["CardName"].split(" // ")[0], 0) + e["Count"]
                side = {e["CardName"].split(" // ")[0]: e["Count"] for e in deck["Sideboard"] or []}
                if main:
                    counts[classifier.classify("Modern", main, side).archetype] += 1
    return counts


def modern_world_rules() -> Any:
    from meta_mage.config import get_settings

    return get_settings().archetype_rules_dir


def test_meta_rankings_match_an_independent_count(modern_world: dict[str, Any]) -> None:
    result = call(modern_world, "get_format_meta_rankings", format="modern")
    meta = result["metadata"]
    assert meta["current_period"]["end"] == "2025-11-17" and meta["current_period"]["start"] == "2025-11-04"
    assert meta["previous_period"] == {"start": "2025-10-21", "end": "2025-11-03", "days": 14}
    counts = independent_modern_counts(modern_world["archive"], "2025-11-04", "2025-11-17")
    assert meta["current_decks"] == sum(counts.values())
    top = result["rows"][0]
    assert top["decks"] == counts.most_common(1)[0][1]
    assert top["meta_share"] == round(100 * top["decks"] / sum(counts.values()), 2)
    assert round(sum(r["meta_share"] for r in result["rows"])) == 100
    w, l = top["current"]["wins"], top["current"]["losses"]
    assert top["current"]["win_rate"] == round(100 * w / (w + l), 2)
    assert top["current"]["ci_low"] < top["current"]["win_rate"] < top["current"]["ci_high"]


def independent_match_counts(archive: Any) -> dict[str, Counter[str]]:
    """Per format, matches played and draws counted straight from the files, without the parse: within a round
    (rounds told apart by their place in the file) two players' rows are one match however many list it
    (melee.gg lists a draw once for each player); a pairing with no opponent ("-": a bye, an assigned loss) or
    with a row of 0-0-0 (unreported) is no match played."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            doc = json.loads(tar.extractfile(member).read())  # type: ignore[union-attr]
            for round_ in doc["Rounds"]:
                pairings: dict[frozenset[str], list[str]] = defaultdict(list)
                for row in round_["Matches"]:
                    pairings[frozenset((row["Player1"].strip(), row["Player2"].strip()))].append(row["Result"])
                for players, results in pairings.items():
                    if "-" not in players and "0-0-0" not in results:
                        won, lost, _ = results[0].split("-")
                        counts[doc["Tournament"]["Formats"]].update(matches=1, draws=int(won == lost))
    return counts


def test_every_formats_matches_and_draws_equal_a_recount_of_distinct_matches(demo_world: dict[str, Any]) -> None:
    # Given every bundled format, as the shipped snapshot stores it, and a recount of the bundled files
    counts = independent_match_counts(DEMO_TOURNAMENTS)
    formats = {f["format"]: f for f in call(demo_world, "list_formats")["formats"]}
    assert set(formats) == set(counts)
    repository = MetaRepository(demo_world["db"].Table(demo_world["settings"].meta_table))
    for name, entry in formats.items():
        total = repository.format_total(name, entry["first_date"], entry["last_date"])
        # Then each format's matches and draws are the distinct matches (a draw listed twice counted once)
        assert (entry["matches"], total.matches, total.draws) == (
            counts[name]["matches"],
            counts[name]["matches"],
            counts[name]["draws"],
        ), name


def test_no_meta_share_trend_without_a_previous_window(modern_world: dict[str, Any]) -> None:
    # the demo data holds the last 28 days, so the 30 days before the last 30 hold nothing
    result = call(modern_world, "get_format_meta_rankings", format="Modern", current_days=30, previous_days=30)
    assert result["metadata"]["previous_decks"] == 0
    assert {(r["previous_meta_share"], r["meta_share_trend"]) for r in result["rows"]} == {(None, None)}
    with_previous = call(modern_world, "get_format_meta_rankings", format="Modern")["rows"][0]
    assert with_previous["meta_share_trend"] == round(
        with_previous["meta_share"] - with_previous["previous_meta_share"], 2
    )


def test_rankings_filters_and_grouping(modern_world: dict[str, Any]) -> None:
    by_colour = call(modern_world, "get_format_meta_rankings", format="Modern", group_by="color_identity")
    all_rows = call(modern_world, "get_format_meta_rankings", format="Modern")
    assert sum(r["decks"] for r in by_colour["rows"]) == sum(r["decks"] for r in all_rows["rows"])
    boros = call(modern_world, "get_format_meta_rankings", format="Modern", color_identity="RW")
    assert boros["rows"] and all(r["color_identity"] == "WR" for r in boros["rows"])


def test_matchup_matrix_excludes_mirrors_and_is_symmetric(modern_world: dict[str, Any]) -> None:
    result = call(modern_world, "get_format_matchup_stats", format="Modern", days=30)
    rows = {r["archetype"]: r for r in result["archetypes"]}
    for name, row in rows.items():
        assert all(cell["opponent"] != name for cell in row["matchups"])
        for cell in row["matchups"]:
            back = next(c for c in rows[cell["opponent"]]["matchups"] if c["opponent"] == name)
            assert (back["wins"], back["losses"], back["draws"]) == (cell["losses"], cell["wins"], cell["draws"])


def test_archetypes_and_deck_matchups(modern_world: dict[str, Any]) -> None:
    archetypes = call(modern_world, "get_format_archetypes", format="Modern")
    assert archetypes["archetypes"][0]["meta_share"] >= archetypes["archetypes"][1]["meta_share"]
    first = archetypes["archetypes"][0]
    assert first["id"] == first["name"].lower().replace(" ", "-") and first["strategy"] != ""
    spread = call(modern_world, "get_deck_matchup_stats", archetype=first["id"], format="Modern", days=30)
    assert spread["archetype"] == first["name"] and spread["matchups"]


def real_list(archive: Any, wanted: str) -> str:
    """The first demo decklist of an archetype, as MTGO .txt."""
    classifier = get_classifier(modern_world_rules())
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            for deck in json.loads(tar.extractfile(member).read())["Decks"]:  # type: ignore[union-attr]
                main = {e["CardName"]: e["Count"] for e in deck["Mainboard"]}
                if (
                    main
                    and sum(main.values()) == 60
                    and len(deck["Sideboard"] or []) > 3
                    and classifier.classify("Modern", main, {}).archetype == wanted
                ):
                    lines = [f"{c} {n}" for n, c in main.items()] + [""]
                    return "\n".join(lines + [f"{e['Count']} {e['CardName']}" for e in deck["Sideboard"]])
    raise AssertionError(f"no {wanted} list in the demo data")


def test_enrich_classify_and_coach_a_real_list(modern_world: dict[str, Any]) -> None:
    text = real_list(modern_world["archive"], "Boros Energy")
    enriched = call(modern_world, "get_enriched_deck", deck=BURN_DECK.replace("Lightning Helix", "Lightnig Helix"))
    assert enriched["corrected"] == {"Lightnig Helix": "Lightning Helix"}  # a typo the fuzzy match fixes
    assert enriched["counts"]["mainboard"] == 60 and enriched["counts"]["sideboard"] == 15
    bolt = next(c for c in enriched["card_details"] if c["name"] == "Lightning Bolt")
    assert (bolt["mana_cost"], bolt["cmc"], bolt["type_line"]) == ("{R}", 1.0, "Instant")

    # lines that name one card in different spellings are one entry
    split = BURN_DECK.replace("4 Lightning Bolt", "3 Lightning Bolt\n1 lightning bolt", 1)
    assert split != BURN_DECK
    merged = call(modern_world, "get_enriched_deck", deck=split)
    assert [(c["quantity"], c["section"]) for c in merged["card_details"] if c["name"] == "Lightning Bolt"] == [
        (4, "mainboard")
    ]
    assert merged["counts"]["distinct_cards"] == len(merged["card_details"])

    verdict = call(modern_world, "classify_deck", deck=text, format="Modern")
    archetype = verdict["archetype"]
    assert archetype == "Boros Energy" and verdict["color_identity"] == "WR"
    enriched = call(modern_world, "get_enriched_deck", deck=text)
    assert not enriched["unresolved"]

    details = enriched["card_details"]
    main = call(modern_world, "optimize_mainboard", card_details=details, archetype=archetype, format="Modern")
    assert main["lists_compared"] > 0 and main["core_cards"]
    side = call(modern_world, "optimize_sideboard", card_details=details, archetype=archetype, format="Modern")
    assert side["total_cards"] == 15 == sum(s["quantity"] for s in side["final_sideboard"])

    stats = call(modern_world, "get_deck_matchup_stats", archetype=archetype, format="Modern", days=60)
    opponent = stats["matchups"][0]["opponent"]
    facts = call(
        modern_world,
        "generate_deck_matchup_strategy",
        card_details=details,
        archetype=archetype,
        opponent_archetype=opponent,
        matchup_stats=stats,
    )
    assert facts["record"]["matches"] == stats["matchups"][0]["matches"]
    assert facts["opponent_key_cards"] and facts["opponent_key_cards"][0]["inclusion_rate"] >= 40


@pytest.mark.parametrize(
    ("tool", "arguments", "error", "field"),
    [
        ("get_format_meta_rankings", {"format": "Commander"}, InvalidArgument, "format"),
        ("get_format_meta_rankings", {"format": "Modern", "current_days": 0}, InvalidArgument, "current_days"),
        ("get_format_matchup_stats", {"format": "Modern", "days": 10000}, InvalidArgument, "days"),
        ("get_format_meta_rankings", {"format": "Modern", "color_identity": "P"}, InvalidArgument, "color_identity"),
        ("get_format_archetypes", {"format": "Pauper"}, NotFound, "format"),
        ("get_deck_matchup_stats", {"format": "Modern", "archetype": "Slivers"}, NotFound, "archetype"),
        ("get_enriched_deck", {"deck": ""}, InvalidArgument, "deck"),
        ("classify_deck", {"deck": "4 Island"}, InvalidArgument, "format"),
        ("get_draft_pool", {"draft_id": "tarkir", "color": "X"}, InvalidArgument, "color"),
        ("get_draft_pool", {"draft_id": "nope"}, NotFound, "draft_id"),
        ("list_formats", {"surprise": 1}, InvalidArgument, "surprise"),
    ],
)
def test_bad_arguments_name_the_field(
    modern_world: dict[str, Any], tool: str, arguments: dict[str, Any], error: type[Exception], field: str
) -> None:
    with pytest.raises(error) as raised:
        modern_world["registry"].call(tool, arguments, modern_world["context"])
    assert raised.value.field == field  # type: ignore[attr-defined]


def test_read_tools_stay_within_their_request_budget(modern_world: dict[str, Any]) -> None:
    client = modern_world["db"].meta.client
    calls: list[str] = []
    client.meta.events.register("before-call.dynamodb", lambda model, **_: calls.append(model.name))
    cases = {
        "list_formats": {},
        "get_format_meta_rankings": {"format": "Modern", "current_days": 30, "previous_days": 30},
        "get_format_matchup_stats": {"format": "Modern", "days": 60},
        "get_format_archetypes": {"format": "Modern"},
        "get_deck_matchup_stats": {"format": "Modern", "archetype": "Boros Energy", "days": 60},
        "get_enriched_deck": {"deck": BURN_DECK},
        "list_drafts": {},
        "get_draft_pool": {"draft_id": "tarkir"},
    }
    try:
        for tool, arguments in cases.items():
            calls.clear()
            call(modern_world, tool, **arguments)
            budget = 2 if tool == "get_draft_pool" else 3
            assert len(calls) <= budget, (tool, calls)
    finally:
        client.meta.events.unregister("before-call.dynamodb")


def test_sideboard_answers_respect_card_types_colours_and_graveyard_hate(modern_world: dict[str, Any]) -> None:
    from meta_mage.card_rules.answers import answered_by
    from meta_mage.card_rules.facts import CardFacts
    from meta_mage.models.cards import card_key

    names = ["Red Elemental Blast", "Fireblast", "Counterspell", "Wrath of the Skies", "Ephemerate", "Lotleth Giant",
             "Leyline of the Void", "Faithless Looting", "Relic of Progenitus", "Living End", "Force of Negation",
             "Lightning Bolt", "Haywire Mite", "Sol Ring", "Ragavan, Nimble Pilferer"]  # fmt: skip
    cards = {c.name: c for c in modern_world["context"].cards.get_many([card_key(n) for n in names]).values()}

    def answers(side: str, opposing: str) -> bool:
        return bool(answered_by(CardFacts.of(cards[side]), CardFacts.of(cards[opposing])))

    assert answers("Red Elemental Blast", "Counterspell")  # a blue spell
    assert not answers("Red Elemental Blast", "Fireblast")  # red: REB only hits blue
    assert not answers("Wrath of the Skies", "Ephemerate")  # "target creature" in its text is not a creature
    assert answers("Leyline of the Void", "Living End") and answers("Relic of Progenitus", "Faithless Looting")
    assert not answers("Lotleth Giant", "Faithless Looting")  # uses its own graveyard, does not exile one
    assert answers("Force of Negation", "Lightning Bolt")  # "exile a blue card from your hand" is a cost, not a hoser
    assert answers("Haywire Mite", "Sol Ring")
    assert not answers("Haywire Mite", "Ragavan, Nimble Pilferer")  # "noncreature artifact" is no creature answer


def test_the_matchup_grid_is_the_top_archetypes_against_each_other(modern_world: dict[str, Any]) -> None:
    table = call(modern_world, "get_format_matchup_stats", format="Modern", days=30, top_n=6)
    grid = table["grid"]
    names = grid["archetypes"]
    assert names == [r["archetype"] for r in table["archetypes"] if r["archetype"] != "Unknown"][:6]
    for i, a in enumerate(names):
        assert grid["cells"][i][i] is None  # mirrors are counted apart
        assert grid["mirrors"][i] == next(r["mirror_matches"] for r in table["archetypes"] if r["archetype"] == a)
        for j in range(len(names)):
            if i != j:  # A's wins against B are B's losses against A, and the estimates add up to 100
                here, there = grid["cells"][i][j], grid["cells"][j][i]
                assert (here["wins"], here["losses"]) == (there["losses"], there["wins"])
                if here["estimate"] is not None:
                    assert here["estimate"] + there["estimate"] == pytest.approx(100, abs=0.02)
