"""Check, then show: the model's answer held back a sentence (or a table row) at a time and checked against the
turn's tool results (``agent/grounding.py``) before the reader sees it.

A sentence whose figures all match goes out unchanged, so an honest answer arrives byte for byte as the model
wrote it, each sentence as soon as the model has finished it. A figure no result holds is struck through and
marked where it stands (``~~61.2%~~ ⚠ *not in the data*``): the reader never sees an unmarked wrong figure.
Sentences are cut where ``grounding`` cuts them (``grounding.sentence_ends``: after ``.``, ``;``, ``!`` or ``?``
and a space, or at a line break, never inside parentheses nor after "e.g."), so a sentence is held to the
figures of the things it names exactly as the whole-answer check holds it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from meta_mage.agent.grounding import Facts, Unmatched, sentence_ends, unmatched_figures

NOT_IN_THE_DATA = "⚠ *not in the data*"


def marked(figure: str) -> str:
    """How a figure no tool result holds is shown."""
    return f"~~{figure}~~ {NOT_IN_THE_DATA}"


class CheckedStream:
    """Feed it the model's text as it streams; it gives back what may be shown, checked.

    ``facts`` are the turn's tool results (and what the player said); ``names`` the format's archetype names, so a
    sentence naming one is held to that archetype's own figures.
    """

    def __init__(self, facts: Facts, names: Iterable[str] = ()) -> None:
        self._facts = facts
        self._names = list(names)
        self._held = ""
        self.misses: list[Unmatched] = []
        self.shown: list[str] = []

    def feed(self, text: str) -> list[str]:
        """The sentences ``text`` completes, checked (each with the space or line break after it)."""
        self._held += text
        ends = sentence_ends(self._held)
        if not ends:
            return []
        done, self._held = self._held[: ends[-1]], self._held[ends[-1] :]
        cuts = [0, *ends]
        return [self._checked(done[a:b]) for a, b in itertools.pairwise(cuts)]

    def close(self) -> list[str]:
        """The last sentence (the model's text ended without a boundary), checked."""
        rest, self._held = self._held, ""
        return [self._checked(rest)] if rest else []

    @property
    def text(self) -> str:
        """Everything shown so far."""
        return "".join(self.shown)

    def _checked(self, sentence: str) -> str:
        misses = unmatched_figures(sentence, self._facts, self._names)
        for miss in misses:
            if miss not in self.misses:
                self.misses.append(miss)
        figures = [miss.figure for miss in misses if miss.kind != "name"]  # a name is reported, not struck
        shown = _strike(sentence, figures)
        self.shown.append(shown)
        return shown


def _strike(sentence: str, figures: list[str]) -> str:
    """``sentence`` with every occurrence of ``figures`` marked, in one pass (a mark is never marked again); a
    figure the check read across words it had set aside, and so cannot be found as written, marks the sentence."""
    if not figures:
        return sentence
    written = [_written(figure) for figure in sorted(set(figures), key=len, reverse=True)]
    shown = re.compile("|".join(written)).sub(lambda match: marked(match.group(0)), sentence)
    if not all(re.search(figure, sentence) for figure in written):
        body = shown.rstrip()
        shown = f"{body} {NOT_IN_THE_DATA}{shown[len(body) :]}"
    return shown


def _written(figure: str) -> str:
    """A pattern for ``figure`` as a whole figure (not the tail or head of a longer number)."""
    return rf"(?<![\d.]){re.escape(figure)}(?!\d)"
