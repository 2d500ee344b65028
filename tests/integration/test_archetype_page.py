"""``get_archetype_page`` over moto with the bundled demo data, in two formats (Modern, Pauper): the aggregate list
agrees with the aggregates the ingest stored, the best finish follows its stated rule, the record and matchups
are ``get_deck_matchup_stats``' own, the export reads back through the deck parser, and bad arguments are
refused naming the field. Also served over MCP and HTTP."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any

import httpx
import pytest

from meta_mage.api.factory import build_app
from meta_mage.archetypes.playbooks import playbook_for
from meta_mage.config import Settings
from meta_mage.decks.archetype_page import LARGE_EVENT_LISTS
from meta_mage.decks.parse import parse_deck_text
from meta_mage.errors import InvalidArgument, NotFound
from meta_mage.models.cards import card_key
from meta_mage.storage.meta import MetaRepository
from tests.conftest import call
from tests.mcp_server.conftest import mcp_session

# (format, archetype): the most played named deck of each format's last 30 days, and a smaller one
PAGES = [("Modern", "Boros Energy"), ("Modern", "Affinity"), ("Pauper", "Mono Blue Terror")]


def _repository(world: dict[str, Any]) -> MetaRepository:
    return MetaRepository(world["db"].Table(world["settings"].meta_table))


@pytest.fixture(scope="module")
def pages(demo_world: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(fmt, name): call(demo_world, "get_archetype_page", format=fmt, archetype=name) for fmt, name in PAGES}


@pytest.mark.parametrize(("fmt", "name"), PAGES)
def test_the_aggregate_counts_every_list_and_keeps_the_usual_sizes(
    demo_world: dict[str, Any], pages: dict[tuple[str, str], dict[str, Any]], fmt: str, name: str
) -> None:
    page = pages[(fmt, name)]
    listed = call(demo_world, "get_format_archetypes", format=fmt, days=30)["archetypes"]
    assert page["aggregate"]["lists"] == next(a["decks"] for a in listed if a["name"] == name)
    stock = page["aggregate"]
    assert (stock["main_size"], stock["side_size"]) == (60, 15)
    assert sum(c["copies"] for c in stock["mainboard"]) == 60
    assert sum(c["copies"] for c in stock["sideboard"]) == 15


@pytest.mark.parametrize(("fmt", "name"), PAGES)
def test_each_cards_inclusion_and_copies_agree_with_the_stored_aggregates(
    demo_world: dict[str, Any], pages: dict[tuple[str, str], dict[str, Any]], fmt: str, name: str
) -> None:
    # Given the card rows the ingest summed per event (another path than the page's per-list reading)
    page = pages[(fmt, name)]
    period = page["spread"]["metadata"]["period"]
    stats = _repository(demo_world).archetype_stats(fmt, name, period["start"], period["end"])
    for section, rows in (("mainboard", stats.main), ("sideboard", stats.side)):
        for card in page["aggregate"][section]:
            row = rows[card["name"]]
            assert card["inclusion"] == round(100 * row.decks / stats.decks, 1), card["name"]
            assert card["average_copies"] == round(row.copies / row.decks, 2), card["name"]
            assert card["land"] == (card["name"] in stats.lands)
            # a flex copy is one fewer than half the lists play; copy shares never rise with the copy number
            shares = card["copy_shares"]
            assert shares == sorted(shares, reverse=True) and shares[0] == card["inclusion"]
            assert card["flex_copies"] == sum(1 for share in shares if share < page["aggregate"]["flex_below"])


@pytest.mark.parametrize(("fmt", "name"), PAGES)
def test_the_best_finish_is_the_best_placing_at_a_large_event_the_newest_on_a_tie(
    demo_world: dict[str, Any], pages: dict[tuple[str, str], dict[str, Any]], fmt: str, name: str
) -> None:
    page = pages[(fmt, name)]
    period = page["spread"]["metadata"]["period"]
    decks = _repository(demo_world).format_decks(fmt, period["start"], period["end"])
    sizes = Counter(d.event_key for d in decks)
    placed = [
        (int(d.placing.split(maxsplit=1)[0].rstrip("stndrh")), d)  # "21th Place" -> 21
        for d in decks
        if d.archetype == name and sizes[d.event_key] >= LARGE_EVENT_LISTS
    ]
    best_place = min(place for place, _ in placed)
    newest = max(dt.date.fromisoformat(d.date) for place, d in placed if place == best_place)
    best = page["best_finish"]
    assert best["large_event"] and (best["place"], best["date"]) == (best_place, newest.isoformat())
    chosen = next(
        d for _, d in placed if (d.player, d.event_name, d.date) == (best["player"], best["event"], best["date"])
    )
    assert (best["mainboard"], best["sideboard"]) == (chosen.mainboard, chosen.sideboard)
    assert best["event_lists"] == sizes[chosen.event_key] and best["record"] is None  # the data keeps no record


@pytest.mark.parametrize(("fmt", "name"), PAGES)
def test_the_record_and_matchups_are_the_matchup_tools_own(
    demo_world: dict[str, Any], pages: dict[tuple[str, str], dict[str, Any]], fmt: str, name: str
) -> None:
    page = pages[(fmt, name)]
    assert page["spread"] == call(demo_world, "get_deck_matchup_stats", format=fmt, archetype=name, days=30)
    assert all(c["verdict"] == "favoured" for c in page["favoured"])
    assert all(c["verdict"] == "unfavoured" for c in page["unfavoured"])
    called = Counter(c["verdict"] for c in page["spread"]["matchups"])
    assert (len(page["favoured"]), len(page["unfavoured"])) == (called["favoured"], called["unfavoured"])


@pytest.mark.parametrize(("fmt", "name"), PAGES)
def test_both_exports_read_back_through_the_deck_parser(
    pages: dict[tuple[str, str], dict[str, Any]], fmt: str, name: str
) -> None:
    def keyed(pile: dict[str, int]) -> dict[str, int]:  # a split card is written in full, stored by its front face
        return {card_key(card): copies for card, copies in pile.items()}

    page = pages[(fmt, name)]
    stock = parse_deck_text(page["aggregate"]["text"])
    assert keyed(stock.mainboard) == {card_key(c["name"]): c["copies"] for c in page["aggregate"]["mainboard"]}
    assert keyed(stock.sideboard) == {card_key(c["name"]): c["copies"] for c in page["aggregate"]["sideboard"]}
    assert not stock.skipped_lines
    best = parse_deck_text(page["best_finish"]["text"])
    assert (keyed(best.mainboard), keyed(best.sideboard)) == (
        keyed(page["best_finish"]["mainboard"]),
        keyed(page["best_finish"]["sideboard"]),
    )


def test_a_split_card_is_exported_by_its_full_name(pages: dict[tuple[str, str], dict[str, Any]]) -> None:
    page = pages[("Modern", "Boros Energy")]
    wear = next(c for c in page["aggregate"]["sideboard"] if c["name"] == "Wear")  # as the lists store it
    assert f"\n{wear['copies']} Wear // Tear\n" in page["aggregate"]["text"]
    assert "Wear\n" not in page["aggregate"]["text"].replace("Wear // Tear", "")


@pytest.mark.parametrize(("fmt", "name"), PAGES)
def test_the_playbook_is_the_formats_playbook_with_its_engine_checked_against_the_lists(
    demo_world: dict[str, Any], pages: dict[tuple[str, str], dict[str, Any]], fmt: str, name: str
) -> None:
    book = playbook_for(Settings().archetype_rules_dir, fmt, name)
    notes = pages[(fmt, name)]["playbook"]
    assert book is not None and notes is not None
    assert (notes["role"], notes["plan"], notes["fears_why"]) == (book.role, book.plan, book.fears_why)
    assert (notes["engine"], notes["fears"], notes["graveyard"]) == (
        list(book.engine),
        list(book.fears),
        list(book.graveyard),
    )
    period = pages[(fmt, name)]["spread"]["metadata"]["period"]
    stats = _repository(demo_world).archetype_stats(fmt, name, period["start"], period["end"])
    rows = {card_key(card): row for card, row in stats.main.items()}
    below = [
        card
        for card in book.engine
        if card_key(card) not in rows or rows[card_key(card)].decks < book.engine_share * stats.decks
    ]
    assert [card["name"] for card in notes["stale_engine"]] == below


def test_an_archetype_without_a_playbook_says_so(demo_world: dict[str, Any]) -> None:
    assert playbook_for(Settings().archetype_rules_dir, "Modern", "Living End") is None
    page = call(demo_world, "get_archetype_page", format="Modern", archetype="Living End")
    assert page["playbook"] is None and page["aggregate"]["lists"] > 0


def test_an_archetype_id_and_any_case_name_the_same_page(
    demo_world: dict[str, Any], pages: dict[tuple[str, str], dict[str, Any]]
) -> None:
    assert (
        call(demo_world, "get_archetype_page", format="modern", archetype="boros-energy")
        == pages[("Modern", "Boros Energy")]
    )


@pytest.mark.parametrize(
    ("arguments", "error", "field"),
    [
        ({"format": "Modrn", "archetype": "Boros Energy"}, InvalidArgument, "format"),
        ({"format": "Modern", "archetype": "Goblin Storm"}, NotFound, "archetype"),
        ({"format": "Modern", "archetype": ""}, InvalidArgument, "archetype"),
        ({"format": "Modern", "archetype": "Boros Energy", "days": 0}, InvalidArgument, "days"),
        ({"format": "Modern", "archetype": "Boros Energy", "top_n": 3}, InvalidArgument, "top_n"),
    ],
)
def test_bad_arguments_are_refused_naming_the_field(
    demo_world: dict[str, Any], arguments: dict[str, Any], error: type[Exception], field: str
) -> None:
    with pytest.raises(error) as raised:
        call(demo_world, "get_archetype_page", **arguments)
    assert raised.value.field == field  # type: ignore[attr-defined]
    if field == "archetype" and error is NotFound:
        assert "Boros Energy" in raised.value.allowed  # type: ignore[attr-defined]
    if field == "format":
        assert "Modern, Pioneer, Legacy, Pauper, Standard, Vintage" in str(raised.value)


async def test_the_mcp_server_lists_and_answers_it(mcp_url: str, modern_world: dict[str, Any]) -> None:
    async with mcp_session(mcp_url) as session:
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        result = await session.call_tool("get_archetype_page", {"format": "Modern", "archetype": "Affinity"})
    assert set(listed["get_archetype_page"].inputSchema["properties"]) == {"format", "as_of", "archetype", "days"}
    assert not result.isError
    assert result.structuredContent == call(modern_world, "get_archetype_page", format="Modern", archetype="Affinity")


async def test_the_http_route_answers_and_refuses_naming_the_field(modern_world: dict[str, Any]) -> None:
    app = build_app(modern_world["settings"], modern_world["db"], serve_page=True)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        ok = await client.get("/archetypes/boros-energy/page", params={"format": "Modern", "days": "30"})
        unknown = await client.get("/archetypes/goblin-storm/page", params={"format": "Modern"})
        no_format = await client.get("/archetypes/boros-energy/page")
        extra = await client.get("/archetypes/boros-energy/page", params={"format": "Modern", "top_n": "3"})
        documented = (await client.get("/openapi.json")).json()["paths"]["/archetypes/{archetype}/page"]["get"]
    assert ok.status_code == 200
    assert ok.json() == call(modern_world, "get_archetype_page", format="Modern", archetype="Boros Energy", days=30)
    assert (unknown.status_code, unknown.json()["field"]) == (404, "archetype")
    assert (no_format.status_code, no_format.json()["field"]) == (400, "format")
    assert (extra.status_code, extra.json()["field"]) == (400, "top_n")
    assert {p["name"] for p in documented["parameters"]} == {"archetype", "format", "as_of", "days"}


@pytest.mark.parametrize(("name", "catch_all"), [("Unknown", True), ("Combo", True), ("Boros Energy", False)])
def test_a_catch_all_is_marked(demo_world: dict[str, Any], name: str, catch_all: bool) -> None:
    assert call(demo_world, "get_archetype_page", format="Modern", archetype=name)["catch_all"] is catch_all
