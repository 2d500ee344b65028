"""One opponent as the deck tools read it: its key cards (what the card rules are checked against), the kind
of matchup it makes (``Matchup``), and which of its key cards one of the player's cards answers."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from meta_mage.archetypes.classifier import ArchetypeClassifier
from meta_mage.card_rules.answers import answered_by, verdicts
from meta_mage.card_rules.facts import CardFacts
from meta_mage.card_rules.profile import profile_of
from meta_mage.card_rules.reader import roles_of
from meta_mage.decks.cards import (
    COST_REDUCTION,
    deck_colours,
    facts_of_detail,
    facts_of_key,
    is_creature,
    is_land,
    mana_curve,
    own_creatures_from,
)
from meta_mage.decks.context import CoachContext
from meta_mage.decks.evidence import ArchetypeEvidence, pct
from meta_mage.decks.knowledge import DeckKnowledge, PlayedCard, knowledge_of
from meta_mage.decks.mana_rules import moon_colour
from meta_mage.errors import NotFound
from meta_mage.models.cards import Card, card_key
from meta_mage.models.decks import CardDetail, KeyCard
from meta_mage.models.evidence import CardRow

KEY_INCLUSION = 40.0  # an opponent's card in at least this share of its lists is a key card
KEY_CARDS = 12  # key cards named per opponent, at most
FAST_DECK = 2.5  # an opponent whose key spells average under this mana value is fast
# a graveyard plan: their key spells that use a graveyard (flashback, escape, delve, reanimation...) weigh this
# much together (each weighs the share of their lists that play it: two cards in three quarters of the lists)
GRAVEYARD_PLAN = 1.5

_DISCARDS_OWN = re.compile(r"\bdiscard (?:up to )?(?:a|one|two|three|x|that many)? ?cards?\b", re.I)
TRICK = re.compile(r"target creature(?: you control)? gets \+\d+/\+\d+", re.I)  # a pump spell, a combat trick
# heroic, valiant: the deck's creatures trigger when targeted, so its tricks are its engine
_TARGETED = re.compile(r"spell that targets|becomes the target of a spell", re.I)
_TRIGGERED = re.compile(r"\b(when|whenever|at the beginning of)\b", re.I)
_OWN_ENTERS = re.compile(r"^(?:when|as) (?:this land|[^.\n]*?) enters[^\n]*$", re.I | re.M)
_SELF_DRAW = re.compile(r"sacrifice [^:.]*:\s*draw a card", re.I)
_DELVE_DREDGE = re.compile(r"\b(?:delve|dredge)\b", re.I)


def _gets_graveyard_value(card: CardFacts) -> bool:
    return card.graveyard_cast_or_reanimate or _DELVE_DREDGE.search(card.text) is not None


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
    own_strategy: str = "unknown"  # the player's archetype's role (its playbook's, else its rule's strategy)
    theirs: DeckKnowledge | None = None  # what a strong player knows of their deck
    yours: DeckKnowledge | None = None  # ...and of the player's

    @property
    def curve(self) -> float:
        spells = [t.mana_value for t in self.targets if not t.is_land]
        return sum(spells) / len(spells) if spells else 0.0

    @property
    def fast(self) -> bool:
        if self.strategy != "unknown":
            return self.strategy in ("aggro", "tempo")
        return 0 < self.curve < FAST_DECK

    @property
    def combo(self) -> bool:
        return self.strategy == "combo"

    @property
    def graveyard_users(self) -> list[str]:
        """Their key spells that get value back from a graveyard: cast from one (flashback, escape...), return
        cards from one to the battlefield, delve or dredge; not a card that only counts or mills one."""
        return [t.name for t in self.targets if not t.is_land and _gets_graveyard_value(t)]

    @property
    def graveyard_plan(self) -> bool:
        """Whether their deck's plan runs through a graveyard: its playbook says so, or its key spells that use
        one weigh ``GRAVEYARD_PLAN`` or more together."""
        if self.theirs is not None and self.theirs.graveyard_plan:
            return True
        return sum(self.weights.get(name, 0.0) for name in self.graveyard_users) >= GRAVEYARD_PLAN

    def described(self) -> str:
        kind = "" if self.strategy == "unknown" else f"{self.strategy} "
        return f"a {'fast ' if self.fast else ''}{kind}deck (key spells average {self.curve:.1f} mana)"

    def slow_here(self, card: CardFacts) -> str:
        """Why a card that answers nothing here is among the weakest in this kind of matchup (the first of
        ``WEAK_HERE`` that holds), or ""."""
        if card.is_land:
            return ""
        rule = next((r for r in WEAK_HERE if r.test(self, card)), None)
        return rule.words(self, card) if rule else ""

    def tie_rule(self) -> Callable[[CardDetail], tuple[float, ...]]:
        """How a guide orders cards that are otherwise equal to take out: against a fast deck the most
        expensive first, it comes down too late; against a slower one the cheapest first, it trades worst
        with their bigger cards; then the fewer copies first."""
        sign = -1 if self.fast else 1

        def order(card: CardDetail) -> tuple[float, ...]:
            return (sign * facts_of_detail(card).mana_value, card.quantity)

        return order

    def answer_order(self, card: CardFacts) -> int:
        """Among cards worth the same here, which come in first: against a fast deck answers to what is on the
        board (removal, sweepers); against combo, what stops a spell before it resolves (counters, discard,
        graveyard hate, locks); 1 for the rest."""
        kinds = {r.kind for r in roles_of(card)}
        if self.fast:
            return 0 if kinds & {"removal", "sweeper"} else 1
        if self.combo:
            return 0 if kinds & {"counter", "discard", "graveyard", "spell_limit", "ability"} else 1
        return 1

    def moon_misses(self, card: CardFacts) -> bool:
        """A Blood Moon against a deck whose key spells can all be cast with the basic type's colour alone (a
        mono-red deck whose nonbasics make red anyway: its hybrid {R/G} Manamorphose too)."""
        colour = moon_colour([card])
        if colour is None:
            return False
        return all(t.castable_with({colour}) for t in self.targets if not t.is_land)

    @staticmethod
    def land_plan(land: CardFacts) -> bool:
        """A land whose abilities the deck's plan uses beyond its mana (Urza's Saga, a manland, Valakut), which a
        Moon takes away even when its colour is not needed; not a fetchland (it only finds a land of the needed
        colour), a land whose only trigger is its own entering (surveil, scry) or one that sacrifices itself to
        draw a card."""
        triggered = _TRIGGERED.search(_OWN_ENTERS.sub("", land.text)) is not None  # not "When it enters, surveil 1"
        activated = land.activated and not land.fetchland and not _SELF_DRAW.search(land.text)
        return "saga" in land.subtypes or triggered or activated


# --- the weakest cards in a kind of matchup ------------------------------------------------------------------


def _spell(card: CardFacts) -> bool:
    """An instant or sorcery, not one cheapened by affinity."""
    return bool(card.types & {"instant", "sorcery"}) and "affinity for" not in card.text.lower()


def _card_flow_against_fast(m: Matchup, card: CardFacts) -> bool:
    """Card draw or selection of 2+ mana that leaves the board alone, against a fast deck; not in a combo deck,
    whose card flow digs for the combo that is its answer to a fast deck."""
    leaves_board = "create" not in card.text.lower()
    flows = _spell(card) and leaves_board and card.mana_value >= 2 and bool(_CARD_FLOW.search(card.text))
    return m.fast and m.own_strategy != "combo" and flows


def _late_against_combo(m: Matchup, card: CardFacts) -> bool:
    """A sorcery-speed card two or more mana above the deck's own curve (and 4+) against combo; a creature the
    deck puts onto the battlefield without casting it is not late."""
    late = card.mana_value >= max(4.0, m.own_curve + 2) and not COST_REDUCTION.search(card.text)
    cast = not (m.cheats_in and "creature" in card.types)
    sorcery_speed = not (card.has_flash or "instant" in card.types)
    return m.combo and late and cast and sorcery_speed


def _trick_against_combo(m: Matchup, card: CardFacts) -> bool:
    """A combat trick (a pump spell that answers nothing) against combo, unless the deck's creatures trigger on
    being targeted."""
    trick = not roles_of(card) and bool(TRICK.search(card.text))
    return m.combo and _spell(card) and trick and not m.tricks_matter


def _life_gain_against_slow(m: Matchup, card: CardFacts) -> bool:
    """Life gain that neither is a body nor moves cards (not a loot like Faithful Mending), against a deck that is
    not fast."""
    body = bool(card.types & {"creature", "planeswalker"})
    moves_cards = _CARD_FLOW.search(card.text) or _DISCARDS_OWN.search(card.text)
    roles = roles_of(card)
    only_life = bool(roles) and all(r.kind == "lifegain" for r in roles)
    return not m.fast and not body and not moves_cards and only_life


@dataclass(frozen=True)
class WeakHere:
    """Why a card that answers nothing is among the weakest in one kind of matchup: its test and its words."""

    test: Callable[[Matchup, CardFacts], bool]
    words: Callable[[Matchup, CardFacts], str]


WEAK_HERE: tuple[WeakHere, ...] = (
    WeakHere(
        _card_flow_against_fast,
        lambda m, _: f"card advantage that leaves the board alone, slow against {m.described()}",
    ),
    WeakHere(
        _late_against_combo,
        lambda m, c: (
            f"{c.mana_value:g} mana at sorcery speed (the deck averages {m.own_curve:.1f}), "
            f"late against {m.described()}"
        ),
    ),
    WeakHere(
        _trick_against_combo,
        lambda m, _: f"a combat trick, the least of the deck against {m.described()}: their game is not in combat",
    ),
    WeakHere(_life_gain_against_slow, lambda m, _: f"life gain does little against {m.described()}"),
)


# --- reading an opponent -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Opponent:
    """An opponent over a window: its lists, its key cards (mainboard first) and what roles are checked
    against (its key mainboard cards and key lands)."""

    name: str
    evidence: ArchetypeEvidence
    key_cards: list[KeyCard]
    targets: list[CardFacts]

    @property
    def lists(self) -> int:
        return self.evidence.lists


@dataclass(frozen=True)
class _KeyRow:
    name: str
    row: CardRow
    section: str


def _key_rows(evidence: ArchetypeEvidence) -> tuple[list[_KeyRow], list[str]]:
    """An opponent's key spells (in ``KEY_INCLUSION`` % of its lists or more, mainboard first, ``KEY_CARDS`` at
    most) and its key lands."""
    lands = set(evidence.stats.lands)
    rows = [_KeyRow(c, r, "mainboard") for c, r in evidence.rows("mainboard").items()]
    rows += [_KeyRow(c, r, "sideboard") for c, r in evidence.rows("sideboard").items()]
    spells = [k for k in rows if k.name not in lands and evidence.inclusion(k.row) >= KEY_INCLUSION]
    spells.sort(key=lambda k: (k.section != "mainboard", -k.row.decks, k.name))
    key_lands = [
        c for c, r in evidence.rows("mainboard").items() if c in lands and evidence.inclusion(r) >= KEY_INCLUSION
    ]
    return spells[:KEY_CARDS], key_lands


def _key_card(key: _KeyRow, lists: int, detail: Card | None) -> KeyCard:
    return KeyCard(
        name=key.name,
        inclusion_rate=pct(key.row.decks, lists),
        average_copies=round(key.row.copies / key.row.decks, 2),
        section=key.section,
        type_line=detail.type_line if detail else None,
        mana_cost=detail.mana_cost if detail else None,
        oracle_text=detail.oracle_text if detail else None,
        power=detail.power if detail else None,
        toughness=detail.toughness if detail else None,
        loyalty=detail.loyalty if detail else None,
        colors=detail.colors if detail else None,
    )


def read_opponents(ctx: CoachContext, fmt: str, names: list[str], start: str, end: str) -> dict[str, Opponent]:
    """Each opponent's key cards and targets: one Query per opponent, one card read for all of them; NotFound
    for an opponent without lists in the window."""
    found: dict[str, tuple[ArchetypeEvidence, list[_KeyRow], list[str]]] = {}
    for name in names:
        evidence = ctx.evidence(fmt, name, start, end)
        if not evidence.lists:
            raise NotFound(f"no {name} lists in {fmt} between {start} and {end}", field="opponent_archetype")
        found[name] = (evidence, *_key_rows(evidence))
    wanted = [c for _, rows, lands in found.values() for c in [*(r.name for r in rows), *lands]]
    details = ctx.cards.get_many([card_key(c) for c in wanted])
    out = {}
    for name, (evidence, rows, lands) in found.items():
        key_cards = [_key_card(k, evidence.lists, details.get(card_key(k.name))) for k in rows]
        targets = [facts_of_key(k) for k in key_cards if k.section == "mainboard"]
        targets += [CardFacts.of(details[card_key(c)]) for c in lands if card_key(c) in details]
        out[name] = Opponent(name, evidence, key_cards, targets)
    return out


def read_opponent(ctx: CoachContext, fmt: str, name: str, start: str, end: str) -> Opponent:
    return read_opponents(ctx, fmt, [name], start, end)[name]


def weights(key_cards: list[KeyCard]) -> dict[str, float]:
    """How much answering each of an opponent's key mainboard cards is worth: the share of its lists playing it."""
    return {k.name: k.inclusion_rate / 100 for k in key_cards if k.section == "mainboard"}


def their_knowledge(classifier: ArchetypeClassifier, fmt: str, opponent: Opponent) -> DeckKnowledge:
    """What a strong player knows of the opponent's deck: its playbook, else a profile of its key cards."""
    played = [
        PlayedCard(facts_of_key(k), k.inclusion_rate, k.average_copies)
        for k in opponent.key_cards
        if k.section == "mainboard"
    ]
    return knowledge_of(classifier, fmt, opponent.name, played, opponent.evidence)


def your_knowledge(
    classifier: ArchetypeClassifier, fmt: str, archetype: str, main: list[CardDetail], own: ArchetypeEvidence | None
) -> DeckKnowledge:
    """What a strong player knows of the player's archetype: its playbook, else a profile of the player's main
    deck read with the archetype's lists (each card's share and copies there)."""
    usage = own.main_usage if own is not None else {}
    played = [PlayedCard(facts_of_detail(c), *usage.get(card_key(c.name), (0.0, 0.0))) for c in main if not c.unknown]
    return knowledge_of(classifier, fmt, archetype, played, own)


def matchup_for(
    classifier: ArchetypeClassifier,
    fmt: str,
    opponent: Opponent,
    main: list[CardDetail],
    archetype: str = "",
    own: ArchetypeEvidence | None = None,
) -> Matchup:
    """The kind of matchup ``opponent`` makes for a deck of ``archetype`` whose main deck is ``main`` (``own``:
    the archetype's lists, for its computed profile and its playbook's freshness)."""
    cheats_in = any(facts_of_detail(c).puts_onto_battlefield for c in main if not is_land(c))
    tricks_matter = any(_TARGETED.search(c.oracle_text or "") for c in main if is_creature(c))
    theirs = their_knowledge(classifier, fmt, opponent)
    yours = your_knowledge(classifier, fmt, archetype, main, own) if archetype else None
    curve = mana_curve(main)
    return Matchup(
        theirs.role,
        opponent.targets,
        weights(opponent.key_cards),
        curve,
        cheats_in,
        tricks_matter,
        yours.role if yours is not None else "unknown",
        theirs,
        yours,
    )


def kills_own_board(facts: CardFacts, main: list[CardDetail]) -> bool:
    """Whether a sweeper among the card's roles kills half or more of the deck's own creatures (counted by
    copies, read by the rules like any target): Kozilek's Return's 2 damage spares an Eldrazi deck's big
    creatures, a Wrath does not."""
    sweepers = [i for i, role in enumerate(roles_of(facts)) if role.kind == "sweeper"]
    if not sweepers:
        return False
    own = [(facts_of_detail(c), c.quantity) for c in main if is_creature(c) and not c.unknown]
    killed = sum(n for creature, n in own if any(verdicts(facts, creature)[i] for i in sweepers))
    return 2 * killed >= sum(n for _, n in own)


def answers(card: CardDetail, matchup: Matchup, main: list[CardDetail] | None = None) -> dict[str, str]:
    """The opponent's key cards ``card`` answers by the rules, with how (the first way). With the user's
    ``main`` deck, a sweeper that would also kill the deck's own creatures (12 or more) does not count; a
    Blood Moon counts against a deck whose spells can all be cast with its colour only on the lands whose
    abilities that deck uses; a half that needs a colour spent (Firespout's "if {R} was spent") counts when the
    deck spends that colour."""
    facts = facts_of_detail(card)
    spare = own_creatures_from(main or []) if kills_own_board(facts, main or []) else None
    spent = frozenset(deck_colours(main)) if main else None
    colours = len(spent) if spent is not None else None
    skip_lands = matchup.moon_misses(facts)
    found = {
        t.name: ways[0]
        for t in matchup.targets
        if not (skip_lands and t.is_land and not matchup.land_plan(t))
        and (ways := answered_by(facts, t, spare, colours, spent))
    }
    return found | {name: how for name, how in _graveyard_plan_answers(facts, matchup).items() if name not in found}


def _graveyard_plan_answers(facts: CardFacts, matchup: Matchup) -> dict[str, str]:
    """Graveyard hate against a deck whose playbook names its graveyard plan: the plan's key cards are what it
    answers, from the graveyard (Surgical Extraction on the Atraxa an Entomb put there); a whole graveyard at
    once (Bojuka Bog, Leyline of the Void) says so."""
    theirs = matchup.theirs
    if theirs is None or not theirs.graveyard or "graveyard" not in {r.kind for r in roles_of(facts)}:
        return {}
    reach = profile_of(facts).casting.graveyard_hate
    how = "exiles their whole graveyard" if reach & {"all", "ongoing"} else "exiles it from their graveyard"
    plan = {card_key(name) for name in theirs.graveyard}
    return {t.name: f"{how} (their graveyard plan)" for t in matchup.targets if card_key(t.name) in plan}


def their_choice(card: CardDetail, matchup: Matchup) -> bool:
    """Whether ``card`` reaches their key spells only as they choose (an edict against a creature deck, "target
    player discards" against a spell deck): never an answer to one card, but never dead either."""
    facts = facts_of_detail(card)
    return any(v.outcome == "choice" for t in matchup.targets if not t.is_land for v in verdicts(facts, t))


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
