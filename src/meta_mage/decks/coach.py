"""Data-driven deck coaching: compare a player's list with the archetype's recent lists."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from meta_mage.analytics.meta import MetaService, record, window
from meta_mage.analytics.stats import FEW_MATCHES
from meta_mage.archetypes.classifier import ArchetypeClassifier
from meta_mage.card_rules.answers import answered_by, role_labels
from meta_mage.card_rules.facts import CardFacts
from meta_mage.card_rules.reader import roles_of
from meta_mage.decks.enrich import card_detail
from meta_mage.decks.names import closest_names
from meta_mage.decks.parse import parse_deck_text
from meta_mage.errors import InvalidArgument, NotFound
from meta_mage.models.aggregates import merge
from meta_mage.models.cards import Card, card_key, mana_colors
from meta_mage.models.decks import (
    AnsweredCard,
    CardDetail,
    CardEvidenceInput,
    CardEvidenceOutput,
    CardRecord,
    CardUsage,
    ClassifyDeckInput,
    ClassifyDeckOutput,
    GuideCard,
    KeyCard,
    MainboardMetadata,
    OptimizeInput,
    OptimizeMainboardOutput,
    OptimizeSideboardOutput,
    SideboardAnswer,
    SideboardCut,
    SideboardGuide,
    SideboardMetadata,
    SideboardSlot,
    StrategyFacts,
    StrategyInput,
    StrategyMetadata,
    Swap,
)
from meta_mage.models.meta import Window, WinRate
from meta_mage.storage.cards import CardsRepository

SIDEBOARD_SIZE = 15
CARD_ARCHETYPES = 15  # the most played archetypes whose lists with and without a card are compared (a Query each)

CORE_INCLUSION = 80.0
FLEX_INCLUSION = 50.0
CANDIDATE_INCLUSION = 30.0


KEY_INCLUSION = 40.0  # an opponent's card in at least this share of its lists is a key card
GUIDE_MAX_IN = 7  # cards brought in against one opponent, at most
GUIDE_MAX_TRIMS = 3  # four-ofs cut down to three to make room, at most
ENGINE_INCLUSION = 90.0  # an engine piece: in this share of the archetype's lists or more...
ENGINE_COPIES = 3.0  # ...at this many copies or more, and not interaction: never out on the rules alone
CORE_GUARD = 90.0  # a card in this share of the archetype's lists (or named by its rule) goes out only on evidence
WORTH_CAP = 3.0  # the most a card's worth in a matchup counts, however many of their cards it reaches
WEAK_BY = 2.0  # an answer spell makes room for a sideboard card worth this many times more in the matchup
FAST_DECK = 2.5  # an opponent whose key spells average under this mana value is fast
HATE_KINDS = {"graveyard", "spell_limit", "ability", "land"}  # what a noncreature hate permanent does
COLOUR_LETTERS = {"white": "W", "blue": "U", "black": "B", "red": "R", "green": "G"}
_CHEAPER_VS_COLOUR = re.compile(r"costs? \{(\d+)\} less to cast if it targets an? (white|blue|black|red|green)")
BETTER_BY = 3.0  # points of shrunk win rate by which lists with a card must beat the archetype's own


def without_card(with_card: WinRate, base: WinRate | None) -> WinRate | None:
    """The archetype's record against an opponent in its lists without the card: its whole record there
    (``base``) minus the lists with it."""
    if base is None:
        return None
    wins, losses = base.wins - with_card.wins, base.losses - with_card.losses
    return record(wins, losses, 0, min_sample=20) if wins >= 0 and losses >= 0 else None  # the flag is unused here


def evidence_gap(with_card: WinRate | None, base: WinRate | None) -> float | None:
    """Shrunk win rate with the card minus without it, against one opponent; None unless both sides have
    ``FEW_MATCHES`` decided matches (a card in every list has nothing to be compared with)."""
    if with_card is None or with_card.estimate is None or with_card.wins + with_card.losses < FEW_MATCHES:
        return None
    without = without_card(with_card, base)
    if without is None or without.estimate is None or without.wins + without.losses < FEW_MATCHES:
        return None
    return with_card.estimate - without.estimate


def did_better(with_card: WinRate | None, base: WinRate | None) -> bool:
    """Whether the archetype's lists with a card did better against an opponent than its lists without
    it: 5+ decided matches on each side and a shrunk estimate ``BETTER_BY`` points higher. The one rule
    every deck tool uses, so no answer cuts a card another calls a winner."""
    gap = evidence_gap(with_card, base)
    return gap is not None and gap >= BETTER_BY


def did_worse(with_card: WinRate | None, base: WinRate | None) -> bool:
    """The mirror of ``did_better``: the lists with the card did ``BETTER_BY`` points worse."""
    gap = evidence_gap(with_card, base)
    return gap is not None and gap <= -BETTER_BY


def gap_words(gap: float | None) -> str:
    """``evidence_gap`` in words, by the rule ``did_better`` and ``did_worse`` use."""
    if gap is None:
        return f"too few matches to compare (under {FEW_MATCHES} decided with or without it)"
    if gap >= BETTER_BY:
        return "lists with it did better"
    return "lists with it did worse" if gap <= -BETTER_BY else "no clear difference"


def own_creatures_from(main: list[CardDetail]) -> float | None:
    """The lowest mana value of the deck's creatures when it plays 12 or more of them, else None."""
    creatures = [c for c in main if "Creature" in (c.type_line or "")]
    if sum(c.quantity for c in creatures) < 12:
        return None
    return min(_facts_of_detail(c).mana_value for c in creatures)


def deck_colours(main: list[CardDetail]) -> set[str]:
    """The colours a deck spends: those its nonland spells' mana costs name (a Devoid spell's too)."""
    return {c for card in main if "Land" not in (card.type_line or "") for c in mana_colors(card.mana_cost)}


def group_ways(how: dict[str, str], limit: int = 3) -> str:
    """ "exiles it: Phlage, Titan of Fire's Fury / Ragavan, Nimble Pilferer; turns it into a basic Mountain:
    Arena of Glory / Arid Mesa and 8 more" (card names hold commas, so they are parted by slashes)."""
    by_way: dict[str, list[str]] = {}
    for target, way in how.items():
        by_way.setdefault(way, []).append(target)
    parts = []
    for way, names in by_way.items():
        more = f" and {len(names) - limit} more" if len(names) > limit else ""
        parts.append(f"{way}: {' / '.join(names[:limit])}{more}")
    return "; ".join(parts)


def _facts_of_detail(card: CardDetail) -> CardFacts:
    return CardFacts(
        card.name, card.type_line or "", card.oracle_text or "", card.mana_cost, cmc=card.cmc, colors=tuple(card.colors)
    )


def _facts_of_key(card: KeyCard) -> CardFacts:
    return CardFacts(
        card.name,
        card.type_line or "",
        card.oracle_text or "",
        card.mana_cost,
        card.toughness,
        card.power,
        loyalty=card.loyalty,
        colors=tuple(card.colors) if card.colors is not None else None,
    )


def _worth(
    card: CardDetail, how: dict[str, str], targets: list[CardFacts], weights: dict[str, float]
) -> tuple[float, str]:
    """What a card is worth in a matchup: each key card it answers, weighted by the share of their lists that
    play it (their key lands count as one card together; ``WORTH_CAP`` at most, as one card answers one
    threat at a time); halved when its cost reduction needs a colour none of their key cards has (Mystical Dispute
    against a deck without blue), with the words that say so."""
    lands = {t.name for t in targets if t.is_land}
    spells = sum(weights.get(name, 0.5) for name in how if name not in lands)
    land_hate = min(1.0, sum(weights.get(name, 0.5) for name in how if name in lands))  # their mana base: one card
    worth = min(WORTH_CAP, spells + land_hate)
    cheaper = re.search(
        r"costs? \{(\d+)\} less to cast if it targets an? (white|blue|black|red|green)", card.oracle_text or ""
    )
    if cheaper and worth:
        colour = COLOUR_LETTERS[cheaper.group(2)]
        if not any(colour in t.colours for t in targets if t.name in how):
            return worth / 2, f" (full cost here: none of theirs is {cheaper.group(2)})"
    return worth, ""


def _answer_kinds(card: CardFacts) -> set[str]:
    """The kinds of the card's roles that answer something of theirs (life gain and protection do not)."""
    kinds: set[str] = {r.kind for r in roles_of(card)}
    return kinds - {"lifegain", "protection"}


def _weights(key_cards: list[KeyCard]) -> dict[str, float]:
    """How much answering each of an opponent's key mainboard cards is worth: the share of its lists playing it."""
    return {k.name: k.inclusion_rate / 100 for k in key_cards if k.section == "mainboard"}


_MOON = re.compile(r"nonbasic lands are (mountains|islands|plains|swamps|forests)", re.I)
_BASIC_COLOUR = {"mountains": "R", "islands": "U", "plains": "W", "swamps": "B", "forests": "G"}
_CHEAPER = re.compile(r"\b(?:delve|evoke|affinity for|warp|convoke|improvise|emerge|costs? \{\d+\} less)\b", re.I)
_FACE = re.compile(r"damage to (?:any target|target player|each opponent|target opponent)", re.I)
_DISCARDS_OWN = re.compile(r"\bdiscard (?:up to )?(?:a|one|two|three|x|that many)? ?cards?\b", re.I)
_TRICK = re.compile(r"target creature(?: you control)? gets \+\d+/\+\d+", re.I)  # a pump spell, a combat trick
_TARGETED = re.compile(
    r"spell that targets|becomes the target of a spell", re.I
)  # heroic, valiant: tricks are the engine
_CARD_FLOW = re.compile(r"\bdraws? (?:a|two|three|x|that many)? ?cards?\b|look at the top|exile the top", re.I)


@dataclass(frozen=True)
class Matchup:
    """The kind of matchup a guide is for: the opponent's declared strategy, whether it is fast (an aggro or
    tempo deck; without a strategy, one whose key spells average under ``FAST_DECK`` mana), what its key cards
    are and weigh, and the player's own curve (the deck's average nonland mana value)."""

    strategy: str
    targets: list[CardFacts]
    weights: dict[str, float]
    own_curve: float
    cheats_in: bool = False  # the player's deck puts creatures onto the battlefield without casting them
    tricks_matter: bool = False  # the player's creatures trigger when targeted (heroic, valiant)

    @property
    def curve(self) -> float:
        spells = [t.mana_value for t in self.targets if not t.is_land]
        return sum(spells) / len(spells) if spells else 0.0

    @property
    def fast(self) -> bool:
        if self.strategy != "unknown":
            return self.strategy in ("aggro", "tempo")
        return 0 < self.curve < FAST_DECK

    def described(self) -> str:
        kind = "" if self.strategy == "unknown" else f"{self.strategy} "
        return f"a {'fast ' if self.fast else ''}{kind}deck (key spells average {self.curve:.1f} mana)"

    def slow_here(self, card: CardFacts) -> str:
        """Why a card that answers nothing here is among the weakest in this kind of matchup, or "": a card-draw
        or card-selection spell of 2+ mana that leaves the board alone against a fast deck (not one cheapened by
        affinity); a sorcery-speed card two or more mana above the deck's own curve (and 4+) against combo; a
        combat trick (a pump spell that answers nothing) against combo, unless the deck's creatures trigger on
        being targeted; life gain that moves no cards (not a loot like Faithful Mending) against a deck that is
        not fast."""
        if card.is_land:
            return ""
        spell = bool(card.types & {"instant", "sorcery"}) and "affinity for" not in card.text.lower()
        if (
            self.fast
            and spell
            and "create" not in card.text.lower()
            and card.mana_value >= 2
            and _CARD_FLOW.search(card.text)
        ):
            return f"card advantage that leaves the board alone, slow against {self.described()}"
        late = card.mana_value >= max(4.0, self.own_curve + 2) and not _CHEAPER.search(card.text)
        if self.cheats_in and "creature" in card.types:  # a reanimation target is not cast
            late = False
        if self.strategy == "combo" and late and not (card.has_flash or "instant" in card.types):
            return (
                f"{card.mana_value:g} mana at sorcery speed (the deck averages {self.own_curve:.1f}), "
                f"late against {self.described()}"
            )
        roles = roles_of(card)
        if self.strategy == "combo" and spell and not roles and _TRICK.search(card.text) and not self.tricks_matter:
            return f"a combat trick, the least of the deck against {self.described()}: their game is not in combat"
        body = bool(card.types & {"creature", "planeswalker"})
        moves_cards = _CARD_FLOW.search(card.text) or _DISCARDS_OWN.search(card.text)  # Faithful Mending loots
        if not self.fast and not body and not moves_cards and roles and all(r.kind == "lifegain" for r in roles):
            return f"life gain does little against {self.described()}"
        return ""

    def tie_rule(self) -> Callable[[CardDetail], tuple[float, ...]]:
        """How a guide orders cards that are otherwise equal to take out: against a fast deck the most
        expensive first, it comes down too late; against a slower one the cheapest first, it trades worst
        with their bigger cards; then the fewer copies first."""
        sign = -1 if self.fast else 1

        def order(card: CardDetail) -> tuple[float, ...]:
            return (sign * _facts_of_detail(card).mana_value, card.quantity)

        return order

    def answer_order(self, card: CardFacts) -> int:
        """Among cards worth the same here, which come in first: against a fast deck answers to what is on the
        board (removal, sweepers); against combo, what stops a spell before it resolves (counters, discard,
        graveyard hate, locks); 1 for the rest."""
        kinds = {r.kind for r in roles_of(card)}
        if self.fast:
            return 0 if kinds & {"removal", "sweeper"} else 1
        if self.strategy == "combo":
            return 0 if kinds & {"counter", "discard", "graveyard", "spell_limit", "ability"} else 1
        return 1

    def moon_misses(self, card: CardFacts) -> bool:
        """A Blood Moon against a deck whose key spells can all be cast with the basic type's colour alone (a
        mono-red deck whose nonbasics make red anyway: its hybrid {R/G} Manamorphose too)."""
        found = _MOON.search(card.text)
        if not found:
            return False
        colour = _BASIC_COLOUR[found.group(1).lower()]
        return all(t.castable_with({colour}) for t in self.targets if not t.is_land)

    @staticmethod
    def land_plan(land: CardFacts) -> bool:
        """A land whose abilities the deck's plan uses beyond its mana (Urza's Saga, a manland), which a Moon
        takes away even when its colour is not needed; a fetchland only finds a land of the needed colour."""
        return land.triggered or "saga" in land.subtypes or (land.activated and not land.fetchland)


def _pct(part: int, whole: int) -> float:
    return round(100 * part / whole, 1) if whole else 0.0


def _stats_period(stats: dict[str, Any]) -> Window | None:
    """The window of a get_deck_matchup_stats output (``metadata.period``), or None when it has none."""
    metadata = stats.get("metadata")
    try:
        return Window.model_validate(metadata.get("period") if isinstance(metadata, dict) else None)
    except ValidationError:
        return None


@dataclass(frozen=True)
class OutCandidate:
    """What a guide knows of one main-deck card in one matchup: what it answers, how the archetype plays it,
    and the record of the lists that play it against this opponent."""

    card: CardDetail
    facts: CardFacts
    how: dict[str, str]  # their key cards it answers, with how
    worth: float
    share: float  # % of the archetype's lists that play it
    copies: float  # average copies in those lists
    core: str | None  # "defining" (the archetype's rule names it), "common", or None
    in_lists: WinRate | None
    gap: float | None  # points by which lists with it did better (negative: worse) against this opponent
    slow: str  # why it is among the weakest in this kind of matchup, or ""
    trick: bool = False  # a combat trick in a deck whose creatures do not trigger when targeted

    @classmethod
    def of(
        cls,
        card: CardDetail,
        how: dict[str, str],
        matchup: Matchup,
        share: float,
        copies: float,
        core: str | None,
        in_lists: WinRate | None,
        base: WinRate | None,
    ) -> OutCandidate:
        facts = _facts_of_detail(card)
        worth = _worth(card, how, matchup.targets, matchup.weights)[0]
        slow = "" if how else matchup.slow_here(facts)
        trick = bool(_TRICK.search(facts.text)) and not matchup.tricks_matter
        gap = evidence_gap(in_lists, base)
        return cls(card, facts, how, worth, share, copies, core, in_lists, gap, slow, trick)

    @property
    def spell(self) -> bool:
        return bool(self.facts.types & {"instant", "sorcery"})

    @property
    def reaches_face(self) -> bool:
        """Burn that can go to the face is never idle."""
        return self.spell and _FACE.search(self.facts.text) is not None

    @property
    def interaction(self) -> bool:
        return bool(_answer_kinds(self.facts))

    @property
    def engine(self) -> bool:
        """A piece of what the deck does: in ``ENGINE_INCLUSION`` % of the lists at ``ENGINE_COPIES`` or more
        copies, and neither interaction nor a combat trick (Manamorphose in Ruby Storm, a madness deck's discard
        outlets; a heroic deck's tricks are its engine)."""
        played = self.share >= ENGINE_INCLUSION and self.copies >= ENGINE_COPIES
        return played and not self.interaction and not self.trick

    @property
    def by_rules(self) -> bool:
        """Whether the rules alone may take it out: not a card the archetype's rule names, not an engine piece."""
        return self.core != "defining" and not self.engine

    @property
    def dead(self) -> bool:
        """Interaction with nothing to hit among their key cards."""
        kinds = _answer_kinds(self.facts)
        hate = bool(kinds) and kinds <= HATE_KINDS and not self.facts.types & {"creature", "planeswalker"}
        return not self.how and not self.reaches_face and ((self.spell and bool(kinds)) or hate)

    def weak(self, best_in: float) -> bool:
        """An answer spell that reaches little of what they play, against a much better card coming in."""
        answer_spell = bool(self.how) and self.spell and not self.reaches_face
        return answer_spell and self.by_rules and best_in >= WEAK_BY * self.worth

    def answers_enough(self, best_in: float) -> bool:
        return bool(self.how) and not self.weak(best_in)

    @property
    def note(self) -> str:
        return " (a core card, out on the rules)" if self.core else ""


@dataclass(frozen=True)
class OutRule:
    """One reason a main-deck card goes out: its ``rank`` (lower goes first), the test, the words; ``trim``
    takes one copy only. Changing the guide's policy is a row of ``OUT_RULES`` and its test."""

    rank: int
    test: Callable[[OutCandidate, float], bool]
    words: Callable[[OutCandidate, str], str]
    trim: bool = False

    def holds(self, candidate: OutCandidate, best_in: float) -> bool:
        return self.test(candidate, best_in)

    def reason(self, candidate: OutCandidate, best_in_name: str) -> str:
        return self.words(candidate, best_in_name)


def _worse_here(c: OutCandidate, _: float) -> bool:
    return c.gap is not None and c.gap <= -BETTER_BY and c.in_lists is not None


# Never out: a card whose lists did better against this opponent
STAYS: tuple[Callable[[OutCandidate], bool], ...] = (lambda c: c.gap is not None and c.gap >= BETTER_BY,)
OUT_RULES: tuple[OutRule, ...] = (
    OutRule(0, lambda c, _: c.dead and c.by_rules, lambda c, _: "nothing to hit among their key cards" + c.note),
    OutRule(
        1,
        lambda c, best: c.weak(best),
        lambda c, best: f"answers only {' / '.join(c.how)} here; {best} answers more of what they play" + c.note,
    ),
    OutRule(2, lambda c, _: bool(c.slow) and c.by_rules, lambda c, _: c.slow + c.note),
    OutRule(
        3,
        _worse_here,
        lambda c, _: f"lists with it went {c.in_lists.wins}-{c.in_lists.losses} here, below the archetype's record"  # type: ignore[union-attr]
        + (" (a core card, out on that evidence)" if c.core else ""),
    ),
    OutRule(
        4,
        lambda c, _: c.core is None and not c.engine and c.share < CORE_INCLUSION,
        lambda c, _: f"a flex slot (in {c.share:g}% of the lists): the first to go when nothing misses in a matchup",
    ),
    OutRule(
        5,
        lambda c, _: c.core is None and not c.engine and c.card.quantity >= 4,
        lambda c, _: f"one copy of a four-of (in {c.share:g}% of the lists), trimmed when nothing misses in a matchup",
        trim=True,
    ),
)


class DeckCoach:
    """Deck tools over the archetype card statistics and the card data."""

    def __init__(self, meta: MetaService, cards: CardsRepository, classifier: ArchetypeClassifier) -> None:
        self.meta = meta
        self.cards = cards
        self.classifier = classifier

    # --- classify -------------------------------------------------------------------------

    def classify(self, params: ClassifyDeckInput) -> ClassifyDeckOutput:
        """The archetype the ingest classifier gives a pasted list (no DynamoDB request)."""
        deck = parse_deck_text(params.deck)
        verdict = self.classifier.classify(params.format, deck.mainboard, deck.sideboard)
        return ClassifyDeckOutput(
            format=params.format,
            archetype=verdict.archetype,
            color_identity=verdict.colors or "C",
            strategy=verdict.strategy,
            matched_by=verdict.kind,  # type: ignore[arg-type]
            candidates=list(verdict.candidates),
            mainboard_cards=sum(deck.mainboard.values()),
            sideboard_cards=sum(deck.sideboard.values()),
        )

    # --- shared loading -------------------------------------------------------------------

    def _archetype_stats(self, fmt: str, archetype: str, start: str, end: str) -> dict[str, Any]:
        stats: dict[str, Any] = {}
        for day in self.meta.repository.archetype_days(fmt, archetype, start, end):
            merge(stats, day.data)
        return stats

    def _context(self, params: OptimizeInput) -> tuple[str, Any, dict[str, Any], dict[str, Any]]:
        info = self.meta.format_info(params.format)
        win = window(params.as_of or dt.date.fromisoformat(info.last_date), params.days)
        total: dict[str, Any] = {}
        for day in self.meta.repository.format_days(params.format, win.start, win.end):
            merge(total, day.data)
        name = self.meta.resolve_archetype(params.archetype, total.get("archetypes", {}))
        stats = self._archetype_stats(params.format, name, win.start, win.end)
        if not stats.get("decks"):
            raise NotFound(f"no {name} lists in {params.format} between {win.start} and {win.end}", field="archetype")
        return name, win, total, stats

    def _usage(self, name: str, row: list[int] | None, lists: int, yours: int, record_total: list[int]) -> CardUsage:
        decks, copies, wins, losses = row or [0, 0, 0, 0]
        with_card = without = None
        if row:
            with_card = record(wins, losses, 0, self.meta.min_sample)
            without = record(record_total[0] - wins, record_total[1] - losses, 0, self.meta.min_sample)
        return CardUsage(
            name=name,
            inclusion_rate=_pct(decks, lists),
            average_copies=round(copies / decks, 2) if decks else 0.0,
            your_copies=yours,
            with_card=with_card,
            without_card=without,
        )

    def _top(self, total: dict[str, Any], own: str, top_n: int) -> list[dict[str, Any]]:
        archetypes = total.get("archetypes", {})
        ranked = sorted(
            (a for a in archetypes if a not in (own, "Unknown")), key=lambda a: (-archetypes[a]["decks"], a)
        )[:top_n]
        results = total.get("results", {}).get(own, {})
        out = []
        for opp in ranked:
            w, l, d = results.get(opp, [0, 0, 0])
            out.append(
                {
                    "archetype": opp,
                    "meta_share": _pct(archetypes[opp]["decks"], total.get("decks", 0)),
                    "your_archetype_vs_it": record(w, l, d, self.meta.min_sample).model_dump(),
                }
            )
        return out

    @staticmethod
    def _section(cards: list[CardDetail], section: str) -> dict[str, CardDetail]:
        out: dict[str, CardDetail] = {}
        for card in cards:
            if card.section == section:
                key = card_key(card.name)
                if key in out:
                    out[key] = out[key].model_copy(update={"quantity": out[key].quantity + card.quantity})
                else:
                    out[key] = card
        return out

    # --- card evidence shared by the deck tools --------------------------------------------

    def _opponent(self, fmt: str, opponent: str, start: str, end: str) -> tuple[int, list[KeyCard], list[CardFacts]]:
        """The opponent's list count, its key cards and the cards roles are checked against (``_opponents``)."""
        return self._opponents(fmt, [opponent], start, end)[opponent]

    def _opponents(
        self, fmt: str, opponents: list[str], start: str, end: str
    ) -> dict[str, tuple[int, list[KeyCard], list[CardFacts]]]:
        """For each opponent: its list count, its key cards (in ``KEY_INCLUSION`` % of its lists or more,
        mainboard first, 12 at most) and what roles are checked against: its key mainboard cards and key
        lands. One Query per opponent, one card read for all of them."""
        found: dict[str, tuple[int, list[tuple[str, list[int], str]], list[str]]] = {}
        for opponent in opponents:
            opp_stats = self._archetype_stats(fmt, opponent, start, end)
            if not opp_stats.get("decks"):
                raise NotFound(f"no {opponent} lists in {fmt} between {start} and {end}", field="opponent_archetype")
            lists = opp_stats["decks"]
            lands = set(opp_stats.get("lands", []))
            rows = [(c, r, "mainboard") for c, r in opp_stats["main"].items()]
            rows += [(c, r, "sideboard") for c, r in opp_stats["side"].items()]
            key_rows = [k for k in rows if k[0] not in lands and _pct(k[1][0], lists) >= KEY_INCLUSION]
            key_rows.sort(key=lambda k: (k[2] != "mainboard", -k[1][0], k[0]))
            key_lands = [c for c, r in opp_stats["main"].items() if c in lands and _pct(r[0], lists) >= KEY_INCLUSION]
            found[opponent] = (lists, key_rows[:12], key_lands)
        names = [c for _, rows, key_lands in found.values() for c in [*(r[0] for r in rows), *key_lands]]
        details = self.cards.get_many([card_key(c) for c in names])
        out: dict[str, tuple[int, list[KeyCard], list[CardFacts]]] = {}
        for opponent, (lists, key_rows, key_lands) in found.items():
            key_cards = []
            for card, row, section in key_rows:
                detail = details.get(card_key(card))
                key_cards.append(
                    KeyCard(
                        name=card,
                        inclusion_rate=_pct(row[0], lists),
                        average_copies=round(row[1] / row[0], 2),
                        section=section,
                        type_line=detail.type_line if detail else None,
                        mana_cost=detail.mana_cost if detail else None,
                        oracle_text=detail.oracle_text if detail else None,
                        power=detail.power if detail else None,
                        toughness=detail.toughness if detail else None,
                        loyalty=detail.loyalty if detail else None,
                        colors=detail.colors if detail else None,
                    )
                )
            targets = [_facts_of_key(k) for k in key_cards if k.section == "mainboard"]
            targets += [CardFacts.of(details[card_key(c)]) for c in key_lands if card_key(c) in details]
            out[opponent] = (lists, key_cards, targets)
        return out

    @staticmethod
    def _answers(card: CardDetail, matchup: Matchup, main: list[CardDetail] | None = None) -> dict[str, str]:
        """The opponent's key cards ``card`` answers by the rules, with how (the first way). With the user's
        ``main`` deck, a sweeper that would also kill the deck's own creatures (12 or more) does not count; a
        Blood Moon counts against a deck whose spells can all be cast with its colour only on the lands whose
        abilities that deck uses."""
        facts = _facts_of_detail(card)
        spare = own_creatures_from(main or [])
        colours = len(deck_colours(main)) if main else None
        skip_lands = matchup.moon_misses(facts)
        return {
            t.name: ways[0]
            for t in matchup.targets
            if not (skip_lands and t.is_land and not matchup.land_plan(t))
            and (ways := answered_by(facts, t, spare, colours))
        }

    def _with_card(
        self, own_stats: dict[str, Any], name: str, opponent: str, section: str = "side_vs"
    ) -> WinRate | None:
        """The archetype's record against ``opponent`` in its lists that play ``name`` in the sideboard
        (``side_vs``) or the mainboard (``main_vs``; absent from aggregates stored before it existed)."""
        index = f"_{section}_by_key"  # the section keyed by card_key, made once per stats
        if index not in own_stats:
            own_stats[index] = {card_key(c): v for c, v in own_stats.get(section, {}).items()}
        vs = (own_stats[index].get(card_key(name)) or {}).get(opponent)
        return record(vs[0], vs[1], 0, self.meta.min_sample) if vs else None

    def _core(self, fmt: str, archetype: str, stats: dict[str, Any], deck: list[CardDetail]) -> dict[str, str]:
        """The archetype's core cards (normalised), each "defining" (the player's ``deck`` would no longer meet
        the archetype's rule without it: what the deck is) or "common" (in ``CORE_GUARD`` % of its lists)."""
        lists = stats.get("decks") or 0
        core = {card_key(c): "common" for c, row in stats.get("main", {}).items() if _pct(row[0], lists) >= CORE_GUARD}
        main = self._section(deck, "mainboard")
        side = self._section(deck, "sideboard")
        counts = [{k: c.quantity for k, c in part.items()} for part in (main, side)]
        return core | dict.fromkeys(self.classifier.defining_cards(fmt, archetype, *counts), "defining")

    def _matchup(
        self, fmt: str, opponent: str, key_cards: list[KeyCard], targets: list[CardFacts], main: list[CardDetail]
    ) -> Matchup:
        spells = [(c.cmc or 0, c.quantity) for c in main if "Land" not in (c.type_line or "") and not c.unknown]
        own_curve = sum(v * n for v, n in spells) / max(1, sum(n for _, n in spells))
        cheats_in = any(_facts_of_detail(c).puts_onto_battlefield for c in main if "Land" not in (c.type_line or ""))
        tricks_matter = any(_TARGETED.search(c.oracle_text or "") for c in main if "Creature" in (c.type_line or ""))
        strategy = self.classifier.strategy_of(fmt, opponent)
        return Matchup(strategy, targets, _weights(key_cards), own_curve, cheats_in, tricks_matter)

    def _bring_in(
        self,
        opponent: str,
        base: WinRate | None,
        side: list[CardDetail],
        main: list[CardDetail],
        matchup: Matchup,
        own_stats: dict[str, Any],
    ) -> list[tuple[float, GuideCard]]:
        """Sideboard cards worth bringing in, best first, each with its worth here: what it answers among their
        key cards weighted by how often they play it (``_worth``), 2 more when its lists did better against
        them; then, among equals, the kind of answer the matchup wants first (``Matchup.answer_order``), then
        the cheaper. A card whose cost reduction needs a colour none of their key cards has stays out."""
        scored: list[tuple[tuple[Any, ...], float, GuideCard]] = []
        for card in side:
            how = self._answers(card, matchup, main)
            with_card = self._with_card(own_stats, card.name, opponent)
            better = did_better(with_card, base)
            facts = _facts_of_detail(card)
            if not how and (not better or _answer_kinds(facts)):  # an answer with nothing to hit stays out,
                continue  # whatever the lists that play it did (Pyroblast against a deck with no blue card)
            worth, full_cost = _worth(card, how, matchup.targets, matchup.weights)
            if full_cost:  # a colour hoser against a deck without that colour: never in, whatever its lists did
                continue
            why = group_ways(how, limit=2) + full_cost
            if with_card is not None and with_card.wins + with_card.losses:
                why += ("; " if why else "") + f"lists with it went {with_card.wins}-{with_card.losses}"
            total = worth + 2 * better
            order = (-total, matchup.answer_order(facts), facts.mana_value, card.name)
            scored.append((order, total, GuideCard(name=card.name, quantity=card.quantity, why=why)))
        return [(total, guide_card) for _, total, guide_card in sorted(scored, key=lambda s: s[0])]

    def _guide(
        self,
        opponent: str,
        base: WinRate | None,
        side: list[CardDetail],
        main: list[CardDetail],
        matchup: Matchup,
        own_stats: dict[str, Any],
        core: dict[str, str],
    ) -> SideboardGuide:
        """What to bring in (``_bring_in``) and as many cards to take out against one opponent.

        Out, in this order: spells with nothing to hit among its key cards; answer spells worth ``WEAK_BY``
        times less than the best card coming in (a condition that fails here); cards among the weakest in this
        kind of matchup (``Matchup.slow_here``); cards whose lists did worse against it; flex cards the lists
        play least; one copy of up to three four-ofs; equal cards by ``Matchup.tie_rule``. Never out: a card
        whose lists did better against it, and a ``core`` card without evidence (a "defining" one only on its
        lists' record, a "common" one also on the rules: nothing or little to hit, or weakest in this kind of
        matchup)."""
        lists = own_stats.get("decks") or 0
        usage = {
            card_key(c): (_pct(r[0], lists), r[1] / r[0] if r[0] else 0.0) for c, r in own_stats.get("main", {}).items()
        }
        speed = matchup.tie_rule()
        scored = self._bring_in(opponent, base, side, main, matchup, own_stats)
        ranked = [guide_card for _, guide_card in scored]
        best_in = scored[0][0] if scored else 0.0
        coming = {card_key(c.name) for c in ranked}
        # what can go: (order, share of the lists, tie rule, card, why), by the first out-rule that holds
        outs: list[tuple[int, float, tuple[float, ...], CardDetail, str]] = []
        trims: list[tuple[int, float, tuple[float, ...], CardDetail, str]] = []
        for card in main:
            key = card_key(card.name)
            if "Land" in (card.type_line or "") or key in coming or card.unknown:  # an unknown card is not judged
                continue
            share, copies = usage.get(key, (0.0, 0.0))
            in_lists = self._with_card(own_stats, card.name, opponent, "main_vs")
            candidate = OutCandidate.of(
                card, self._answers(card, matchup, main), matchup, share, copies, core.get(key), in_lists, base
            )
            if candidate.answers_enough(best_in) or any(rule(candidate) for rule in STAYS):
                continue
            rule = next((r for r in OUT_RULES if r.holds(candidate, best_in)), None)
            if rule is None:
                continue
            why = rule.reason(candidate, ranked[0].name if ranked else "")
            if rule.trim:
                trims.append((rule.rank, share, speed(card), card.model_copy(update={"quantity": 1}), why))
            else:
                outs.append((rule.rank, share, speed(card), card, why))
        outs += sorted(trims, key=lambda t: (t[1], t[2]))[:GUIDE_MAX_TRIMS]
        room = min(GUIDE_MAX_IN, sum(o[3].quantity for o in outs))
        bring_in: list[GuideCard] = []
        for guide_card in ranked:
            take = min(guide_card.quantity, room)
            if take <= 0:
                break
            bring_in.append(guide_card.model_copy(update={"quantity": take}))
            room -= take
        wanted = sum(c.quantity for c in bring_in)
        take_out: list[GuideCard] = []
        for _, _, _, card, why in sorted(outs, key=lambda c: (c[0], c[1], c[2], c[3].name)):
            if wanted <= 0:
                break
            take = min(card.quantity, wanted)
            take_out.append(GuideCard(name=card.name, quantity=take, why=why))
            wanted -= take
        main_total = sum(c.quantity for c in main)
        side_total = sum(c.quantity for c in side)
        moved_in, moved_out = sum(c.quantity for c in bring_in), sum(c.quantity for c in take_out)
        return SideboardGuide(
            opponent=opponent,
            record=base,
            bring_in=bring_in,
            take_out=take_out,
            held_back=[c.name for c in ranked if card_key(c.name) not in {card_key(b.name) for b in bring_in}],
            mainboard_after=main_total + moved_in - moved_out,
            sideboard_after=side_total - moved_in + moved_out,
        )

    # --- mainboard ------------------------------------------------------------------------

    def optimize_mainboard(self, params: OptimizeInput) -> OptimizeMainboardOutput:
        """Core cards, flex spots, popular cards the deck lacks, and swaps with reasons."""
        name, win, total, stats = self._context(params)
        lists, rec = stats["decks"], stats["record"]
        lands = {card_key(c) for c in stats.get("lands", [])}
        rows = {card_key(c): (c, r) for c, r in stats["main"].items()}
        mine = self._section(params.card_details, "mainboard")
        if not mine:
            raise InvalidArgument("card_details has no mainboard cards", field="card_details")

        yours = [self._usage(c.name, rows.get(k, (None, None))[1], lists, c.quantity, rec) for k, c in mine.items()]
        core = sorted((u for u in yours if u.inclusion_rate >= CORE_INCLUSION), key=lambda u: -u.inclusion_rate)
        flex = sorted((u for u in yours if u.inclusion_rate < FLEX_INCLUSION), key=lambda u: (u.inclusion_rate, u.name))
        top = self._top(total, name, params.top_n)
        bases = {t["archetype"]: WinRate.model_validate(t["your_archetype_vs_it"]) for t in top}
        profiles = self._opponents(params.format, list(bases), win.start, win.end)
        main_list = list(mine.values())
        matchups = {
            opp: self._matchup(params.format, opp, key_cards, targets, main_list)
            for opp, (_, key_cards, targets) in profiles.items()
        }
        for usage in flex:  # the rules every deck tool shares: a flex card that answers a top deck, or whose
            # lists beat one, is not cut (the sideboard tool keeps such cards and the guides bring them in)
            card = mine[card_key(usage.name)]
            usage.answers_against = [
                opp for opp, matchup in matchups.items() if self._answers(card, matchup, main_list)
            ]
            usage.better_against = [
                opp
                for opp, base in bases.items()
                if did_better(self._with_card(stats, usage.name, opp, "main_vs"), base)
            ]
        candidates = []
        for key, (card, row) in rows.items():
            usage = self._usage(card, row, lists, mine[key].quantity if key in mine else 0, rec)
            if usage.inclusion_rate >= CANDIDATE_INCLUSION and usage.your_copies < round(usage.average_copies):
                candidates.append(usage)
        candidates.sort(key=lambda u: (-u.inclusion_rate, u.name))

        def is_land(usage: CardUsage) -> bool:
            detail = mine.get(card_key(usage.name))
            if detail and detail.type_line:
                return "Land" in detail.type_line
            return card_key(usage.name) in lands

        swaps: list[Swap] = []
        used: set[str] = set()
        for cut in flex:
            if cut.better_against or cut.answers_against:
                continue
            add = next((c for c in candidates if c.name not in used and is_land(c) == is_land(cut)), None)
            if add is None:
                continue
            used.add(add.name)
            wanted = max(1, round(add.average_copies) - add.your_copies)
            quantity = min(cut.your_copies, wanted)
            reason = (
                f"{cut.name} is in {cut.inclusion_rate}% of {lists} recent {name} lists; "
                f"{add.name} is in {add.inclusion_rate}% (average {add.average_copies} copies)"
            )
            if add.with_card and add.without_card and not add.with_card.low_sample and not add.without_card.low_sample:
                reason += (
                    f"; lists with it won {add.with_card.win_rate}% of {add.with_card.wins + add.with_card.losses} "
                    f"matches vs {add.without_card.win_rate}% without"
                )
            swaps.append(Swap(cut=cut.name, cut_quantity=quantity, add=add.name, add_quantity=quantity, reason=reason))
            if len(swaps) >= params.top_n:
                break
        return OptimizeMainboardOutput(
            format=params.format,
            archetype=name,
            lists_compared=lists,
            core_cards=core,
            flex_spots=flex[: max(params.top_n, 5)],
            candidates=candidates[: max(params.top_n * 2, 10)],
            swaps=swaps,
            top_matchups=top,
            metadata=MainboardMetadata(
                period=win,
                min_sample=self.meta.min_sample,
                core_threshold=CORE_INCLUSION,
                flex_threshold=FLEX_INCLUSION,
            ),
        )

    # --- sideboard ------------------------------------------------------------------------

    def optimize_sideboard(self, params: OptimizeInput) -> OptimizeSideboardOutput:
        """A 15-card sideboard aimed at the top N archetypes, from what the archetype's lists play.

        The user's own sideboard cards that answer a top deck (by the rules against its key cards, or by
        lists with the card beating the archetype's record against it: ``did_better``) are kept first, so
        this never cuts a card the matchup plan calls an answer; the other slots go to what the archetype's
        lists play most. Every cut says why, and a guide per top deck says what comes in and goes out."""
        name, win, total, stats = self._context(params)
        lists = stats["decks"]
        top = self._top(total, name, params.top_n)
        opponents = [(t["archetype"], WinRate.model_validate(t["your_archetype_vs_it"])) for t in top]
        profiles = self._opponents(params.format, [opp for opp, _ in opponents], win.start, win.end)
        mine = self._section(params.card_details, "sideboard")
        main = self._section(params.card_details, "mainboard")
        main_list = list(main.values())
        matchups = {
            opp: self._matchup(params.format, opp, key_cards, targets, main_list)
            for opp, (_, key_cards, targets) in profiles.items()
        }

        final: list[SideboardSlot] = []
        remaining = SIDEBOARD_SIZE
        cut_reasons: dict[str, str] = {}
        keepers = []
        for key, card in mine.items():
            hits = {opp: list(how) for opp, _ in opponents if (how := self._answers(card, matchups[opp], main_list))}
            better = [opp for opp, base in opponents if did_better(self._with_card(stats, card.name, opp), base)]
            answered = list(dict.fromkeys([*hits, *better]))
            if answered:
                parts = [f"answers {opp}'s {', '.join(names[:2])}" for opp, names in list(hits.items())[:2]]
                if len(hits) > 2:
                    parts.append(f"and cards of {len(hits) - 2} more top decks")
                if better:
                    parts.append(f"its lists beat the archetype's record against {', '.join(better)}")
                keepers.append((-len(answered), card.name, key, card, "; ".join(parts), answered))
        for _, _, key, card, reason, answered in sorted(keepers, key=lambda k: (k[0], k[1])):
            take = min(card.quantity, remaining)
            if take < card.quantity:
                cut_reasons[key] = "no room: the 15 slots went to cards that answer more of the top decks"
            if take:
                final.append(SideboardSlot(name=card.name, quantity=take, reason=reason + "; kept", targets=answered))
                remaining -= take

        chosen = {card_key(slot.name) for slot in final}
        scored: list[tuple[float, str, int, str, list[str]]] = []
        for key, (card_name, row) in {card_key(c): (c, r) for c, r in stats["side"].items()}.items():
            if key in chosen or key in main:
                continue
            decks, copies = row[0], row[1]
            inclusion = _pct(decks, lists)
            better = [opp for opp, base in opponents if did_better(self._with_card(stats, card_name, opp), base)]
            average = copies / decks if decks else 1.0
            reason = f"in {inclusion}% of {lists} {name} sideboards (average {round(average, 1)})"
            if better:
                reason += "; its lists beat the archetype's record against " + ", ".join(better)
            scored.append((inclusion + 10 * len(better), card_name, max(1, min(4, round(average))), reason, better))
        scored.sort(key=lambda s: (-s[0], s[1]))
        for _, card_name, quantity, reason, better in scored:
            if remaining == 0:
                break
            take = min(quantity, remaining)
            final.append(SideboardSlot(name=card_name, quantity=take, reason=reason, targets=better))
            remaining -= take
        if remaining and final:  # too few distinct candidates: add copies of the best, up to 4 each
            for slot in final:
                extra = min(4 - slot.quantity, remaining)
                slot.quantity += extra
                remaining -= extra

        current = {card_key(c.name) for c in mine.values()}
        kept = {card_key(s.name): s.quantity for s in final}
        side_rows = {card_key(c): r for c, r in stats["side"].items()}
        cuts = []
        for key, card in mine.items():
            if kept.get(key, 0) >= card.quantity:
                continue
            share = _pct(side_rows[key][0], lists) if key in side_rows else 0.0
            why = cut_reasons.get(key) or (
                f"answers none of the top decks' key cards by its rules text, its lists did not beat the "
                f"archetype's record against them, and {share:g}% of {name} sideboards play it"
            )
            cuts.append(SideboardCut(name=card.name, quantity=card.quantity - kept.get(key, 0), why=why))
        details = self.cards.get_many([card_key(s.name) for s in final])
        final_cards = [
            card_detail(found, slot.quantity, "sideboard")
            if (found := details.get(card_key(slot.name)))
            else CardDetail(name=slot.name, quantity=slot.quantity, section="sideboard")
            for slot in final
        ]
        core = self._core(params.format, name, stats, params.card_details)
        guides = [self._guide(opp, base, final_cards, main_list, matchups[opp], stats, core) for opp, base in opponents]
        return OptimizeSideboardOutput(
            format=params.format,
            archetype=name,
            lists_compared=lists,
            top_archetypes=top,
            final_sideboard=final,
            total_cards=sum(s.quantity for s in final),
            adds=[s.name for s in final if card_key(s.name) not in current],
            cuts=[c.name for c in cuts],
            cut_reasons=cuts,
            guides=guides,
            metadata=SideboardMetadata(period=win, min_sample=self.meta.min_sample),
        )

    # --- matchup strategy facts -------------------------------------------------------------

    def matchup_facts(self, params: StrategyInput) -> StrategyFacts:
        """Record, the opponent's key cards and the user's sideboard answers to them."""
        stats_in = params.matchup_stats
        fmt = params.format or stats_in.get("format")
        period = _stats_period(stats_in)
        if not fmt or period is None or not period.start or not period.end:
            raise InvalidArgument(
                "matchup_stats must be the output of get_deck_matchup_stats (format and metadata.period)",
                field="matchup_stats",
            )
        cell = next(
            (
                m
                for m in stats_in.get("matchups", [])
                if str(m.get("opponent", "")).lower() == params.opponent_archetype.lower()
            ),
            None,
        )
        record_vs = WinRate.model_validate(cell) if cell else None
        opponent = cell["opponent"] if cell else params.opponent_archetype
        archetype = stats_in.get("archetype") or params.archetype
        lists, key_cards, targets = self._opponent(fmt, opponent, period.start, period.end)
        own_stats = self._archetype_stats(fmt, archetype, period.start, period.end)
        side = list(self._section(params.card_details, "sideboard").values())
        answers = []
        main_cards = list(self._section(params.card_details, "mainboard").values())
        matchup = self._matchup(fmt, opponent, key_cards, targets, main_cards)
        for card in side:
            how = self._answers(card, matchup, main_cards)
            with_vs = self._with_card(own_stats, card.name, opponent)
            if not how and not did_better(with_vs, record_vs):
                continue
            reason = group_ways(how)
            if with_vs is not None:
                reason += ("; " if reason else "") + (
                    f"{archetype} lists with it went {with_vs.wins}-{with_vs.losses} against {opponent}"
                )
            answers.append(
                SideboardAnswer(
                    name=card.name,
                    quantity=card.quantity,
                    answers=list(how)[:6],
                    reason=reason,
                    roles=role_labels(_facts_of_detail(card)),
                    with_card_vs_opponent=with_vs,
                )
            )
        core = self._core(fmt, archetype, own_stats, params.card_details)
        guide = self._guide(opponent, record_vs, side, main_cards, matchup, own_stats, core)
        main = main_cards
        profile = {
            "mainboard_cards": sum(c.quantity for c in main),
            "lands": sum(c.quantity for c in main if "Land" in (c.type_line or "")),
            "creatures": sum(c.quantity for c in main if "Creature" in (c.type_line or "")),
            "average_mana_value": round(
                sum((c.cmc or 0) * c.quantity for c in main if "Land" not in (c.type_line or ""))
                / max(1, sum(c.quantity for c in main if "Land" not in (c.type_line or ""))),
                2,
            ),
        }
        return StrategyFacts(
            format=fmt,
            archetype=archetype,
            opponent_archetype=opponent,
            record=record_vs,
            opponent_lists=lists,
            opponent_key_cards=key_cards,
            sideboard_answers=answers,
            sideboard_guide=guide,
            your_deck_profile=profile,
            metadata=StrategyMetadata(period=period),
        )

    # --- one card's evidence -----------------------------------------------------------------

    def card_evidence(self, params: CardEvidenceInput) -> CardEvidenceOutput:
        """What a card answers among an opponent's key cards (or the top decks'), how each of the most played
        archetypes' lists with it did against its lists without it (against the opponent, or overall), and how
        many of the matches against the opponent lists with it played."""
        info = self.meta.format_info(params.format)
        win, total = self.meta.total_of(info, params.days, params.as_of)
        played = total.get("archetypes", {})
        card, read_as = self._card_named(params.card)
        detail = card_detail(card, 1, "mainboard")
        opponent = self.meta.resolve_archetype(params.opponent_archetype, played) if params.opponent_archetype else None
        found: dict[str, Any] = {"answers": [], "top_decks_answered": {}}
        if opponent:
            lists, key_cards, targets = self._opponent(params.format, opponent, win.start, win.end)
            how = self._answers(detail, self._matchup(params.format, opponent, key_cards, targets, []))
            weights = _weights(key_cards)
            spells = {t.name for t in targets if not t.is_land}
            shares = {k.name: k.inclusion_rate for k in key_cards}
            if any(t.is_land and t.name in how for t in targets):  # their key lands: each one's share of their lists
                opp_stats = self._archetype_stats(params.format, opponent, win.start, win.end)
                front = {name.split(" // ")[0]: name for name in how}  # stats name a split card by its front
                main = opp_stats.get("main", {}).items()
                shares |= {front[c.split(" // ")[0]]: _pct(r[0], lists) for c, r in main if c.split(" // ")[0] in front}
            found.update(
                opponent_lists=lists,
                opponent_key_cards=len(key_cards),
                answers=[
                    AnsweredCard(name=name, inclusion_rate=shares.get(name, 0.0), how=way, is_land=name not in spells)
                    for name, way in how.items()
                ],
                answered_share=_pct(
                    round(100 * sum(weights.get(n, 0) for n in how if n in spells)),
                    round(100 * sum(weights.get(n, 0) for n in spells)),
                ),
            )
        else:
            top = self._top(total, "", 5)
            profiles = self._opponents(params.format, [t["archetype"] for t in top], win.start, win.end)
            for opp, (_, key_cards, targets) in profiles.items():
                if how := self._answers(detail, self._matchup(params.format, opp, key_cards, targets, [])):
                    found["top_decks_answered"][opp] = list(how)
        if params.archetype:
            subjects = [self.meta.resolve_archetype(params.archetype, played)]
        else:
            ranked = sorted(
                (a for a in played if a not in (opponent, "Unknown")), key=lambda a: (-played[a]["decks"], a)
            )
            subjects = ranked[:CARD_ARCHETYPES]
        records = [
            r for name in subjects for r in self._card_records(params.format, name, card.name, opponent, total, win)
        ]
        records.sort(key=lambda r: (-(r.with_card.wins + r.with_card.losses), r.archetype, r.section))
        results = total.get("results", {})
        versus = [results.get(a, {}).get(opponent, [0, 0, 0]) for a in played if a != opponent] if opponent else []
        return CardEvidenceOutput(
            format=params.format,
            card=card.name,
            read_as=read_as,
            type_line=card.type_line,
            mana_cost=card.mana_cost,
            roles=role_labels(CardFacts.of(card)),
            opponent=opponent,
            records=records,
            pooled=_pooled(records),
            matches_with=sum(r.with_card.wins + r.with_card.losses for r in records),
            matches_total=sum(w + l for w, l, _ in versus),
            archetypes_checked=len(subjects),
            metadata=StrategyMetadata(period=win),
            **found,
        )

    def _card_named(self, name: str) -> tuple[Card, str | None]:
        """The stored card ``name`` names (its short name or a misspelling too), and what was typed when corrected."""
        card = self.cards.get_many([card_key(name)]).get(card_key(name))
        if card is not None:
            return card, None
        best, suggestions = closest_names(name, self.cards.all_names())
        card = self.cards.get_many([card_key(best)]).get(card_key(best)) if best else None
        if card is None:
            hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
            raise NotFound(f"no card named {name!r} in the card data{hint}", field="card", allowed=suggestions)
        return card, name

    def _card_records(
        self, fmt: str, archetype: str, card: str, opponent: str | None, total: dict[str, Any], win: Window
    ) -> list[CardRecord]:
        """The archetype's lists with the card (in each section it is played) against its lists without it:
        against ``opponent`` when given, else overall."""
        stats = self._archetype_stats(fmt, archetype, win.start, win.end)
        lists = stats.get("decks") or 0
        if opponent:
            w, l, _ = total.get("results", {}).get(archetype, {}).get(opponent, [0, 0, 0])
        else:
            w, l, _ = stats.get("record", [0, 0, 0])
        base = record(w, l, 0, self.meta.min_sample)
        out = []
        for section, name in (("mainboard", "main"), ("sideboard", "side")):
            row = {card_key(c): r for c, r in stats.get(name, {}).items()}.get(card_key(card))
            if not row:
                continue
            if opponent:
                with_card = self._with_card(stats, card, opponent, f"{name}_vs") or record(
                    0, 0, 0, self.meta.min_sample
                )
            else:
                with_card = record(row[2], row[3], 0, self.meta.min_sample)
            gap = evidence_gap(with_card, base)
            out.append(
                CardRecord(
                    archetype=archetype,
                    section=section,  # type: ignore[arg-type]
                    lists_with=row[0],
                    lists=lists,
                    with_card=with_card,
                    without_card=without_card(with_card, base),
                    gap=None if gap is None else round(gap, 1),
                    verdict=gap_words(gap),
                )
            )
        return out


def _pooled(records: list[CardRecord]) -> list[CardRecord]:
    """Per section, over the archetypes with decided matches both with and without the card (two or more): their
    lists with it against their lists without it (sections apart, so a list with it in both is not counted
    twice; an archetype that always plays it has nothing to compare)."""
    pooled = []
    for section in ("mainboard", "sideboard"):
        rows = [r for r in records if r.section == section and _decided(r.with_card) and _decided(r.without_card)]
        if len(rows) < 2:
            continue
        w, l = sum(r.with_card.wins for r in rows), sum(r.with_card.losses for r in rows)
        ow = sum(r.without_card.wins for r in rows if r.without_card)
        ol = sum(r.without_card.losses for r in rows if r.without_card)
        with_card, without = record(w, l, 0, FEW_MATCHES), record(ow, ol, 0, FEW_MATCHES)
        gap = evidence_gap(with_card, record(w + ow, l + ol, 0, FEW_MATCHES))
        pooled.append(
            CardRecord(
                archetype="all of these",
                section=rows[0].section,
                lists_with=sum(r.lists_with for r in rows),
                lists=sum(r.lists for r in rows),
                with_card=with_card,
                without_card=without,
                gap=None if gap is None else round(gap, 1),
                verdict=gap_words(gap),
            )
        )
    return pooled


def _decided(rate: WinRate | None) -> bool:
    return rate is not None and rate.wins + rate.losses > 0
