"""The deck-coaching tasks (deck review, the deck's matchups, a matchup's strategy, mainboard and sideboard
optimisation): each one's record beside its offline answer."""

from __future__ import annotations

from meta_mage.agent.render import Answer, Item, Line, compose
from meta_mage.agent.state import ConversationState, Route
from meta_mage.agent.tasks.phrasing import MATCHUPS_RANKED, dates, plain, rate, spread
from meta_mage.agent.tasks.task import Calls, Cue, FollowUp, Results, TaskSpec, answered_from
from meta_mage.agent.tools import ToolCall
from meta_mage.agent.words import OPPONENT_WORDS
from meta_mage.models.cards import card_key
from meta_mage.models.decks import (
    CardDetail,
    CardUsage,
    OptimizeMainboardOutput,
    OptimizeSideboardOutput,
    SideboardGuide,
    SideboardSlot,
    StrategyFacts,
)
from meta_mage.models.meta import DeckMatchupStatsOutput
from meta_mage.models.play_plan import PlayPlan
from meta_mage.tools.catalog.decks import (
    DECK_MATCHUPS,
    MATCHUP_STATS,
    MATCHUP_STRATEGY,
    OPTIMIZE_MAINBOARD,
    OPTIMIZE_SIDEBOARD,
)
from meta_mage.tools.rules import (
    ARCHETYPE,
    CARD_DETAILS,
    DAYS,
    DECK_OR_ARCHETYPE,
    OPPONENT,
    stats_fit,
)
from meta_mage.tools.tool import DECK_COACHING


def _deck_stats(known: ConversationState, done: Results) -> DeckMatchupStatsOutput | None:
    """This turn's matchup statistics, else those kept from an earlier turn."""
    return done.get(DeckMatchupStatsOutput) or known.matchup_stats


def deck_review(route: Route, known: ConversationState, done: Results) -> Answer:
    stats = _deck_stats(known, done)
    cards = known.card_details
    main = sum(c.quantity for c in cards if c.section == "mainboard")
    side = sum(c.quantity for c in cards if c.section == "sideboard")
    head = f"Got it: your deck is **{known.archetype}** in {known.format}"
    head += f" ({main} mainboard, {side} sideboard cards)." if cards else "."
    return Answer.of(
        head,
        spread(stats, route.opponent) if stats else Answer(),
        'I can now coach a matchup ("how do I play against X?"), suggest mainboard swaps '
        '("optimize my mainboard") or rebuild the sideboard for the top decks ("optimize my sideboard").',
    )


def deck_matchups(route: Route, known: ConversationState, done: Results) -> Answer:
    stats = _deck_stats(known, done)
    return spread(stats, route.opponent) if stats is not None else Answer()  # only an opponent this message names


def strategy(facts: StrategyFacts, route: Route, known: ConversationState) -> Answer:
    profile = facts.your_deck_profile
    lines: list[Line] = [
        f"**{plain(facts.archetype)} vs {plain(facts.opponent_archetype)}** in {facts.format}, "
        f"{dates(facts.metadata.period)}: {rate(facts.record)} from {facts.opponent_lists} opposing lists.",
        "",
        "**What they play** (share of their lists):",
    ]
    main_keys = [k for k in facts.opponent_key_cards if k.section == "mainboard"]
    side_keys = [k for k in facts.opponent_key_cards if k.section == "sideboard"]
    lines += [Item(f"{plain(k.name)} ({k.inclusion_rate:.0f}%, {_copies(k.average_copies)})") for k in main_keys]
    if side_keys:
        lines.append(
            "After sideboarding expect: " + ", ".join(f"{plain(k.name)} ({k.inclusion_rate:.0f}%)" for k in side_keys)
        )
    lines += ["", "**Your sideboard answers**:"]
    if facts.sideboard_answers:
        for a in facts.sideboard_answers:
            lines.append(Item(f"{a.quantity} {plain(a.name)}: {a.reason}"))
    elif facts.sideboard_guide is not None and facts.sideboard_guide.held_back:
        lines.append(Item("none comes in: your main deck's cards do as much here (the guide below names the closest)."))
    else:
        lines.append(Item("none of your sideboard cards lines up against their key cards."))
    if facts.sideboard_guide is not None:
        lines += ["", *_guide_lines(facts.sideboard_guide)]
    lines += [
        "",
        f"**Your deck**: {profile.mainboard_cards} mainboard cards, {profile.lands} lands, "
        f"{profile.creatures} creatures, average mana value {profile.average_mana_value}.",
    ]
    if facts.play_plan is not None:
        lines += ["", *_plan_lines(facts.play_plan)]
    lines += _unknown_lines(known)
    return compose(lines)


_ROLE_WORDS = {
    "control": "You are the control deck: they are faster, so answer their early cards and win the long game",
    "beatdown": "You are the beatdown: you are faster, so press damage before their plan takes over",
    "combo": "You are the combo deck: race their clock, and keep your interaction for the cards that can stop "
    "your combo (those come first below)",
    "against combo": "They are the combo deck: pressure them and keep interaction for the cards their combo "
    "needs; the longer the game, the more of their deck they see",
    "even": "Neither deck is clearly faster: the player who uses their mana better each turn wins",
    "ramp": "You are the ramp deck: you go over the top, so spend the early turns on mana and on surviving; "
    "you are not the control deck, the game is won when your big spells land",
}


def _plan_lines(plan: PlayPlan) -> list[Line]:
    """The plan in words: who is faster, the cards that decide games with the player's answers, what to keep."""
    speed = plan.speed
    lines: list[Line] = [
        f"**How the games go**: {_ROLE_WORDS[speed.role]} (their key spells average {speed.their_curve:g} mana, "
        f"yours {speed.your_curve:g}; their first come down on turn {speed.their_first_turn or '-'}).",
        *([f"What the roles rest on: {'; '.join(speed.rests_on)}."] if speed.rests_on else []),
        "",
        "**Their cards that decide games** (share of their lists, the turn it lands; your answers):",
    ]
    for card in plan.deciders:
        answers = (
            ", ".join(map(plain, card.your_answers[:3]))
            if card.your_answers
            else "nothing in your main deck answers it"
        )
        record = ""
        if card.record_with is not None and card.record_with.wins + card.record_with.losses:
            record = f"; their lists with it went {card.record_with.wins}-{card.record_with.losses} against you"
        turn = f"turn {card.turn}, by {plain(card.sooner_by)}" if card.sooner_by else f"turn {card.turn}"
        lines.append(Item(f"{plain(card.name)} ({card.inclusion_rate:.0f}%, {turn}): {answers}{record}"))
    lines += ["", "**Keep a seven with**:"]
    for keep in plan.keep:
        chance = f": {keep.chance:.0f}% of your opening sevens have it" if keep.chance is not None else ""
        cards = (
            f" ({', '.join(map(plain, keep.cards[:4]))}{'…' if len(keep.cards) > 4 else ''}, "
            f"{keep.copies} card{'s' * (keep.copies != 1)})"
            if keep.cards
            else ""
        )
        lines.append(Item(f"{keep.advice}{cards}{chance}"))
    return lines


def _kept_because(card: CardUsage) -> str:
    """Why a flex card is not cut: the top decks it answers by its rules text, or whose lists did better."""
    reasons = []
    if card.answers_against:
        reasons.append(f"it answers key cards of {', '.join(map(plain, card.answers_against[:3]))}")
    if card.better_against:
        reasons.append(f"its lists did better against {', '.join(map(plain, card.better_against))}")
    return f"; {' and '.join(reasons)}, so it stays" if reasons else ""


def optimize_mainboard(result: OptimizeMainboardOutput, route: Route, known: ConversationState) -> Answer:
    lines: list[Line] = [
        f"**Mainboard check for {plain(result.archetype)}** in {result.format} against "
        f"{result.lists_compared} lists from {dates(result.metadata.period)}."
    ]
    if result.swaps:
        lines += ["", "Suggested swaps:"]
        lines += [
            Item(f"cut {s.cut_quantity} {plain(s.cut)}, add {s.add_quantity} {plain(s.add)}: {s.reason}")
            for s in result.swaps
        ]
    else:
        lines.append("Your list already matches what the archetype plays; no swap is clearly better.")
    if result.flex_spots:
        flex = ", ".join(
            f"{plain(c.name)} ({c.inclusion_rate:.0f}% of lists{_kept_because(c)})" for c in result.flex_spots[:6]
        )
        lines += ["", f"Flex spots (few lists play them): {flex}."]
    return compose(lines)


def optimize_sideboard(result: OptimizeSideboardOutput, route: Route, known: ConversationState) -> Answer:
    tops = ", ".join(plain(t.archetype) for t in result.top_archetypes)
    lines: list[Line] = [
        f"**Sideboard for {plain(result.archetype)}** in {result.format} against the top decks ({tops}), from "
        f"{result.lists_compared} lists from {dates(result.metadata.period)}. The {result.total_cards} cards:",
        "",
    ]
    lines += [
        Item(
            f"{s.quantity} {plain(s.name)}: {s.reason}"
            + (f" (vs {', '.join(map(plain, s.targets))})" if s.targets else "")
        )
        for s in result.final_sideboard
    ]
    changes = _sideboard_changes(known.card_details, result.final_sideboard)
    kept = "Your sideboard stays as it is."
    lines += ["", f"Changes from your sideboard: {'; '.join(changes)}." if changes else kept]
    if result.cut_reasons:
        lines += ["", "Why these leave:"]
        lines += [Item(f"{cut.quantity} {plain(cut.name)}: {cut.why}") for cut in result.cut_reasons]
    for guide in result.guides:
        lines += ["", *_guide_lines(guide)]
    lines += _unknown_lines(known)
    return compose(lines)


def _unknown_lines(known: ConversationState) -> list[str]:
    """The cards of the player's list that are not in the card data: kept at their count, never judged."""
    unknown = [f"{c.quantity} {plain(c.name)}" for c in known.card_details if c.unknown]
    if not unknown:
        return []
    return ["", f"Not in my card data, so kept at their count and not judged: {', '.join(unknown)}."]


def _guide_lines(guide: SideboardGuide) -> list[Line]:
    """ "**Sideboarding against X**": in and out with counts and reasons, and the deck sizes after."""
    head = f"**Sideboarding against {plain(guide.opponent)}**"
    if guide.record is not None and guide.record.win_rate is not None:
        head += f" (you are {guide.record.wins}-{guide.record.losses}-{guide.record.draws}, {guide.record.verdict})"
    held = (
        "Also answers something of theirs, but no main-deck card does less here: "
        f"{', '.join(map(plain, guide.held_back))}."
        if guide.held_back
        else ""
    )
    if not guide.bring_in:
        if held:
            # never "stay with the main deck" beside cards to bring in: the two read as opposite advice
            return [
                f"{head}: no main-deck card does less here than your sideboard's answers. Each one answers as much "
                "of theirs, is a body that pressures them, or is the deck's engine, win condition or fast mana, and "
                f"nothing in their record argues against it. Your sideboard's best against them, for a card you judge "
                f"weaker yourself: {', '.join(map(plain, guide.held_back))}.",
                *_left_out_lines(guide),
            ]
        return [
            head + ": nothing in your sideboard lines up against their key cards; stay with the main deck.",
            *_left_out_lines(guide),
        ]
    lines: list[Line] = [head + ":", "In:"]
    lines += [Item(f"+{c.quantity} {plain(c.name)}" + (f": {c.why}" if c.why else "")) for c in guide.bring_in]
    if guide.shared_record:
        lines.append(f"Their record: {guide.shared_record}.")
    lines.append("Out:")
    lines += [Item(f"−{c.quantity} {plain(c.name)}: {c.why}") for c in guide.take_out]
    lines.append(f"That leaves {guide.mainboard_after} cards in the deck and {guide.sideboard_after} in the sideboard.")
    lines += [held] if held else []
    lines += _left_out_lines(guide)
    if guide.post_board:
        lines += ["Your 75 after sideboarding, to paste into MTGO or Arena:", "```", guide.post_board, "```"]
    return lines


def _left_out_lines(guide: SideboardGuide) -> list[str]:
    """The sideboard cards that stay out, grouped by why: every sideboard card is accounted for."""
    by_why: dict[str, list[str]] = {}
    for card in guide.left_out:
        by_why.setdefault(card.why, []).append(card.name)
    if not by_why:
        return []
    parts = [f"{', '.join(map(plain, names))} ({why})" for why, names in by_why.items()]
    return ["Staying in the sideboard: " + "; ".join(parts) + "."]


def _sideboard_changes(card_details: list[CardDetail], final: list[SideboardSlot]) -> list[str]:
    """Every card whose count changes, with its quantities (an extra copy is a change too)."""
    before: dict[str, tuple[str, int]] = {}
    for card in card_details:
        if card.section == "sideboard":
            name, count = before.get(card_key(card.name), (card.name, 0))
            before[card_key(card.name)] = (name, count + card.quantity)
    after = {card_key(s.name): (s.name, s.quantity) for s in final}
    changes = []
    for key in [*after, *(k for k in before if k not in after)]:
        name, old = before.get(key, (after.get(key, ("", 0))[0], 0))
        new = after.get(key, (name, 0))[1]
        if new > old:
            changes.append(f"+{new - old} {plain(name)} ({old} → {new})")
        elif new < old:
            changes.append(f"−{old - new} {plain(name)} ({old} → {new})")
    return changes


def _plan_spread(route: Route, known: ConversationState) -> Calls:
    if known.days and known.archetype and not stats_fit(known):  # a new window refetches
        return [ToolCall(DECK_MATCHUPS.name)]
    return []


_COACH = (CARD_DETAILS, ARCHETYPE, DAYS)
# How each answer is ordered and judged ("why …?" after it).
STRATEGY_RANKED = (
    "The guide reads the opponent's key cards from their lists in the window (each with its share of "
    "their lists), matches your sideboard cards to them by each card's rules text, and takes out the main-deck "
    "cards that do least in that kind of matchup; the record beside it is the matchup model's."
)
SIDEBOARD_RANKED = (
    "A sideboard card is kept when it answers a top deck's key cards by its rules text, or "
    "when lists with it beat the archetype's record against that deck (5+ decided matches each way, 3+ points); "
    "the other slots go to what the archetype's lists play most."
)
MAINBOARD_RANKED = (
    "Swaps compare your list with what the archetype's lists play (core: in 80%+ of them) "
    "and lists with a card against the archetype's lists without it (5+ decided matches each way, 3+ points)."
)

# The first task is the workflow's default.
_OPPONENT_CUE = rf"(?=.*{OPPONENT_WORDS})"  # the question names whom the deck plays

TASKS = (
    TaskSpec(
        "deck_review",
        DECK_COACHING,
        deck_review,
        (DECK_OR_ARCHETYPE,),
        planner=_plan_spread,
        how_ranked=MATCHUPS_RANKED,
    ),
    TaskSpec(
        "deck_matchups",
        DECK_COACHING,
        deck_matchups,
        (ARCHETYPE, DAYS),
        planner=_plan_spread,
        cues=(Cue(4, r"\b(matchups?|spread|good|bad|worst|best|win ?rate|how (does|do|is) my)\b"),),
        how_ranked=MATCHUPS_RANKED,
    ),
    TaskSpec(
        "strategy",
        DECK_COACHING,
        answered_from(StrategyFacts, strategy),
        (*_COACH, OPPONENT, MATCHUP_STATS),
        ((MATCHUP_STRATEGY, {}),),
        cues=(
            Cue(3, r"\b(how (should|do|can) i (play|beat|win)|strategy|game ?plan|mulligan)\b", by_opponent=True),
            # "how should I sideboard against X?": the matchup's guide, even before X can be matched to a name
            Cue(3, _OPPONENT_CUE + r"(?=.*\b(sideboard(ing)?|how (should|do|can) i)\b)"),
            # "how should I sideboard?" with no opponent: the guide, once the player names one
            Cue(3, r"\bhow (should|do|can) i sideboard\b"),
        ),
        how_ranked=STRATEGY_RANKED,
        follow_ups=(
            FollowUp(
                "a card against the guide's opponent",
                holds=lambda r, last, named: bool(r.slots.get("card")) and not r.slots["opponent"],
                task="card_question",
                keeps=("opponent",),
                example=("How should I sideboard against Boros Energy?", "and Force of Vigor?"),
            ),
        ),
    ),
    TaskSpec(
        OPTIMIZE_MAINBOARD.name,
        DECK_COACHING,
        answered_from(OptimizeMainboardOutput, optimize_mainboard),
        _COACH,
        ((OPTIMIZE_MAINBOARD, {"top_n": 5}),),
        cues=(Cue(2, r"\b(mainboard|main deck|flex|optimi[sz]e|improve|swaps?|cuts?)\b"),),
        how_ranked=MAINBOARD_RANKED,
    ),
    TaskSpec(
        OPTIMIZE_SIDEBOARD.name,
        DECK_COACHING,
        answered_from(OptimizeSideboardOutput, optimize_sideboard),
        _COACH,
        ((OPTIMIZE_SIDEBOARD, {"top_n": 5}),),
        cues=(Cue(1, r"\bsideboard(ing)?\b", unless=r"\bhow (should|do) i\b"),),
        how_ranked=SIDEBOARD_RANKED,
    ),
)


def _copies(average: float) -> str:
    """Average copies as a player reads them: "4 copies" for 3.99, "2.2 copies on average" for 2.16."""
    rounded = round(average, 1)
    if rounded == round(rounded):
        return f"{rounded:.0f} cop{'y' if rounded == 1 else 'ies'}"
    return f"{rounded:g} copies on average"
