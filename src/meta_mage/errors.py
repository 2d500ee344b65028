"""Domain errors. The API maps them to HTTP statuses in one place (``NotFound`` → 404, etc.)."""

from __future__ import annotations


class MetaMageError(Exception):
    """Base error with a stable code and the offending field, if any."""

    code = "error"

    def __init__(self, message: str, *, field: str | None = None, allowed: list[str] | None = None):
        super().__init__(message)
        self.message = message
        self.field = field
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
