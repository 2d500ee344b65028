"""``Conversations.claim``: a conversation id ``/welcome`` issued becomes the conversation it promised, once."""

import uuid
from typing import Any

import pytest

from meta_mage.agent.conversation import ConversationNotFound, Conversations
from meta_mage.storage.locks import IssuedConversations

WELCOME = {"message": "Welcome, planeswalker.", "available_formats": ["Modern"]}


class Issued(IssuedConversations):
    """Issued ids in memory, counting the claims made."""

    def __init__(self, *issued: str) -> None:
        super().__init__(table=None)
        self.welcomes: dict[str, dict[str, Any]] = dict.fromkeys(issued, WELCOME)
        self.claims = 0
        self.put_back: list[tuple[str, int]] = []

    def issue(self, conversation_id: str, welcome: dict[str, Any], seconds: int) -> None:
        self.welcomes[conversation_id] = welcome
        self.put_back.append((conversation_id, seconds))

    def claim(self, conversation_id: str) -> dict[str, Any] | None:
        self.claims += 1
        return self.welcomes.pop(conversation_id, None)


async def test_an_issued_id_is_claimed_once_and_holds_its_welcome(offline: Conversations) -> None:
    # Given an id /welcome issued, given in upper case
    cid = str(uuid.uuid4())
    issued = Issued(cid)
    # When it is claimed twice
    assert await offline.claim(cid.upper(), issued) == cid
    assert await offline.claim(cid, issued) == cid
    # Then the first claim created the conversation with the welcome message; the second found it
    view = await offline.view(cid)
    assert [m["content"] for m in view["messages"]] == [WELCOME["message"]]
    assert issued.claims == 1 and cid not in issued.welcomes


async def test_an_id_nobody_issued_is_looked_for_after_each_wait_then_not_found(offline: Conversations) -> None:
    issued = Issued()
    with pytest.raises(ConversationNotFound):
        await offline.claim(str(uuid.uuid4()), issued, waits=(0.0, 0.0))
    assert issued.claims == 3


async def test_a_claimed_id_whose_conversation_cannot_be_started_is_issued_again(
    offline: Conversations, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an issued id, and the conversation store failing to start it
    cid = str(uuid.uuid4())
    issued = Issued(cid)

    async def fails(*args: object, **kwargs: object) -> str:
        raise RuntimeError("throttled")

    monkeypatch.setattr(offline, "start", fails)
    # When it is claimed, the failure is raised
    with pytest.raises(RuntimeError, match="throttled"):
        await offline.claim(cid, issued)
    # Then the id is issued again, with its welcome, for the conversation lifetime
    assert issued.welcomes[cid] == WELCOME
    assert issued.put_back == [(cid, offline.settings.conversation_ttl_seconds)]
