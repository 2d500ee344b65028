"""The daily playbook check over the stored aggregates: Modern's shipped playbooks are current against the demo
data, an archetype whose engine card falls out of its stored lists is reported stale, an archetype of 1 %+ share
without a playbook is reported missing, and `meta-mage rules playbooks` prints the table and exits 1 on either."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from meta_mage.analytics.meta import MetaService
from meta_mage.archetypes.playbooks import (
    PLAYBOOK_FILE,
    check_playbooks,
    inclusion_of,
    playbook_for,
    playbooks_summary,
)
from meta_mage.cli import main
from meta_mage.config import DEMO_DATA_DIR, Settings
from meta_mage.storage.meta import MetaRepository
from tests.conftest import put_demo_format

RULES = DEMO_DATA_DIR / "archetypes"


@pytest.fixture()
def modern_meta(dynamodb: Any, settings: Settings) -> MetaService:
    """The demo Modern aggregates in a fresh moto table, read through the MetaService."""
    put_demo_format(settings, "Modern")
    return MetaService(MetaRepository(dynamodb.Table(settings.meta_table)), settings.min_sample)


def rules_without(tmp_path: Path, archetype: str, engine_card: str | None = None) -> Path:
    """A copy of the bundled rules whose Modern playbook lacks ``archetype`` (or, given ``engine_card``, whose
    ``archetype`` entry names that card as an engine card too)."""
    rules = tmp_path / "rules"
    shutil.copytree(RULES, rules)
    path = rules / "Formats" / "Modern" / PLAYBOOK_FILE
    entries = path.read_text(encoding="utf-8").split("[[archetype]]")
    marker = f'name = "{archetype}"'
    kept = []
    for entry in entries:
        if marker in entry and engine_card is None:
            continue
        if marker in entry:
            entry = entry.replace("engine = [", f'engine = ["{engine_card}", ', 1)
        kept.append(entry)
    path.write_text("[[archetype]]".join(kept), encoding="utf-8")
    return rules


def test_the_shipped_modern_playbooks_are_current_against_the_stored_lists(modern_meta: MetaService) -> None:
    # When the check reads the demo Modern aggregates over 60 days
    check = check_playbooks(modern_meta, RULES, "Modern", days=60)
    # Then every playbook with lists is current and no archetype of 1 %+ share lacks one
    assert check.ok, check.summary()
    assert check.decks > 1000 and not check.missing and not check.stale
    assert {s.playbook.archetype for s in check.statuses if s.lists} >= {"Boros Energy", "Amulet Titan"}
    assert check.summary().startswith(f"Modern playbooks {check.start}..{check.end}: ")
    assert check.table_lines()[0].split()[:5] == ["Archetype", "Role", "Lists", "Share", "Verdict"]


def test_the_stored_inclusion_is_the_share_of_lists_playing_the_card(modern_meta: MetaService) -> None:
    check = check_playbooks(modern_meta, RULES, "Modern", days=60)
    stats = modern_meta.repository.archetype_stats("Modern", "Boros Energy", check.start, check.end)
    inclusion = inclusion_of(stats)
    assert stats.decks > 100
    assert inclusion["guide of souls"] == 1.0  # every list
    assert 0.8 < inclusion["blood moon"] < 1.0  # main or side, counted once
    assert all(0 < share <= 1 for share in inclusion.values())


def test_an_engine_card_gone_from_the_lists_is_reported_stale(modern_meta: MetaService, tmp_path: Path) -> None:
    # Given a Modern playbook whose Boros Energy engine names a card its lists do not play
    rules = rules_without(tmp_path, "Boros Energy", engine_card="Lightning Bolt")
    book = playbook_for(rules, "Modern", "Boros Energy")
    assert book is not None and "Lightning Bolt" in book.engine
    # When the check runs
    check = check_playbooks(modern_meta, rules, "Modern", days=60)
    # Then Boros Energy is stale by that card alone and the check is not ok
    [stale] = check.stale
    assert stale.playbook.archetype == "Boros Energy" and stale.staleness.stale_cards[0][0] == "Lightning Bolt"
    assert [card for card, _ in stale.staleness.stale_cards] == ["Lightning Bolt"]
    assert not check.ok and "1 stale: Boros Energy (Lightning Bolt" in check.summary()


def test_an_archetype_without_a_playbook_is_reported_missing(
    modern_meta: MetaService, tmp_path: Path, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given the Modern playbook without Amulet Titan
    rules = rules_without(tmp_path, "Amulet Titan")
    # When the check and the CLI run over 60 days
    check = check_playbooks(modern_meta, rules, "Modern", days=60)
    [(name, share)] = check.missing
    assert name == "Amulet Titan" and 0.03 < share < 0.1
    assert "1 without one: Amulet Titan" in playbooks_summary(modern_meta, rules, days=60)
    code = main(["--rules-dir", str(rules), "rules", "playbooks", "--format", "Modern", "--days", "60"])
    # Then the table names it with "no playbook" and the command exits 1
    out = capsys.readouterr().out
    assert code == 1
    assert any(line.startswith("Amulet Titan") and "no playbook" in line for line in out.splitlines())
    assert "Boros Energy" in out and "current" in out


def test_the_cli_exits_0_when_every_playbook_is_current(
    modern_meta: MetaService, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rules", "playbooks", "--format", "Modern", "--days", "60"]) == 0
    [summary] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Modern playbooks")]
    assert "current" in summary and "stale" not in summary and "without one" not in summary
