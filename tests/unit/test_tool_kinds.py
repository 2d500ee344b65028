"""A tool kind declares what its tools share once; a tool of the kind may name its own state arguments and rules."""

from __future__ import annotations

from meta_mage.models.meta import ListFormatsInput, ListFormatsOutput
from meta_mage.tools.catalog.decks import ARCHETYPE_PAGE, CLASSIFY_DECK, COACHING, MATCHUP_STRATEGY
from meta_mage.tools.catalog.meta import FORMAT_READ, META_RANKINGS, TWO_WINDOWS, WINDOW
from meta_mage.tools.rules import DAYS, DECK_TEXT, FORMAT
from meta_mage.tools.tool import DECK_COACHING, META_RESEARCH, ToolKind


def test_a_tool_of_a_kind_has_what_the_kind_shares_unless_it_names_its_own() -> None:
    # Given a kind with workflows, rules, state-owned arguments and a CPU cost
    kind = ToolKind((META_RESEARCH,), (FORMAT, DAYS), {"format": "format"}, cpu_heavy=True)
    # When one tool takes the kind's and another names its own arguments and rules
    listing = (ListFormatsInput, ListFormatsOutput, lambda c, p: c.meta.list_formats(), str)
    shared = kind.tool("a", "A", *listing)
    own = kind.tool("b", "B", *listing, from_state={}, requires=())
    # Then the first has the kind's, the second its own, and both the kind's workflows and cost
    assert (shared.workflows, shared.requires, dict(shared.from_state)) == (
        (META_RESEARCH,),
        (FORMAT, DAYS),
        {"format": "format"},
    )
    assert (own.requires, dict(own.from_state)) == ((), {})
    assert shared.cpu_heavy and own.cpu_heavy and own.workflows == (META_RESEARCH,)


def test_the_catalog_kinds() -> None:
    assert ToolKind((META_RESEARCH,), (FORMAT, DAYS), WINDOW) == FORMAT_READ
    assert ToolKind((DECK_COACHING,), cpu_heavy=True) == COACHING
    assert META_RANKINGS.from_state == TWO_WINDOWS and META_RANKINGS.requires == (FORMAT, DAYS)
    assert ARCHETYPE_PAGE.workflows == (META_RESEARCH,) and ARCHETYPE_PAGE.from_state == WINDOW
    assert CLASSIFY_DECK.requires == (FORMAT, DECK_TEXT) and CLASSIFY_DECK.cpu_heavy
    assert MATCHUP_STRATEGY.cpu_heavy and MATCHUP_STRATEGY.workflows == (DECK_COACHING,)
