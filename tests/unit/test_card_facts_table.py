"""The card reader against an independent table of real cards and their facts (``card_facts.csv``).

How the table was written: for each card the oracle text was read from the shared corpus
(``shared/data/cards/oracle_corpus.json.gz``) and every column was decided by hand by the rules, as a strong
player reads the card: its colour (Devoid is colourless, lands are colourless unless a colour indicator says
otherwise), its kind (the first of land, interaction, mana, threat, card flow, other that applies), whether it
has hexproof or shroud itself, what it has protection from, its ward cost, which abilities of opponents' cards
it stops and whether it has sunburst, converge or an {X} in its cost; and seven casting columns (each a set of
words, ``card_rules.casting.COLUMNS``): what its effect depends on in how it is cast (``cast_condition``), how it is
cast for no mana (``free_cast``), what it does to opponents' graveyards (``graveyard_hate``: all, some, ongoing) and
with its own (``graveyard_use``), its fast mana, what it puts onto the battlefield uncast and from where
(``cheat_from``), and how its cost is lowered or replaced (``cost``). The ``why`` column quotes the words that
decided the columns that are not obvious. No column was filled in from this project's output, so a row that
fails here is a disagreement between the reader and the rules text, not a copy of the reader's own answer.

Where the corpus cannot decide a column, the table still says what the rules say (the corpus keeps only a
card's front face, so an adventure's spell, a Room's second door or a transformed face is not in its text,
and it has no colour indicators); those rows are in ``DATA_GAPS`` and expected to differ until the data has
what they need.

The cards are the most played ones (main and side) of the five most played archetypes of every format in the
bundled tournament data, as the archetype rules name them, and cards picked for their edges: Devoid, Spirit
Guides, colour hosers, sunburst and converge, graveyard hate, ability stoppers, hexproof, protection and ward.

Parts of the table written beside it (``card_facts_*.csv``, same header) are read with it until they are merged:
their casting columns are checked here, every column is measured by ``bench/card_coverage.py``.
"""

from __future__ import annotations

import csv
import json
import re
import tarfile
from collections import Counter, defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from meta_mage.archetypes.classifier import ArchetypeClassifier
from meta_mage.card_rules.casting import COLUMNS as CASTING_COLUMNS
from meta_mage.card_rules.casting import casting_of
from meta_mage.card_rules.facts import COLOUR_NAMES, CardFacts
from meta_mage.card_rules.profile import profile_of
from meta_mage.config import DEMO_DATA_DIR
from meta_mage.models.cards import card_key
from tests.conftest import SHARED_DATA
from tests.unit.test_card_answers_table import corpus

TABLE = Path(__file__).with_name("card_facts.csv")
PARTS = "card_facts_*.csv"  # parts written beside the table, read with it until they are merged
CORPUS = SHARED_DATA / "cards" / "oracle_corpus.json.gz"
WUBRG = "WUBRG"
KINDS = ("land", "interaction", "mana", "threat", "card_flow", "other")
STOPS = ("triggered", "activated", "static", "mana")
X_RULES = ("", "sunburst", "converge", "x")
GROUPS = ("colour", "kind", "targeting", "stops", "x_rule", "casting")
PART_GROUPS = ("casting",)  # the groups checked on the rows of the unmerged parts
TOP_ARCHETYPES = 5  # the most played archetypes of each bundled format...
TOP_CARDS = 15  # ...and the most played cards (main and side copies) of each
NAMED = (
    "Eldrazi Linebreaker",
    "Eldrazi Obligator",
    "Simian Spirit Guide",
    "Hydroblast",
    "Blood Moon",
    "Engineered Explosives",
    "Prismatic Ending",
    "Consign to Memory",
    "Sorcerous Spyglass",
    "Pithing Needle",
    "Null Rod",
    "Manamorphose",
    "Grab the Prize",
    "Highway Robbery",
    "Expressive Iteration",
    "Treasure Cruise",
    "Surgical Extraction",
    "Fatal Push",
    "Wrath of the Skies",
    "Force of Despair",
    "Fable of the Mirror-Breaker",
    "Urza's Saga",
    "Sacred Foundry",
    "Snow-Covered Mountain",
    "Dress Down",
    "Torpor Orb",
    "Tishana's Tidebinder",
)
_FRONT_ONLY = "the corpus holds only the front face's text"
_NO_INDICATOR = "the corpus has no colour indicator and no colours field, only the mana cost"
# (card, column group) the card data cannot decide: the table gives the rules' answer, the reader cannot see it.
DATA_GAPS = {
    ("Ajani, Nacatl Pariah // Ajani, Nacatl Avenger", "kind"): _FRONT_ONLY + " (the back face pings and edicts)",
    ("Brazen Borrower // Petty Theft", "kind"): _FRONT_ONLY + " (Petty Theft bounces)",
    ("Bonecrusher Giant // Stomp", "kind"): _FRONT_ONLY + " (Stomp deals 2 damage to any target)",
    ("Unholy Annex // Ritual Chamber", "kind"): _FRONT_ONLY + " (Ritual Chamber makes a 6/6 Demon)",
    ("Dryad Arbor", "colour"): _NO_INDICATOR,
    ("Living End", "colour"): _NO_INDICATOR,
    ("Ancestral Vision", "colour"): _NO_INDICATOR,
    ("Pact of Negation", "colour"): _NO_INDICATOR,
    ("Consign // Oblivion", "casting"): _FRONT_ONLY + " (Oblivion has aftermath: cast from the graveyard)",
    ("Claim // Fame", "casting"): _FRONT_ONLY + " (Fame has aftermath: cast from the graveyard)",
    ("Life // Death", "casting"): _FRONT_ONLY + " (Death returns a creature card from your graveyard)",
    ("Virtue of Strength // Garenbrig Growth", "casting"): _FRONT_ONLY + " (Garenbrig Growth returns a card)",
    ("Bloomvine Regent // Claim Territory", "casting"): _FRONT_ONLY + " (Claim Territory fetches a land)",
    ("Kellan, Inquisitive Prodigy // Tail the Suspect", "casting"): _FRONT_ONLY + " (Tail the Suspect: a land)",
    ("Stormshriek Feral // Flush Out", "casting"): _FRONT_ONLY + " (Flush Out discards a card)",
    ("Seize the Storm", "casting"): "the token's graveyard count is in quotes, an ability the card grants",
    (
        "Rain of Filth",
        "casting",
    ): 'its mana is an ability in quotes it grants to lands ("Sacrifice this land: Add {B}")',
}
# Rows of the table's parts where the reader and the table differ and the table is, by the rules text or by
# another row with the same words, in doubt: expected to differ until the row is reconsidered.
TABLE_IN_DOUBT = {
    ("Cabal Therapy", "casting"): 'free_cast: "Flashback—Sacrifice a creature" casts it for no mana (as Lava Dart)',
    ("Gaea's Blessing", "casting"): "graveyard_hate: the same words as Memory's Journey, whose row says some",
    ("Memory's Journey", "casting"): "graveyard_use: the same words as Gaea's Blessing, whose row says regrow",
    ("Uro, Titan of Nature's Wrath", "casting"): 'cast_condition: "unless it escaped", how_cast for Kroxa and Phlage',
    ("Valgavoth, Terror Eater", "casting"): 'cost: "pay life ... rather than pay its mana cost", others for Bolas\'s '
    "Citadel",
    ("Ugin, the Spirit Dragon", "casting"): "cheat_from: −10 puts permanent cards from your hand onto the battlefield",
    ("Jack-o'-Lantern", "casting"): "fast_mana: {1} for one mana is a filter (Arcum's Astrolabe's row says no rock)",
    ("Voyaging Satyr", "casting"): 'fast_mana: "{T}: Untap target land", a dork for Arbor Elf\'s row',
    ("Ojer Axonil, Deepest Might // Temple of Power", "casting"): "cheat_from: returns transformed into a land, no "
    "cheat for Aclazotz's row",
    ("Six", "casting"): "graveyard_use: a card taken from among milled ones is fill, not regrow, in five other rows",
    ("Smuggler's Surprise", "casting"): "graveyard_use: a card taken from among milled ones is fill, not regrow",
    ("Brain Freeze", "casting"): 'graveyard_use: "Target player mills" aimed at no one in particular is not fill '
    "in the rows of Book Burning and Grindstone",
    ("Riverchurn Monument", "casting"): 'graveyard_use: "any number of target players each mill" is not fill in '
    "Tinybones Joins Up's row",
    ("Scavenger's Talent", "casting"): 'graveyard_use: "target player mills two cards", as Brain Freeze',
}
# Rows the reader still gets wrong, with what it misses.
READER_MISSES = {
    ("Lazotep Quarry", "casting"): "graveyard_use: exiling a creature card from the graveyard to copy it is not read",
    ("The Restoration of Eiganjo // Architect of Restoration", "casting"): "fast_mana: the permanent card it "
    "returns can be a land",
}


def table_files() -> list[Path]:
    """The table and the parts written beside it."""
    return [TABLE, *sorted(TABLE.parent.glob(PARTS))]


@cache
def rows() -> list[dict[str, str]]:
    """Every row of the table and its parts (a row left half-written, without its card, is skipped); each row
    knows its file (``"file"``)."""
    found = []
    for path in table_files():
        with path.open(encoding="utf-8") as file:
            found += [{**row, "file": path.name} for row in csv.DictReader(file) if row.get("card")]
    return found


def card(name: str) -> CardFacts:
    found = corpus().get(name.casefold())
    assert found is not None, f"{name!r} is not a card name of the corpus (the table uses its exact names)"
    return found


def _protection_words(value: str) -> set[str]:
    """The table's protection words as the reader spells them: colour letters, "everything", else the words."""
    return {COLOUR_NAMES.get(part, part) for part in (p.strip() for p in value.split(";")) if part}


def _ward(value: str | None) -> str:
    return re.sub(r"\s+", " ", value or "").strip().casefold()


def _split(value: Any) -> set[str]:
    if value is None:
        return set()
    if isinstance(value, str):
        return {v.strip() for v in value.split(";") if v.strip()}
    return {str(v) for v in value}


def expected(row: dict[str, str], group: str) -> dict[str, Any]:
    """What the table says for one column group, in the form the reader's answer is compared in."""
    if group == "colour":
        return {"colours": row["colours"]}
    if group == "kind":
        return {"kind": row["kind"]}
    if group == "targeting":
        return {
            "hexproof": row["hexproof"] == "y",
            "protection": _protection_words(row["protection"]),
            "ward": _ward(row["ward"]),
        }
    if group == "stops":
        return {"stops": _split(row["stops"])}
    if group == "casting":
        return {column: _split(row.get(column)) for column in CASTING_COLUMNS}
    return {"x_rule": row["x_rule"]}


def got(facts: CardFacts, group: str) -> dict[str, Any]:
    """What the reader says for one column group."""
    if group == "colour":
        return {"colours": "".join(c for c in WUBRG if c in facts.colours) or "C"}
    if group == "targeting":
        return {
            "hexproof": facts.hexproof,
            "protection": set(facts.protection_from),
            "ward": _ward(facts.ward),
        }
    if group == "casting":
        casting = casting_of(facts)
        return {column: _split(casting.column(column)) for column in CASTING_COLUMNS}
    profile = profile_of(facts)
    if group == "kind":
        return {"kind": str(profile.kind)}
    if group == "stops":
        return {"stops": _split(profile.stops)}
    return {"x_rule": profile.x_rule or ""}


def _cases() -> list[Any]:
    cases = []
    expected_to_differ = {**DATA_GAPS, **TABLE_IN_DOUBT, **READER_MISSES}
    for row in rows():
        for group in GROUPS if row["file"] == TABLE.name else PART_GROUPS:
            gap = expected_to_differ.get((row["card"], group))
            marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
            cases.append(pytest.param(row, group, marks=marks, id=f"{row['card']}-{group}"))
    return cases


@pytest.mark.parametrize(("row", "group"), _cases())
def test_the_reader_agrees_with_the_table(row: dict[str, str], group: str) -> None:
    # Given a card of the table and one group of its columns, When the reader reads the card's rules text,
    # Then it says what the table says (the table's reason is shown when it does not)
    want = expected(row, group)
    have = got(card(row["card"]), group)
    wrong = [column for column in want if want[column] != have[column]]
    assert not wrong, (
        "; ".join(f"{row['card']}: column {column} expected {want[column]!r}, got {have[column]!r}" for column in wrong)
        + f" (why: {row['why']})"
    )


def test_the_table_is_well_formed() -> None:
    # Given the table and its parts, Then every row names a corpus card once, every casting column holds its words
    # in their order, and every column of the table holds one of its allowed values
    names = [row["card"] for row in rows()]
    assert len(names) == len(set(names)), [n for n, c in Counter(names).items() if c > 1]
    for row in rows():
        card(row["card"])
        assert row["why"].strip(), row
        for column, words in CASTING_COLUMNS.items():
            found = _split(row.get(column))
            assert found <= set(words), (row["card"], column, found - set(words))
            assert not found or (row.get(column) or "").split(";") == [w for w in words if w in found], row
    for row in (r for r in rows() if r["file"] == TABLE.name):
        colours = row["colours"]
        assert colours == "C" or (colours and "".join(c for c in WUBRG if c in colours) == colours), row
        assert row["kind"] in KINDS, row
        assert row["hexproof"] in ("y", "n"), row
        stops = row["stops"].split(";") if row["stops"] else []
        assert stops == [s for s in STOPS if s in stops], row
        assert "mana" not in stops or "activated" in stops, row
        assert row["x_rule"] in X_RULES, row
        assert row["protection"] == row["protection"].lower(), row
    for gap in (*DATA_GAPS, *TABLE_IN_DOUBT, *READER_MISSES):
        assert gap[1] in GROUPS, gap


def _bundled_top_cards() -> dict[str, set[str]]:
    """Per bundled format, the most played cards (by key) of its most played archetypes."""
    classifier = ArchetypeClassifier(DEMO_DATA_DIR / "archetypes")
    decks: dict[str, list[tuple[dict[str, int], dict[str, int]]]] = defaultdict(list)
    with tarfile.open(DEMO_DATA_DIR / "tournaments.tar.gz") as archive:
        for member in archive.getmembers():
            file = archive.extractfile(member) if member.isfile() else None
            if file is None:
                continue
            document = json.loads(file.read())
            fmt = str(document.get("Tournament", {}).get("Formats") or "").strip()
            for deck in document.get("Decks") or []:
                main = {e["CardName"]: int(e["Count"]) for e in deck.get("Mainboard") or []}
                side = {e["CardName"]: int(e["Count"]) for e in deck.get("Sideboard") or []}
                if fmt and main:
                    decks[fmt].append((main, side))
    top: dict[str, set[str]] = {}
    for fmt, lists in decks.items():
        archetypes: Counter[str] = Counter()
        copies: dict[str, Counter[str]] = defaultdict(Counter)
        for main, side in lists:
            archetype = classifier.classify(fmt, main, side).archetype
            archetypes[archetype] += 1
            for name, count in [*main.items(), *side.items()]:
                copies[archetype][card_key(name)] += count
        top[fmt] = {
            key
            for archetype, _ in archetypes.most_common(TOP_ARCHETYPES)
            for key, _ in copies[archetype].most_common(TOP_CARDS)
        }
    return top


def test_the_table_covers_the_bundled_formats_top_decks() -> None:
    # Given the bundled tournaments, When each format's five most played archetypes and their most played
    # cards are taken, Then the table holds 300+ distinct cards and every one of those that the corpus knows
    table = {card_key(row["card"]) for row in rows()}
    assert len(table) >= 300
    known = {card_key(c.name) for c in corpus().values()}
    top = _bundled_top_cards()
    assert {"Modern", "Pioneer", "Legacy", "Pauper", "Standard", "Vintage"} <= set(top), sorted(top)
    missing = {fmt: sorted((keys & known) - table) for fmt, keys in top.items()}
    assert not any(missing.values()), missing
    for name in NAMED:
        assert card_key(name) in table, name
    by_name = {row["card"]: row for row in rows()}
    creatures = [r for n, r in by_name.items() if "creature" in card(n).types]
    assert any(r["hexproof"] == "y" for r in creatures)
    assert any(r["protection"] for r in creatures)
    assert any(r["ward"] for r in creatures)
