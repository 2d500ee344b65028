"""What the graph's nodes need, made once per process."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from langchain_core.language_models import BaseChatModel

from meta_mage.agent.lookups import Lookups
from meta_mage.agent.tools import AgentTools
from meta_mage.config import Settings


@dataclass
class AgentDeps:
    """What the graph's nodes need, made once per process."""

    settings: Settings
    tools: AgentTools
    lookups: Lookups
    model: BaseChatModel | None = None
    clock: Callable[[], float] = field(default=time.time)
