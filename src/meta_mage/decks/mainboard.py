"""The mainboard tool: the player's core cards and flex spots by how the archetype's lists play them, popular
cards the deck lacks, and swaps that never cut a flex card a top deck's matchup keeps."""

from __future__ import annotations

from collections.abc import Callable

from meta_mage.card_rules.facts import CardFacts
from meta_mage.decks.cards import deck_colours, facts_of_detail, section_of
from meta_mage.decks.context import CoachContext, Scope
from meta_mage.decks.evidence import CORE_INCLUSION, ArchetypeEvidence, did_better
from meta_mage.decks.mana_rules import swap_breaks_mana
from meta_mage.decks.matchup import Matchup, answers, matchup_for, read_opponents
from meta_mage.errors import InvalidArgument
from meta_mage.models.cards import card_key
from meta_mage.models.decks import (
    CardDetail,
    CardUsage,
    MainboardMetadata,
    OptimizeInput,
    OptimizeMainboardOutput,
    Swap,
)
from meta_mage.models.meta import WinRate

FLEX_INCLUSION = 50.0  # a card of the player's in under this share of the lists is a flex spot
CANDIDATE_INCLUSION = 30.0  # a card in this share of the lists or more, played short, is a candidate


def _matchups(ctx: CoachContext, scope: Scope, opponents: list[str], main: list[CardDetail]) -> dict[str, Matchup]:
    found = read_opponents(ctx, scope.format, opponents, scope.window.start, scope.window.end)
    own = scope.own
    return {name: matchup_for(ctx.classifier, scope.format, them, main, own.name, own) for name, them in found.items()}


def _mark_kept(
    flex: list[CardUsage],
    mine: dict[str, CardDetail],
    matchups: dict[str, Matchup],
    bases: dict[str, WinRate],
    own: ArchetypeEvidence,
) -> None:
    """The rules every deck tool shares: a flex card that answers a top deck, or whose lists beat one, is not
    cut (the sideboard tool keeps such cards and the guides bring them in)."""
    main = list(mine.values())
    for usage in flex:
        card = mine[card_key(usage.name)]
        usage.answers_against = [opp for opp, matchup in matchups.items() if answers(card, matchup, main)]
        usage.better_against = [
            opp for opp, base in bases.items() if did_better(own.with_card(usage.name, opp, "mainboard"), base)
        ]


def _candidates(own: ArchetypeEvidence, mine: dict[str, CardDetail]) -> list[CardUsage]:
    """Cards in ``CANDIDATE_INCLUSION`` % of the lists or more that the deck plays fewer of than they average."""
    found = []
    for key, (card, row) in own.keyed("mainboard").items():
        usage = own.usage(card, row, mine[key].quantity if key in mine else 0)
        if usage.inclusion_rate >= CANDIDATE_INCLUSION and usage.your_copies < round(usage.average_copies):
            found.append(usage)
    return sorted(found, key=lambda u: (-u.inclusion_rate, u.name))


def _is_land(usage: CardUsage, mine: dict[str, CardDetail], own: ArchetypeEvidence) -> bool:
    detail = mine.get(card_key(usage.name))
    if detail and detail.type_line:
        return "Land" in detail.type_line
    return card_key(usage.name) in own.land_keys


def _swap_reason(cut: CardUsage, add: CardUsage, own: ArchetypeEvidence) -> str:
    reason = (
        f"{cut.name} is in {cut.inclusion_rate}% of {own.lists} recent {own.name} lists; "
        f"{add.name} is in {add.inclusion_rate}% (average {add.average_copies} copies)"
    )
    with_card, without = add.with_card, add.without_card
    if with_card and without and not with_card.low_sample and not without.low_sample:
        reason += (
            f"; lists with it won {with_card.win_rate}% of {with_card.wins + with_card.losses} "
            f"matches vs {without.win_rate}% without"
        )
    return reason


Lookup = Callable[[str], CardFacts | None]


def _card_lookup(ctx: CoachContext) -> Lookup:
    def lookup(name: str) -> CardFacts | None:
        card = ctx.cards.get_many([card_key(name)]).get(card_key(name))
        return CardFacts.of(card) if card is not None else None

    return lookup


def _keeps_mana(cut: CardUsage, add: CardUsage, mine: dict[str, CardDetail], lookup: Lookup) -> bool:
    """Whether a land swap keeps the deck's mana working (``MANA_RULES``); a swap of spells always does."""
    cut_card = mine.get(card_key(cut.name))
    add_facts = lookup(add.name)
    if cut_card is None or add_facts is None:
        return False
    main = list(mine.values())
    deck = [facts_of_detail(c) for c in main if not c.unknown]
    return not swap_breaks_mana(facts_of_detail(cut_card), add_facts, deck, deck_colours(main))


def _swaps(
    flex: list[CardUsage],
    candidates: list[CardUsage],
    mine: dict[str, CardDetail],
    own: ArchetypeEvidence,
    most: int,
    lookup: Lookup,
) -> list[Swap]:
    """Each flex card no top deck keeps for the next unused candidate of its kind (land for land, keeping the
    mana working), ``most`` at most."""
    swaps: list[Swap] = []
    used: set[str] = set()
    for cut in flex:
        if cut.better_against or cut.answers_against:
            continue
        land = _is_land(cut, mine, own)
        fits = (c for c in candidates if c.name not in used and _is_land(c, mine, own) == land)
        add = next((c for c in fits if not land or _keeps_mana(cut, c, mine, lookup)), None)
        if add is None:
            continue
        used.add(add.name)
        quantity = min(cut.your_copies, max(1, round(add.average_copies) - add.your_copies))
        reason = _swap_reason(cut, add, own)
        swaps.append(Swap(cut=cut.name, cut_quantity=quantity, add=add.name, add_quantity=quantity, reason=reason))
        if len(swaps) >= most:
            break
    return swaps


def optimize_mainboard(ctx: CoachContext, params: OptimizeInput) -> OptimizeMainboardOutput:
    """Core cards, flex spots, popular cards the deck lacks, and swaps with reasons."""
    scope = ctx.scope(params)
    own = scope.own
    mine = section_of(params.card_details, "mainboard")
    if not mine:
        raise InvalidArgument("card_details has no mainboard cards", field="card_details")
    yours = [own.usage(c.name, own.row("mainboard", c.name), c.quantity) for c in mine.values()]
    core = sorted((u for u in yours if u.inclusion_rate >= CORE_INCLUSION), key=lambda u: -u.inclusion_rate)
    flex = sorted((u for u in yours if u.inclusion_rate < FLEX_INCLUSION), key=lambda u: (u.inclusion_rate, u.name))
    top = scope.top(params.top_n)
    bases = {t.archetype: t.your_archetype_vs_it for t in top}
    _mark_kept(flex, mine, _matchups(ctx, scope, list(bases), list(mine.values())), bases, own)
    candidates = _candidates(own, mine)
    return OptimizeMainboardOutput(
        format=params.format,
        archetype=own.name,
        lists_compared=own.lists,
        core_cards=core,
        flex_spots=flex[: max(params.top_n, 5)],
        candidates=candidates[: max(params.top_n * 2, 10)],
        swaps=_swaps(flex, candidates, mine, own, params.top_n, _card_lookup(ctx)),
        top_matchups=top,
        metadata=MainboardMetadata(
            period=scope.window,
            min_sample=ctx.min_sample,
            core_threshold=CORE_INCLUSION,
            flex_threshold=FLEX_INCLUSION,
        ),
    )
