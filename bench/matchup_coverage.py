"""Benchmark: how many of the format's matchups the coach states, before and after shrunk estimates.

For every archetype of each format over the demo windows, the offline answer to "what is the matchup
spread of X?" is written from ``get_deck_matchup_stats`` and the cells it names are counted:

- before (the rule until issue 14): only cells with at least ``min_sample`` (20) decided matches could be
  named, at most three best and three worst; everything else was "not enough matches";
- after: every cell with a decided match is in the answer's table, with its record, interval, shrunk
  estimate and verdict, and best/worst are never empty when a cell exists.

Run: .venv/bin/python bench/matchup_coverage.py [--days 14 30]
Prints one row per format and window; exit status 1 when an answer leaves out a decided cell.
"""

from __future__ import annotations

import argparse
import sys

from rich.console import Console
from rich.table import Table

from meta_mage.agent.tasks.phrasing import spread as _spread
from meta_mage.config import Settings
from meta_mage.local.embedded import embedded_dynamodb
from meta_mage.local.seed import seed_demo
from meta_mage.models.meta import ArchetypesInput, DeckMatchupStatsInput, MatchupCell
from meta_mage.storage.dynamo import dynamodb_resource
from meta_mage.wiring import Wiring


def stated_before(cells: list[MatchupCell], min_sample: int) -> int:
    """Cells the old answer could name: three best and three worst among those with enough matches."""
    solid = [c for c in cells if c.win_rate is not None and not c.low_sample]
    return min(3, sum(c.win_rate is not None and c.win_rate > 50 for c in solid)) + min(
        3, sum(c.win_rate is not None and c.win_rate < 50 for c in solid)
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, nargs="+", default=[14, 30])
    args = parser.parse_args()
    table = Table(title="Matchups with a decided match that the coach states (one archetype's spread each)")
    for column in ("format", "days", "archetypes", "decided cells", "stated before", "stated after", "missing"):
        table.add_column(column, justify="left" if column == "format" else "right")
    missing_total = 0
    settings = Settings(model="")
    with embedded_dynamodb():
        db = dynamodb_resource(settings)
        seed_demo(settings, db)
        wiring = Wiring(settings, db)
        meta = wiring.tool_context.meta
        for info in meta.list_formats().formats:
            for days in args.days:
                names = [a.name for a in meta.archetypes(ArchetypesInput(format=info.format, days=days)).archetypes]
                decided = before = after = missing = 0
                for name in names:
                    stats = meta.deck_matchups(DeckMatchupStatsInput(format=info.format, archetype=name, days=days))
                    cells = [c for c in stats.matchups if c.win_rate is not None]
                    text = _spread(stats, None)
                    named = [c for c in cells if f"| {c.opponent} | {c.wins}-{c.losses}-{c.draws} |" in text]
                    decided += len(cells)
                    before += stated_before(stats.matchups, stats.metadata.min_sample)
                    after += len(named)
                    missing += len(cells) - len(named)
                missing_total += missing
                table.add_row(
                    info.format,
                    str(days),
                    str(len(names)),
                    str(decided),
                    f"{before} ({100 * before / decided:.0f}%)" if decided else "0",
                    f"{after} ({100 * after / decided:.0f}%)" if decided else "0",
                    str(missing),
                )
    Console(width=140).print(table)
    print("PASS: every decided matchup is stated" if not missing_total else f"FAIL: {missing_total} left out")
    return 0 if not missing_total else 1


if __name__ == "__main__":
    sys.exit(main())
