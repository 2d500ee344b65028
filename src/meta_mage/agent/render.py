"""The blocks an answer is made of, and the one renderer that writes them as markdown.

Task writers (``agent/tasks``) return an :class:`Answer`: paragraphs and tables, typed. ``Answer.markdown`` is
the text the page, the terminal and the model's data all get; ``Answer.tables`` is what LLM mode shows after the
model's prose (each table with the paragraph that introduces it), picked from the blocks, not from the text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Paragraph:
    """A piece of text: a sentence or more, a heading line, a list (its lines joined by newlines)."""

    text: str

    def markdown(self) -> str:
        return self.text

    @property
    def introduces_a_table(self) -> bool:
        """Text that ends on a colon (and holds no cell edge) says what the table under it is."""
        return self.text.rstrip().endswith(":") and "|" not in self.text


@dataclass(frozen=True)
class Table:
    """A table: its column headings and its rows, each row one cell per column (cells are markdown already)."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...] = ()

    def markdown(self) -> str:
        lines = [table_row(self.columns), "|---" * len(self.columns) + "|", *(table_row(row) for row in self.rows)]
        return "\n".join(lines)


def table_row(cells: Sequence[str]) -> str:
    """One row of a table as markdown."""
    return "| " + " | ".join(cells) + " |"


Block = Paragraph | Table


@dataclass(frozen=True)
class Answer:
    """An answer as blocks, in order; rendered late (``markdown``)."""

    blocks: tuple[Block, ...] = ()

    @classmethod
    def of(cls, *parts: str | Block | Answer) -> Answer:
        """The parts in order: text is a paragraph ("" is left out), an answer gives its blocks."""
        blocks: list[Block] = []
        for part in parts:
            if isinstance(part, Answer):
                blocks += part.blocks
            elif isinstance(part, str):
                blocks += [Paragraph(part)] if part else []
            else:
                blocks.append(part)
        return cls(tuple(blocks))

    def __add__(self, other: Answer) -> Answer:
        return Answer(self.blocks + other.blocks)

    def __bool__(self) -> bool:
        return any(block.markdown() for block in self.blocks)

    def markdown(self) -> str:
        """The answer as markdown: its blocks, a blank line between two."""
        return "\n\n".join(block.markdown() for block in self.blocks)

    def tables(self) -> Answer:
        """The answer's tables, each after the paragraph that introduces it (when one does)."""
        kept: list[Block] = []
        for index, block in enumerate(self.blocks):
            if isinstance(block, Table):
                before = self.blocks[index - 1] if index else None
                if isinstance(before, Paragraph) and before.introduces_a_table:
                    kept.append(before)
                kept.append(block)
        return Answer(tuple(kept))


@dataclass(frozen=True)
class Item:
    """One item of a list, for ``compose``: items in a row are one list, under the text line just before them."""

    text: str

    def markdown(self) -> str:
        return f"- {self.text}"


Line = str | Item | Table  # what a writer composes an answer of


def compose(lines: Iterable[Line]) -> Answer:
    """A writer's lines as blocks: a blank line ends a paragraph, a table is a block of its own, and text after a
    list starts a new paragraph (so a sentence never runs on into the list item above it)."""
    blocks: list[Block] = []
    current: list[str] = []
    blank_before = True  # a blank line first is kept as written
    in_list = False
    for line in lines:
        if isinstance(line, Table):
            blocks += [Paragraph("\n".join(current))] if current else []
            blocks.append(line)
            current, blank_before, in_list = [], False, False
            continue
        if isinstance(line, str) and not line:
            if current:
                blocks.append(Paragraph("\n".join(current)))
                current = []
            elif blank_before:  # a second blank line in a row is kept as written
                current.append("")
            blank_before, in_list = True, False
            continue
        is_item = isinstance(line, Item)
        if current and in_list and not is_item:
            blocks.append(Paragraph("\n".join(current)))
            current = []
        current.append(line.markdown() if isinstance(line, Item) else line)
        blank_before, in_list = False, is_item
    if current:
        blocks.append(Paragraph("\n".join(current)))
    return Answer(tuple(blocks))
