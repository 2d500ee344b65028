"""sync function: a thin entry point over the scheduled GitHub sync."""

from meta_mage.startup import starting_up

with starting_up():
    from meta_mage.sync.lambda_handler import handle as lambda_handler

__all__ = ["lambda_handler"]
