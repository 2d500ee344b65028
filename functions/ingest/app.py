"""ingest function: a thin entry point over the drop zone's S3 event handler."""

from meta_mage.startup import starting_up

with starting_up():
    from meta_mage.ingest.lambda_handler import handle as lambda_handler

__all__ = ["lambda_handler"]
