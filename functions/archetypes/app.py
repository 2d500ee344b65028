"""archetypes function: a thin entry point over the library's HTTP API handler."""

from meta_mage.startup import starting_up

with starting_up():
    from meta_mage.api.handlers import handle as lambda_handler

__all__ = ["lambda_handler"]
