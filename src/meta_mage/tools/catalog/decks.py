"""The tools about one deck: reading and classifying a pasted list, an archetype's matchup spread, coaching a
matchup, and optimising the mainboard and the sideboard."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from meta_mage.models.archetype_page import ArchetypePageInput, ArchetypePageOutput
from meta_mage.models.decks import (
    CardEvidenceInput,
    CardEvidenceOutput,
    ClassifyDeckInput,
    ClassifyDeckOutput,
    EnrichDeckInput,
    EnrichedDeck,
    OptimizeInput,
    OptimizeMainboardOutput,
    OptimizeSideboardOutput,
    StrategyFacts,
    StrategyInput,
)
from meta_mage.models.meta import DeckMatchupStatsInput, DeckMatchupStatsOutput, WinRate
from meta_mage.tools.catalog.charts import spread_chart
from meta_mage.tools.catalog.meta import FORMAT_READ, WINDOW
from meta_mage.tools.rules import ARCHETYPE, CARD_DETAILS, DAYS, DECK_TEXT, FORMAT, OPPONENT, Rule, stats_fit
from meta_mage.tools.tool import DECK_COACHING, META_RESEARCH, InWorkflow, R, Tool, ToolKind

if TYPE_CHECKING:
    from meta_mage.decks.coach import DeckCoach
    from meta_mage.tools.context import ToolContext


def _enrich(context: ToolContext, params: EnrichDeckInput) -> EnrichedDeck:
    from meta_mage.decks.enrich import enrich_deck  # deck tools' code loads when a deck tool runs

    return enrich_deck(params.deck, context.cards)


def _rate(block: WinRate) -> str:
    if block.win_rate is None:
        return "no decided matches"
    return f"{block.win_rate:.1f}% over {block.wins + block.losses} matches"


def _deck_summary(result: EnrichedDeck) -> str:
    counts = result.counts
    corrected = "".join(f"; read {typed!r} as {real!r}" for typed, real in result.corrected.items())
    return (
        f"{counts['mainboard']} mainboard and {counts['sideboard']} sideboard cards, "
        f"{len(result.unresolved)} names not found{corrected}"
    )


def _strategy_summary(result: StrategyFacts) -> str:
    record = _rate(result.record) if result.record is not None else "no decided matches"
    return (
        f"vs {result.opponent_archetype}: {record}, "
        f"{len(result.opponent_key_cards)} key cards, {len(result.sideboard_answers)} sideboard answers"
    )


_DECK_ARGS = {"format": "format", "deck": "deck_text"}
_COACHING = {**WINDOW, "archetype": "archetype", "card_details": "card_details"}

ENRICHED_DECK = Tool(
    "get_enriched_deck",
    "Parse a pasted decklist (MTGO .txt, Arena export, 'Sideboard' / '// Sideboard' / "
    "'SB:' markers) and enrich every card with mana cost, mana value, type line, colours, "
    "colour identity and rules text. Reports misspelled names it corrected and names it "
    "could not resolve, with suggestions.",
    EnrichDeckInput,
    EnrichedDeck,
    _enrich,
    cpu_heavy=True,
    workflows=(DECK_COACHING,),
    summary=_deck_summary,
    from_state={"deck": "deck_text"},
    requires=(DECK_TEXT,),
    writes=lambda r: {"card_details": [c.model_dump(mode="json") for c in r.card_details]} if r.card_details else {},
    thinking="Reading your decklist card by card first.",
)


COACHING = ToolKind((DECK_COACHING,), cpu_heavy=True)  # the deck coach's tools: they read and match cards

CLASSIFY_DECK = COACHING.tool(
    "classify_deck",
    "Classify a pasted decklist into the format's archetype with the same rules used for "
    "tournament decks. Suggest the result to the user and ask them to confirm.",
    ClassifyDeckInput,
    ClassifyDeckOutput,
    lambda c, p: c.coach.classify(p),
    lambda r: f"looks like {r.archetype} ({r.matched_by})",
    from_state=_DECK_ARGS,
    requires=(FORMAT, DECK_TEXT),
    writes=lambda r: {"suggested_archetype": r.archetype} if r.matched_by != "unknown" else {},
    thinking="Matching your list against the archetype rules.",
)

# One archetype's spread is a meta question ("how does Boros Energy do against the field?", the model names
# the archetype) and the start of deck coaching (the user's archetype, kept in the state).
DECK_MATCHUPS = Tool(
    "get_deck_matchup_stats",
    "Get matchup statistics for a specific archetype against the field: overall record, "
    "and win rate against each opposing archetype with match counts, 95% intervals, a shrunk "
    "estimate to rank on (the record plus 10 matches at 50%) and a verdict in words (favoured, "
    "unfavoured, too close to call, too few matches to call).",
    DeckMatchupStatsInput,
    DeckMatchupStatsOutput,
    lambda c, p: c.meta.deck_matchups(p),
    workflows=(META_RESEARCH, DECK_COACHING),
    summary=lambda r: f"{r.archetype}: {_rate(r.overall)}, {len(r.matchups)} opponents",
    from_state=WINDOW,
    requires=(FORMAT, DAYS),
    thinking="Fetching your archetype's matchup statistics before coaching the matchup.",
    chart=spread_chart,
    only_in={
        DECK_COACHING: InWorkflow(
            from_state={"archetype": "archetype"},
            requires=(ARCHETYPE,),
            writes=lambda r: {"matchup_stats": r.model_dump(mode="json"), "archetype": r.archetype},
        )
    },
)

# Coaching a matchup needs the deck's statistics: the guard fetches them with DECK_MATCHUPS instead of asking.
MATCHUP_STATS = Rule(
    "archetype",
    stats_fit,
    "not run yet: your deck's matchup statistics come first",
    fetch=DECK_MATCHUPS.name,
    fetch_failed="I could not get matchup statistics for your deck: {error}",
)

MATCHUP_STRATEGY = COACHING.tool(
    "generate_deck_matchup_strategy",
    "Gather the facts for coaching a specific matchup given the user's deck: the record "
    "against the opponent, the opponent's key cards by inclusion rate (with rules text), "
    "and which of the user's sideboard cards answer them. Needs card_details from "
    "get_enriched_deck and matchup_stats from get_deck_matchup_stats.",
    StrategyInput,
    StrategyFacts,
    lambda c, p: c.coach.matchup_facts(p),
    _strategy_summary,
    from_state={
        "format": "format",
        "archetype": "archetype",
        "opponent_archetype": "opponent_archetype",
        "card_details": "card_details",
        "matchup_stats": "matchup_stats",
    },
    requires=(FORMAT, CARD_DETAILS, ARCHETYPE, OPPONENT, MATCHUP_STATS),
)


def _card_summary(result: CardEvidenceOutput) -> str:
    against = f" against {result.opponent}: answers {len(result.answers)} key cards" if result.opponent else ""
    return f"{result.card}{against}; {len(result.records)} records with vs without it"


# A card question is a meta question ("is Fatal Push good against Boros Energy?") and a coaching one (with the
# player's archetype, its own lists are compared).
CARD_EVIDENCE = Tool(
    "get_card_evidence",
    "Evidence about one card in a format: its roles by its rules text, which of an opponent archetype's key "
    "cards it answers (or, without an opponent, which of the top 5 decks' key cards), and for the most played "
    "archetypes (or the player's archetype) the record of their lists with the card against their lists "
    "without it (against the opponent when given), with counts, 95% intervals, shrunk estimates and a verdict; "
    "also how many of the matches against the opponent were played by lists with it. The card name may be "
    "misspelt or short (Phlage).",
    CardEvidenceInput,
    CardEvidenceOutput,
    lambda c, p: c.coach.card_evidence(p),
    workflows=(META_RESEARCH, DECK_COACHING),
    summary=_card_summary,
    from_state=WINDOW,
    requires=(FORMAT, DAYS),
    thinking="Reading the card's rules text against their key cards, then the records of lists with and without it.",
)


def _optimiser(
    name: str,
    description: str,
    output: type[R],
    run: Callable[[DeckCoach, OptimizeInput], R],
    summary: Callable[[R], str],
) -> Tool[R, OptimizeInput]:
    """An optimiser: the user's cards against the archetype's tournament lists over the window."""
    return COACHING.tool(
        name,
        description,
        OptimizeInput,
        output,
        lambda c, p: run(c.coach, p),
        summary,
        from_state=_COACHING,
        requires=(FORMAT, DAYS, CARD_DETAILS, ARCHETYPE),
    )


OPTIMIZE_MAINBOARD = _optimiser(
    "optimize_mainboard",
    "Optimize a deck's mainboard against the archetype's recent tournament lists: core "
    "cards, flex spots (cards few lists play), popular cards the deck lacks, and suggested "
    "swaps with reasons (inclusion rates, copies, win rate with vs without where the "
    "sample allows). Needs card_details from get_enriched_deck.",
    OptimizeMainboardOutput,
    lambda coach, p: coach.optimize_mainboard(p),
    lambda r: f"{r.lists_compared} lists compared, {len(r.swaps)} swaps suggested",
)

OPTIMIZE_SIDEBOARD = _optimiser(
    "optimize_sideboard",
    "Optimize a deck's sideboard to answer the top N archetypes of the meta: a final "
    "sideboard of exactly 15 cards with reasons, what to add and what to cut. Needs "
    "card_details from get_enriched_deck.",
    OptimizeSideboardOutput,
    lambda coach, p: coach.optimize_sideboard(p),
    lambda r: f"{r.total_cards}-card sideboard: {len(r.adds)} adds, {len(r.cuts)} cuts",
)


def _page(context: ToolContext, params: ArchetypePageInput) -> ArchetypePageOutput:
    from meta_mage.decks.archetype_page import archetype_page  # deck tools' code loads when a deck tool runs

    rules_dir = context.coach.classifier.rules_dir  # the playbooks sit beside the archetype rules
    return archetype_page(context.meta, params, rules_dir, context.cards)


def _page_summary(result: ArchetypePageOutput) -> str:
    best = result.best_finish
    finish = f"; best finish {best.placing} at {best.event} ({best.date})" if best else ""
    return f"{result.archetype}: aggregate of {result.aggregate.lists} lists, {_rate(result.spread.overall)}{finish}"


# "Tell me about Boros Energy": the deck's page, a meta question (the model names the archetype).
ARCHETYPE_PAGE = FORMAT_READ.tool(
    "get_archetype_page",
    "One archetype's page over a window: its stock list (Frank Karsten's aggregate of the window's lists: main deck "
    "and sideboard, each card with its inclusion, average copies and flex copies), its best-finishing list (player, "
    "event, date, placing), its playbook when one is written, its record with 95% interval and its favoured and "
    "unfavoured matchups by the matchup model's verdict, and both lists as MTGO / Arena import text.",
    ArchetypePageInput,
    ArchetypePageOutput,
    _page,
    _page_summary,
    thinking="Aggregating the archetype's lists of the window into its stock list.",
)

TOOLS = (
    ENRICHED_DECK,
    CLASSIFY_DECK,
    DECK_MATCHUPS,
    MATCHUP_STRATEGY,
    OPTIMIZE_MAINBOARD,
    OPTIMIZE_SIDEBOARD,
    CARD_EVIDENCE,
    ARCHETYPE_PAGE,
)
