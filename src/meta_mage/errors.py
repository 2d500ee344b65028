"""Domain errors. The API maps them to HTTP statuses in one place (``NotFound`` → 404, etc.)."""

from __future__ import annotations

ECHO_CHARS = 100  # the most of one piece of user input an error message repeats
MESSAGE_CHARS = 2000  # the longest error message; a longer one repeats input its writer did not cut
FIELD_CHARS = 200  # a field name longer than this is user input (an unknown parameter), not ours


def clip(text: str, limit: int = ECHO_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was: user input repeated in an error."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def echo(value: object, limit: int = ECHO_CHARS) -> str:
    """User input quoted for an error message (its ``repr``), cut to ``limit`` characters."""
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}… ({len(value):,} characters)"
    text = repr(value)
    return clip(text, limit) if len(text) > limit else text


def _bounded(message: str) -> str:
    if len(message) <= MESSAGE_CHARS:
        return message
    head, tail = MESSAGE_CHARS * 3 // 4, MESSAGE_CHARS // 5  # keep the start and the end (often "; allowed: ...")
    return f"{message[:head]} …[{len(message) - head - tail:,} characters cut]… {message[-tail:]}"


class MetaMageError(Exception):
    """Base error with a stable code and the offending field, if any. Its message and field are bounded,
    whatever input they repeat (see ``echo``)."""

    code = "error"

    def __init__(self, message: str, *, field: str | None = None, allowed: list[str] | None = None):
        message = _bounded(message)
        super().__init__(message)
        self.message = message
        self.field = clip(field, FIELD_CHARS) if field else field
        self.allowed = allowed

    def to_dict(self) -> dict[str, object]:
        body: dict[str, object] = {"error": self.code, "message": self.message}
        if self.field:
            body["field"] = self.field
        if self.allowed is not None:
            body["allowed"] = self.allowed
        return body


class InvalidArgument(MetaMageError):
    code = "invalid_argument"


class NotFound(MetaMageError):
    code = "not_found"


class StorageUnavailable(MetaMageError):
    """DynamoDB failed a repository's request after the SDK's retries (unreachable, throttling, a missing
    table); the message names the table and the operation."""

    code = "storage_unavailable"
