"""A name from data is plain text wherever an answer writes it: ``name_markdown`` escapes what markdown would read
as markup and removes bidi and invisible characters, and every offline answer writer uses it (each is run on a
real tool result whose names are replaced by hostile ones, and its markdown rendered as CommonMark with tables)."""

from __future__ import annotations

import gzip
import html
import json
import re
from typing import Any

import pytest
from markdown_it import MarkdownIt
from pydantic import BaseModel

from meta_mage.agent.state import ConversationState, Route
from meta_mage.agent.tasks import TASKS
from meta_mage.agent.tasks.task import Results
from meta_mage.config import DEMO_DATA_DIR
from meta_mage.models.name_text import INVISIBLE_RANGES, name_markdown, without_invisible

MARKDOWN = MarkdownIt("commonmark").enable(["table", "strikethrough"])

HOSTILE_NAMES = [
    "**Bold** and *em* and __under__ _x_",
    "[Claim prize](/\\evil.example/prize)",
    "[r]: //evil.example",
    "<https://evil.example/a> <b>tag</b> <img src=x>",
    "`code` ~~struck~~ a|b|c",
    "# heading",
    "- list item",
    "+ plus item",
    "1. ordered",
    "2) ordered",
    "> quote",
    "***",
    "&#47;&#47;evil &amp; &sol;",
    "back\\slash\\",
    "![pic](https://evil.example/i.png)",
]
# Where an answer writes a name: a sentence, bold, a list item's start, a table cell.
CONTEXTS = [
    "Played by NAME today.",
    "**NAME** (2025-11-01)",
    "- NAME: taken",
    "| # | Name |\n|---|---|\n| 1 | NAME |",
    "NAME\n\nSee [r].",  # a paragraph's start, where a link reference can be defined
]


def rendered(markdown: str) -> str:
    return str(MARKDOWN.render(markdown))


@pytest.mark.parametrize("name", HOSTILE_NAMES)
@pytest.mark.parametrize("context", CONTEXTS)
def test_a_name_renders_as_the_text_it_is_wherever_it_is_written(name: str, context: str) -> None:
    # Given a context rendered with a placeholder, When the escaped name takes its place
    expected = rendered(context).replace("NAME", html.escape(name, quote=False))
    # Then the HTML is the context's with the name as text: no tag, link or entity of its own
    assert rendered(context.replace("NAME", name_markdown(name))).replace("&quot;", '"') == expected


def test_every_hostile_name_made_markup_before() -> None:
    """The cases are real: unescaped, each renders as something other than its text in some context."""
    for name in HOSTILE_NAMES:
        as_text = [rendered(c).replace("NAME", html.escape(name, quote=False)) for c in CONTEXTS]
        raw = [rendered(c.replace("NAME", name)).replace("&quot;", '"') for c in CONTEXTS]
        assert raw != as_text, name


@pytest.mark.parametrize(("low", "high", "what"), INVISIBLE_RANGES)
def test_bidi_and_invisible_characters_are_removed(low: str, high: str, what: str) -> None:
    for code in range(ord(low), ord(high) + 1):
        assert name_markdown(f"Ali{chr(code)}ce Reversed") == "Alice Reversed", what
        assert without_invisible(f"x{chr(code)}y") == "xy"


def test_line_breaks_and_controls_become_one_space() -> None:
    assert name_markdown("Lightning\n\nBolt\r\n\t x\x00y\u2028z") == "Lightning Bolt x y z"


def test_real_names_are_written_as_they_are() -> None:
    """Every card name of the bundled corpus renders as itself, and almost none changes even in the raw markdown."""
    cards = json.loads(gzip.decompress((DEMO_DATA_DIR / "cards.json.gz").read_bytes()))
    names = [card["name"] for card in cards]
    changed = [name for name in names if name_markdown(name) != name]
    for name in changed:
        assert rendered(name_markdown(name)) == rendered(html.escape(name, quote=False).replace("&", "&amp;")) or (
            html.unescape(re.sub(r"<[^>]+>", "", rendered(name_markdown(name)))).strip() == " ".join(name.split())
        ), name
    assert len(names) > 1000 and len(changed) <= len(names) // 100, changed[:20]


# --- every writer of an offline answer, on real results -----------------------------------------------------

HOSTILE = " **Bold** [Claim](/\\evil.example/x) \u202eRev"
SHOWN = " **Bold** [Claim](/\\evil.example/x) Rev"


def _replaced(value: Any, names: set[str]) -> Any:
    """``value`` (a dumped model) with every string equal to one of ``names`` made hostile."""
    if isinstance(value, str):
        return value + HOSTILE if value in names else value
    if isinstance(value, list):
        return [_replaced(item, names) for item in value]
    if isinstance(value, dict):
        return {key: _replaced(item, names) for key, item in value.items()}
    return value


def _hostile(output: BaseModel, names: set[str]) -> BaseModel:
    return type(output).model_validate(_replaced(output.model_dump(), names))


def _run(world: dict[str, Any], tool: str, **arguments: Any) -> BaseModel:
    output: BaseModel = world["registry"].run(tool, arguments, world["context"])
    return output


@pytest.fixture(scope="module")
def modern(modern_world: dict[str, Any]) -> dict[str, Any]:
    """Real names of the demo Modern data: the two most played archetypes and a key card of the first."""
    rankings = _run(modern_world, "get_format_meta_rankings", format="Modern")
    first, second = (row.name for row in rankings.rows[:2])  # type: ignore[attr-defined]
    page = _run(modern_world, "get_archetype_page", format="Modern", archetype=first)
    card = page.aggregate.mainboard[0].name  # type: ignore[attr-defined]
    deck = _run(modern_world, "get_enriched_deck", deck=page.best_finish.text)  # type: ignore[attr-defined]
    stats = _run(modern_world, "get_deck_matchup_stats", format="Modern", archetype=first)
    return {
        "world": modern_world,
        "first": first,
        "second": second,
        "card": card,
        "card_details": [c.model_dump(mode="json") for c in deck.card_details],  # type: ignore[attr-defined]
        "matchup_stats": stats.model_dump(mode="json"),
    }


WRITERS: list[tuple[str, str, dict[str, Any]]] = [  # task, tool, its arguments
    ("rankings", "get_format_meta_rankings", {"format": "Modern"}),
    ("archetypes", "get_format_archetypes", {"format": "Modern"}),
    ("matchups", "get_format_matchup_stats", {"format": "Modern"}),
    ("recommend", "get_format_matchup_stats", {"format": "Modern"}),
    ("deck_matchups", "get_deck_matchup_stats", {"format": "Modern", "archetype": "{first}"}),
    ("archetype_page", "get_archetype_page", {"format": "Modern", "archetype": "{first}"}),
    ("card_question", "get_card_evidence", {"format": "Modern", "card": "{card}", "opponent_archetype": "{first}"}),
    (
        "strategy",
        "generate_deck_matchup_strategy",
        {
            "format": "Modern",
            "archetype": "{first}",
            "opponent_archetype": "{second}",
            "card_details": "card_details",
            "matchup_stats": "matchup_stats",
        },
    ),
    (
        "optimize_mainboard",
        "optimize_mainboard",
        {"format": "Modern", "archetype": "{first}", "card_details": "card_details"},
    ),
    (
        "optimize_sideboard",
        "optimize_sideboard",
        {"format": "Modern", "archetype": "{first}", "card_details": "card_details"},
    ),
    ("list_drafts", "list_drafts", {}),
    ("draft_pool", "get_draft_pool", {"draft_id": "tarkir", "include_draft_results": True}),
]


def _filled(arguments: dict[str, Any], modern: dict[str, Any]) -> dict[str, Any]:
    """The arguments with ``{first}``, ``{second}`` and ``{card}`` filled; a value naming a fixture is its value."""
    names = {key: modern[key] for key in ("first", "second", "card")}
    fixtures = ("card_details", "matchup_stats")
    return {
        k: (modern[v] if v in fixtures else v.format(**names)) if isinstance(v, str) else v
        for k, v in arguments.items()
    }


def _names_in(output: BaseModel, modern: dict[str, Any]) -> set[str]:
    """The names to make hostile: the archetypes and the card, the drafts' names, their drafters and cards."""
    dumped = json.dumps(output.model_dump(mode="json"))
    found = {modern["first"], modern["second"], modern["card"]}
    found |= set(re.findall(r'"(?:draft_name|card_name|drafted_by)": "([^"]+)"', dumped))
    return {name for name in found if name != "[REDACTED]"}


@pytest.mark.parametrize(("task", "tool", "arguments"), WRITERS, ids=[w[0] for w in WRITERS])
def test_each_writer_writes_names_as_plain_text(
    modern: dict[str, Any], task: str, tool: str, arguments: dict[str, Any]
) -> None:
    # Given a real result whose names are followed by markdown, a link and a bidi override
    output = _run(modern["world"], tool, **_filled(arguments, modern))
    hostile = _hostile(output, _names_in(output, modern))
    question = f"what about {modern['first']} against {modern['second']}"
    # When the task's writer answers from it
    answer = TASKS[task].writer(Route(question=question), ConversationState(), Results([hostile])).markdown()
    page = rendered(answer)
    # Then the names are there as written, and none made a link, emphasis or a reversed line
    assert SHOWN.strip() in html.unescape(re.sub(r"<[^>]+>", "", page)), answer[:600]
    assert "<a " not in page and "<strong>Bold</strong>" not in page and "\u202e" not in answer


def test_a_tool_error_quoting_a_name_is_plain_text_in_the_offline_answer() -> None:
    from langchain_core.messages import ToolMessage

    from meta_mage.agent.offline import answer

    error = ToolMessage(content=f"unknown archetype '{HOSTILE.strip()}'", tool_call_id="1", status="error")
    page = rendered(answer("rankings", Route(), ConversationState(), [error]).markdown())
    assert "<a " not in page and "<strong>Bold</strong>" not in page and "\u202e" not in page


def test_a_quoted_table_row_keeps_a_name_holding_a_pipe_in_one_cell() -> None:
    from meta_mage.agent.explain import _subject

    assert _subject(("1", name_markdown("Boros | Energy"), "53.1%")) == "Boros \\| Energy"
