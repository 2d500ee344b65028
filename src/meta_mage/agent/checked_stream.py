"""Check, then show: the model's answer held back a sentence (or a table row) at a time and checked against the
turn's tool results (``agent/grounding.py``) before the reader sees it.

A sentence whose figures all match goes out unchanged, so an honest answer arrives byte for byte as the model
wrote it, each sentence as soon as the model has finished it. A figure no result holds is struck through and
marked where it stands (``~~61.2%~~ ⚠ *not in the data*``): the reader never sees an unmarked wrong figure.
Sentences are cut where ``grounding`` cuts them (after ``.``, ``;``, ``!`` or ``?`` and a space, or at a line
break), so a sentence is held to the figures of the things it names exactly as the whole-answer check holds it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from meta_mage.agent.grounding import Facts, Unmatched, unmatched_figures

_BOUNDARY = re.compile(r"(?<=[.;!?])\s+|\n+")
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
        ready: list[str] = []
        while (boundary := _BOUNDARY.search(self._held)) is not None:
            sentence, self._held = self._held[: boundary.end()], self._held[boundary.end() :]
            ready.append(self._checked(sentence))
        return ready

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
        shown = sentence
        for miss in misses:
            if miss not in self.misses:
                self.misses.append(miss)
            if miss.kind != "name":  # a name is reported, not struck: it may be the player's own words
                shown = _strike(shown, miss.figure)
        self.shown.append(shown)
        return shown


def _strike(sentence: str, figure: str) -> str:
    """``sentence`` with each unmarked occurrence of ``figure`` marked."""
    pattern = re.compile(rf"(?<![\w.~]){re.escape(figure)}(?![\d~])")
    return pattern.sub(lambda match: marked(match.group(0)), sentence)
