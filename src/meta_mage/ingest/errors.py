"""Errors raised while reading input files."""

from __future__ import annotations


class InputFileError(ValueError):
    """A file that cannot be ingested; the message names the file and the reason."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason
