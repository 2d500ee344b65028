"""Conversation memory: langgraph-checkpoint-aws's DynamoDBSaver on the CheckpointTable."""

from __future__ import annotations

from typing import Any

from langgraph_checkpoint_aws import DynamoDBSaver

from meta_mage.config import Settings
from meta_mage.storage.dynamo import default_session

# DynamoDBSaver writes its expiry time under this attribute; template.yaml's TTL must name it.
TTL_ATTRIBUTE = "ttl"


def make_checkpointer(settings: Settings) -> Any:
    """A DynamoDBSaver whose items carry a ``ttl`` ``conversation_ttl_seconds`` after each write.

    DynamoDB deletes expired items lazily (within days), so ``Conversations`` also checks the
    conversation's last activity on every read.
    """
    return DynamoDBSaver(
        table_name=settings.checkpoint_table,
        session=default_session(),
        region_name=settings.aws_region,
        ttl_seconds=settings.conversation_ttl_seconds,
        enable_checkpoint_compression=True,
    )
