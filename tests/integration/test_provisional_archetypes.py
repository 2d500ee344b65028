"""Provisional archetypes on the real Standard demo tournaments in moto: with the rule file of the format's most
played deck (Spellslinger.json: Izzet Vivi Cauldron and its parent) removed, the ingest names its lists with one
provisional name that rankings, matchups, what to play, a pasted list and the sync's report show; restoring the
rule file and ingesting again retires it."""

from __future__ import annotations

import datetime as dt
import re
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from moto import mock_aws

from meta_mage.analytics.meta import MetaService
from meta_mage.archetypes.classifier import ArchetypeClassifier
from meta_mage.archetypes.provisional import PROVISIONAL_MARKER, is_provisional
from meta_mage.config import DEMO_DATA_DIR
from meta_mage.decks.coach import DeckCoach
from meta_mage.ingest.invariants import check_storage
from meta_mage.ingest.rule_suggestions import fallback_shares, suggest_rules, unnamed_names
from meta_mage.ingest.tournament_ingest import ingest_tournaments
from meta_mage.models.cards import card_key
from meta_mage.models.decks import ClassifyDeckInput
from meta_mage.models.meta import MatchupStatsInput, MetaRankingsInput
from meta_mage.storage.cards import CardsRepository
from meta_mage.storage.dynamo import dynamodb_resource
from meta_mage.storage.meta import MetaRepository, StoredDeck
from meta_mage.storage.tables import create_tables
from meta_mage.sync.run import sync
from meta_mage.sync.upstream import GitHubUpstream
from tests.conftest import archive_of, demo_members, prefixed_settings
from tests.sync.conftest import client
from tests.sync.fake_github import FakeGitHub, FakeRepository, day, laid_out, serving

FORMAT = "Standard"
REMOVED = "Spellslinger.json"  # Izzet Vivi Cauldron (a variant of Spellslinger): 399 of the demo's 2,009 lists
WINDOW = ("2025-10-19", "2025-11-17")
BUNDLED = ArchetypeClassifier(DEMO_DATA_DIR / "archetypes")


def _rules_without(folder: Path) -> Path:
    shutil.copytree(DEMO_DATA_DIR / "archetypes", folder)
    (folder / f"Formats/{FORMAT}/Archetypes/{REMOVED}").unlink()
    return folder


def _was_removed(deck: StoredDeck) -> bool:
    """Whether the bundled rules name the deck by the removed file (Vivi Cauldron or its parent Spellslinger)."""
    return BUNDLED.classify(FORMAT, deck.mainboard, deck.sideboard).base_name in ("Vivi Cauldron", "Spellslinger")


@pytest.fixture(scope="module")
def cauldron_gone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The real Standard demo tournaments ingested (provisional names on) with the rules less Spellslinger.json."""
    folder = tmp_path_factory.mktemp("provisional")
    settings = prefixed_settings("provisional")
    archive = archive_of(demo_members(formats=(FORMAT,)), folder / "standard.tar.gz")
    rules = _rules_without(folder / "rules")
    with mock_aws():
        db = dynamodb_resource(settings)
        create_tables(db, settings)
        try:
            meta = MetaRepository(db.Table(settings.meta_table))
            report = ingest_tournaments([archive], meta, ArchetypeClassifier(rules), provisional=True)
            assert report.ok, report.summary()
            decks = meta.format_decks(FORMAT, *WINDOW)
            yield {
                "db": db,
                "settings": settings,
                "meta": meta,
                "archive": archive,
                "rules": rules,
                "report": report,
                "decks": decks,
                "cauldron": _cauldron_name(decks),  # the removed decks' most given name, and every name they got
            }
        finally:
            for name in settings.table_names().values():
                db.Table(name).delete()


def _cauldron_name(decks: list[StoredDeck]) -> tuple[str, Counter[str]]:
    names = Counter(d.archetype for d in decks if _was_removed(d))
    return names.most_common(1)[0][0], names


def test_the_removed_decks_lists_get_one_provisional_name(cauldron_gone: dict[str, Any]) -> None:
    # Given the decks stored without the Cauldron rule
    name, names = cauldron_gone["cauldron"]
    # Then nearly all of its 439 lists (399 Vivi Cauldron, 40 Spellslinger) carry one provisional name, and
    # a handful at most are left "Unknown" or to a catch-all (5 of them: 1 %)
    assert is_provisional(name) and name.startswith("Izzet ") and name.endswith(PROVISIONAL_MARKER)
    total = sum(names.values())
    assert names[name] >= 0.95 * total and total == 439
    rules = ArchetypeClassifier(cauldron_gone["rules"]).rules_for(FORMAT)
    assert sum(names[n] for n in unnamed_names(rules, names)) <= 0.02 * total, names
    # And the run's report names it with its figures, and re-labelled the events stored before it was named
    report = cauldron_gone["report"]
    line = next(line for line in report.provisional if name in line)
    assert line.startswith(f"{FORMAT}: New deck: {name}, {names[name]} lists from ")
    assert "event wins" in line and report.outcomes["re-labelled"] > 0
    # And the provisional rules are stored for every process: one versioned item
    version, rows = cauldron_gone["meta"].provisional_archetypes(FORMAT)
    assert version >= 1 and name in [row["name"] for row in rows]


def test_rankings_matchups_and_what_to_play_show_it(cauldron_gone: dict[str, Any]) -> None:
    meta: MetaRepository = cauldron_gone["meta"]
    name, _ = cauldron_gone["cauldron"]
    rules = ArchetypeClassifier(cauldron_gone["rules"])
    service = MetaService(meta, 20, lambda fmt, names: unnamed_names(rules.rules_for(fmt), names))
    # When the rankings and the matchups of the format are read
    rankings = service.rankings(MetaRankingsInput(format=FORMAT, current_days=30))
    matchups = service.matchups(MatchupStatsInput(format=FORMAT, days=30))
    # Then the provisional deck is the most played, with its marker, and has a matchup row
    assert rankings.rows[0].name == name and rankings.rows[0].decks >= 380
    row = next(r for r in matchups.archetypes if r.archetype == name)
    assert row.overall.matches > 100
    # And what to play counts it as a deck, not a catch-all
    expected = next(e for e in matchups.field if e.archetype == name)
    assert not expected.catch_all


def test_a_pasted_copy_classifies_to_it_and_an_unnamed_list_says_so(cauldron_gone: dict[str, Any]) -> None:
    meta: MetaRepository = cauldron_gone["meta"]
    decks: list[StoredDeck] = cauldron_gone["decks"]
    name, _ = cauldron_gone["cauldron"]
    rules = ArchetypeClassifier(cauldron_gone["rules"])
    coach = DeckCoach(MetaService(meta), CardsRepository(cauldron_gone["db"].Table("unused")), rules)
    winner = next(d for d in decks if d.archetype == name and d.placing.startswith("1st"))
    # When the winner's 75 is pasted
    pasted = coach.classify(ClassifyDeckInput(deck=_pasted(winner), format="standard"))
    # Then it is the provisional deck, not an older one
    assert (pasted.archetype, pasted.matched_by) == (name, "archetype")
    # And the deck tools keep the cards its rule names (a guide does not cut them as flex slots)
    (row,) = [r for r in meta.provisional_archetypes(FORMAT)[1] if r["name"] == name]
    named = {card_key(c) for cond in row["rule"]["Conditions"] if "DoesNot" not in cond["Type"] for c in cond["Cards"]}
    assert named and coach.context.classifier.defining_cards(FORMAT, name) == named
    # And a list only a catch-all would take is unnamed, not the catch-all's name
    catch_all = next(
        d
        for d in decks
        if rules.with_provisional({FORMAT: ()}).classify(FORMAT, d.mainboard, d.sideboard).kind == "fallback"
        and not is_provisional(d.archetype)
    )
    unnamed = coach.classify(ClassifyDeckInput(deck=_pasted(catch_all), format=FORMAT))
    assert (unnamed.archetype, unnamed.matched_by) == ("Unknown", "unknown")


def _pasted(deck: StoredDeck) -> str:
    main = "\n".join(f"{n} {card}" for card, n in deck.mainboard.items())
    side = "\n".join(f"{n} {card}" for card, n in deck.sideboard.items())
    return f"{main}\n\nSideboard\n{side}"


def test_rules_suggest_keeps_working_beside_them(cauldron_gone: dict[str, Any]) -> None:
    # Given the provisional names stored, When rules are suggested from the rule files
    decks: list[StoredDeck] = cauldron_gone["decks"]
    suggestions = suggest_rules(decks, FORMAT, cauldron_gone["rules"])
    # Then the provisional deck's lists, unnamed to the rule files, are still suggested a rule for review
    name, names = cauldron_gone["cauldron"]
    # And the unnamed share `rules suggest` reports counts them as unnamed by the rule files
    (share,) = [s for s in fallback_shares(cauldron_gone["meta"], ArchetypeClassifier(cauldron_gone["rules"]))]
    in_window = [d for d in cauldron_gone["meta"].format_decks(FORMAT, share.start, share.end) if d.archetype == name]
    assert share.by_name.get(name, 0) == len(in_window) > 0
    largest = suggestions[0]
    assert largest.decks >= 0.9 * names[name] and largest.display_name.startswith("Izzet ")
    assert largest.coverage >= 0.9 and not is_provisional(largest.name)


def test_restoring_the_rule_retires_the_provisional_name(cauldron_gone: dict[str, Any]) -> None:
    meta: MetaRepository = cauldron_gone["meta"]
    name, _ = cauldron_gone["cauldron"]
    # When the bundled rules (Spellslinger.json back) ingest the same files again
    report = ingest_tournaments([cauldron_gone["archive"]], meta, BUNDLED, provisional=True)
    # Then the provisional archetype is retired, naming what the rules call its lists
    assert report.ok, report.summary()
    retired = next(line for line in report.provisional if line.startswith(f"{FORMAT}: Retired: {name}"))
    assert "Izzet Vivi Cauldron" in retired
    assert name not in [row["name"] for row in meta.provisional_archetypes(FORMAT)[1]]
    # And no stored list carries it any more; the declared name has all 399
    names = Counter(d.archetype for d in meta.format_decks(FORMAT, *WINDOW))
    assert names[name] == 0 and names["Izzet Vivi Cauldron"] == 399
    # And the storage invariants hold (what `meta-mage repair --check` proves)
    assert check_storage(meta, [FORMAT]).ok


def test_the_daily_sync_reports_the_new_deck(tmp_path: Path, dynamodb: Any, settings: Any) -> None:
    # Given the Standard demo files upstream, and rules without Spellslinger.json
    rules = _rules_without(tmp_path / "rules")
    repository = FakeRepository()
    repository.commit(laid_out(demo_members(formats=(FORMAT,))), day(17))
    meta = MetaRepository(dynamodb.Table(settings.meta_table))
    with serving(FakeGitHub(repository)) as github:
        # When the daily sync runs
        upstream = GitHubUpstream(client(github), "main")
        report = sync(upstream, meta, ArchetypeClassifier(rules), since=dt.date(2025, 11, 1))
    # Then its report names the new deck, provisional, with its lists, events and wins
    summary = report.summary()
    first = report.to_dict()["provisional_archetypes"][0]
    assert re.fullmatch(
        rf"{FORMAT}: New deck: Izzet [^()]+ \(provisional\), 4\d\d lists from \d+ events, \d+ event wins", first
    )
    assert first in summary and report.ok
    # and the daily check of the playbooks: the new deck has none yet
    playbooks = report.to_dict()["playbooks"]
    assert playbooks.startswith(f"{FORMAT} playbooks") and playbooks in summary
    assert "without one" in playbooks and "(provisional)" in playbooks, playbooks
