"""The matchup strategy tool's facts: the record against one opponent, its key cards, the player's sideboard
cards that answer them (by the rules, or by their lists' record) and the sideboard guide for the matchup."""

from __future__ import annotations

from pydantic import ValidationError

from meta_mage.card_rules.answers import role_labels
from meta_mage.card_rules.facts import CardFacts
from meta_mage.decks.cards import facts_of_detail, facts_of_key, is_creature, is_land, ramps, section_of
from meta_mage.decks.context import CoachContext
from meta_mage.decks.decision import decide
from meta_mage.decks.evidence import ArchetypeEvidence, did_better
from meta_mage.decks.matchup import Matchup, Opponent, answers, group_ways, matchup_for, read_opponent
from meta_mage.decks.play_plan import FAST_MANA_SHARE, Knowledge, TheirCard, YourCard, play_plan
from meta_mage.errors import InvalidArgument
from meta_mage.models.cards import card_key
from meta_mage.models.decks import (
    CardDetail,
    DeckProfile,
    SideboardAnswer,
    StrategyFacts,
    StrategyInput,
    StrategyMetadata,
)
from meta_mage.models.json import JsonObject
from meta_mage.models.meta import Window, WinRate
from meta_mage.models.play_plan import PlayPlan


def _stats_period(stats: JsonObject) -> Window | None:
    """The window of a get_deck_matchup_stats output (``metadata.period``), or None when it has none."""
    metadata = stats.get("metadata")
    try:
        return Window.model_validate(metadata.get("period") if isinstance(metadata, dict) else None)
    except ValidationError:
        return None


def _cell(stats: JsonObject, opponent: str) -> JsonObject | None:
    """The matchup row of ``stats`` against ``opponent`` (its name in any case), or None."""
    rows = stats.get("matchups", [])
    return next((m for m in rows if str(m.get("opponent", "")).lower() == opponent.lower()), None)


def _answer(
    card: CardDetail,
    matchup: Matchup,
    main: list[CardDetail],
    own: ArchetypeEvidence,
    opponent: str,
    base: WinRate | None,
) -> SideboardAnswer | None:
    """A sideboard card as an answer to ``opponent``: what it answers by the rules and its lists' record against
    them; None when it answers nothing and its lists did not do better."""
    how = answers(card, matchup, main)
    with_vs = own.with_card(card.name, opponent)
    if not how and not did_better(with_vs, base):
        return None
    reason = group_ways(how)
    if with_vs is not None:
        reason += ("; " if reason else "") + (
            f"{own.name} lists with it went {with_vs.wins}-{with_vs.losses} against {opponent}"
        )
    return SideboardAnswer(
        name=card.name,
        quantity=card.quantity,
        answers=list(how)[:6],
        reason=reason,
        roles=role_labels(facts_of_detail(card)),
        with_card_vs_opponent=with_vs,
    )


def deck_profile(main: list[CardDetail]) -> DeckProfile:
    """The player's main deck in numbers: cards, lands, creatures and average nonland mana value."""
    spells = [c for c in main if not is_land(c)]
    return DeckProfile(
        mainboard_cards=sum(c.quantity for c in main),
        lands=sum(c.quantity for c in main if is_land(c)),
        creatures=sum(c.quantity for c in main if is_creature(c)),
        average_mana_value=round(
            sum((c.cmc or 0) * c.quantity for c in spells) / max(1, sum(c.quantity for c in spells)), 2
        ),
    )


def _own_record(them: Opponent, card: str, archetype: str, overall: WinRate | None) -> WinRate | None:
    """Their lists with ``card`` against the archetype, when that record is the card's own (not the same as
    their overall record against it: every list that met it played the card)."""
    rate = them.evidence.with_card(card, archetype, "mainboard")
    if rate is None or (overall is not None and (rate.wins, rate.losses) == (overall.losses, overall.wins)):
        return None
    return rate


def plan_for(
    archetype: str,
    them: Opponent,
    matchup: Matchup,
    main: list[CardDetail],
    overall: WinRate | None,
    strategies: tuple[str, str] | None = None,
) -> PlayPlan:
    """How to play the matchup: their main-deck key cards (with their lists' own record against the archetype)
    and the player's known main-deck cards, answers read once per card. ``overall``: the archetype's record
    against them."""
    theirs = [
        TheirCard(
            facts_of_key(k),
            k.inclusion_rate,
            k.inclusion_rate / 100 * k.average_copies,
            _own_record(them, k.name, archetype, overall),
        )
        for k in them.key_cards
        if k.section == "mainboard"
    ]
    known = [c for c in main if not c.unknown]
    ways = {c.name: answers(c, matchup, main) for c in known}
    yours = [YourCard(facts_of_detail(c), c.quantity) for c in known]
    knowledge = plan_knowledge(matchup, theirs)
    return play_plan(
        theirs, yours, lambda mine, their: ways.get(mine.name, {}).get(their.name, ""), strategies, knowledge
    )


def plan_knowledge(matchup: Matchup, theirs: list[TheirCard]) -> Knowledge:
    """What the plan knows of both decks: the hosers the player's playbook fears, their fast mana that most of
    their lists play, and what each deck's role rests on."""
    known = [k for k in (matchup.yours, matchup.theirs) if k is not None]
    fast_names = {card_key(n) for n in matchup.theirs.fast_mana} if matchup.theirs is not None else set()
    fast = tuple(
        t.facts.name
        for t in sorted(theirs, key=lambda t: -t.inclusion_rate)
        if card_key(t.facts.name) in fast_names and t.inclusion_rate >= FAST_MANA_SHARE and _makes_mana_early(t.facts)
    )
    fears = frozenset(matchup.yours.fears) if matchup.yours is not None else frozenset()
    return Knowledge(fears, fast, tuple(k.rests_on for k in known))


def _makes_mana_early(card: CardFacts) -> bool:
    """A land that taps for more, or a nonland card that makes mana or puts lands into play."""
    return card.taps_for_more if card.is_land else ramps(card)


def _strategies(ctx: CoachContext, fmt: str, archetype: str, matchup: Matchup) -> tuple[str, str]:
    """The player's archetype's declared strategy and the opponent's ("unknown" where none is declared)."""
    own = matchup.own_strategy if matchup.yours is not None else ctx.classifier.strategy_of(fmt, archetype)
    return own, matchup.strategy


def matchup_facts(ctx: CoachContext, params: StrategyInput) -> StrategyFacts:
    """Record, the opponent's key cards and the user's sideboard answers to them."""
    stats_in = params.matchup_stats
    fmt = params.format or stats_in.get("format")
    period = _stats_period(stats_in)
    if not fmt or period is None or not period.start or not period.end:
        raise InvalidArgument(
            "matchup_stats must be the output of get_deck_matchup_stats (format and metadata.period)",
            field="matchup_stats",
        )
    cell = _cell(stats_in, params.opponent_archetype)
    record_vs = WinRate.model_validate(cell) if cell else None
    opponent = cell["opponent"] if cell else params.opponent_archetype
    archetype = stats_in.get("archetype") or params.archetype
    them = read_opponent(ctx, fmt, opponent, period.start, period.end)
    own = ctx.evidence(fmt, archetype, period.start, period.end)
    side = list(section_of(params.card_details, "sideboard").values())
    main = list(section_of(params.card_details, "mainboard").values())
    matchup = matchup_for(ctx.classifier, fmt, them, main, archetype, own)
    guide = decide(ctx.classifier, fmt, own, record_vs, params.card_details, matchup, opponent).guide
    brought = {c.name for c in guide.bring_in}  # one decision per card and matchup: the guide's
    found = [_answer(card, matchup, main, own, opponent, record_vs) for card in side if card.name in brought]
    return StrategyFacts(
        format=fmt,
        archetype=archetype,
        opponent_archetype=opponent,
        record=record_vs,
        opponent_lists=them.lists,
        opponent_key_cards=them.key_cards,
        sideboard_answers=[a for a in found if a is not None],
        sideboard_guide=guide,
        play_plan=plan_for(archetype, them, matchup, main, record_vs, _strategies(ctx, fmt, archetype, matchup)),
        your_deck_profile=deck_profile(main),
        metadata=StrategyMetadata(period=period),
    )
