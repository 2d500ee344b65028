"""The README and docs/ stay navigable: every relative link and image resolves, anchors name real headings,
the README stays short, and no page in docs/ is an orphan.

Plain regexes over Markdown (standard library only): fenced code blocks and inline code are skipped, and so
are links to other sites (http, https, mailto). Anchors follow GitHub's rules: the heading's text in
lowercase, punctuation other than hyphens and underscores dropped, spaces turned into hyphens, and a repeated
heading numbered -1, -2, ...
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
README_MAX_LINES = 200

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
# [text](target) or ![alt](target), with an optional "title"; the text may hold one level of brackets
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
EXTERNAL = re.compile(r"^(?:https?:|mailto:)", re.IGNORECASE)


def pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """The file's lines outside fenced code blocks, numbered from 1."""
    lines: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
        elif fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
        else:
            lines.append((number, line))
    return lines


def prose_text(path: Path) -> list[str]:
    """Every line of the file, with fenced code blocks blanked (so line numbers stay)."""
    kept = dict(prose_lines(path))
    count = len(path.read_text(encoding="utf-8").splitlines())
    return [kept.get(number, "") for number in range(1, count + 1)]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading keeps only its text
    text = text.strip().lower()
    kept = "".join(
        c for c in text if c in " -_" or unicodedata.category(c)[0] in "LMN" or unicodedata.category(c) == "Pc"
    )
    return kept.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    seen: dict[str, int] = {}
    found: set[str] = set()
    for _, line in prose_lines(path):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return frozenset(found)


def links(path: Path) -> list[tuple[int, str]]:
    """(line, target) of every relative link and image outside code; a link's text may wrap onto the next line."""
    text = "\n".join(INLINE_CODE.sub("``", line) for line in prose_text(path))
    found: list[tuple[int, str]] = []
    for match in LINK.finditer(text):
        target = match.group(1)
        if target and not EXTERNAL.match(target):
            found.append((text.count("\n", 0, match.start()) + 1, target))
    return found


def shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def problem(page: Path, target: str) -> str | None:
    """Why a link from page to target is broken, or None."""
    file_part, _, anchor = target.partition("#")
    resolved = (page.parent / unquote(file_part)).resolve() if file_part else page
    if not resolved.exists():
        return f"{shown(resolved)} does not exist"
    if anchor and resolved.suffix.lower() == ".md" and unquote(anchor) not in anchors(resolved):
        return f"no heading with the anchor #{anchor} in {shown(resolved)}"
    return None


def test_the_pages_are_found() -> None:
    assert README.is_file()
    assert (DOCS / "README.md").is_file()
    assert len(pages()) > 2


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_image_resolves(page: Path) -> None:
    broken = [
        f"{page.relative_to(ROOT)}:{number}: ({target}) {why}"
        for number, target in links(page)
        if (why := problem(page, target)) is not None
    ]
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_readme_is_short() -> None:
    count = len(README.read_text(encoding="utf-8").splitlines())
    assert count <= README_MAX_LINES, f"README.md has {count} lines (at most {README_MAX_LINES}): move detail to docs/"


def test_every_docs_page_is_linked_from_the_readme_or_the_docs_index() -> None:
    linked: set[Path] = set()
    for index in (README, DOCS / "README.md"):
        for _, target in links(index):
            file_part = target.partition("#")[0]
            if file_part:
                linked.add((index.parent / unquote(file_part)).resolve())
    orphans = [str(page.relative_to(ROOT)) for page in sorted(DOCS.glob("*.md")) if page.resolve() not in linked]
    assert not orphans, f"not linked from README.md or docs/README.md: {orphans}"


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("Is this card good? (`get_card_evidence`)", "is-this-card-good-get_card_evidence"),
        ("Keeping data current: the daily sync", "keeping-data-current-the-daily-sync"),
        ("HTTP API (`src/meta_mage/api/`)", "http-api-srcmeta_mageapi"),
        ("What answers what (`card_rules/`) and one rule", "what-answers-what-card_rules-and-one-rule"),
        ("Worst-case requests", "worst-case-requests"),
        ("See [the page](other.md) now", "see-the-page-now"),
        ("Déjà vu — 100 %", "déjà-vu--100-"),
    ],
)
def test_anchor_rules_match_github(heading: str, anchor: str) -> None:
    assert slug(heading) == anchor


def test_links_in_code_are_not_links(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        '[a](a.md) `[b](b.md)` ![c](img/c.png "C")\n'
        "```\n[d](d.md)\n```\n"
        "[e](https://example.com) [f](mailto:x@example.com) [g](#local) [a link whose\ntext wraps](h.md)\n",
        encoding="utf-8",
    )
    assert links(page) == [(1, "a.md"), (1, "img/c.png"), (5, "#local"), (5, "h.md")]
