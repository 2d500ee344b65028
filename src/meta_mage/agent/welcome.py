"""The ``/welcome`` payload now lives in ``meta_mage.api.welcome`` (no agent code in the small functions);
these names stay importable here for the agent tests that use them."""

from meta_mage.api.welcome import build_welcome, workflows_with_tools

__all__ = ["build_welcome", "workflows_with_tools"]
