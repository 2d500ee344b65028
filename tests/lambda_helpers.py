"""Helpers for calling Lambda entry points the way the runtime does: a fake context and the loader."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FUNCTIONS = Path(__file__).resolve().parents[1] / "functions"
Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


@dataclass
class FakeLambdaContext:
    """The attributes Powertools reads from a ``LambdaContext``."""

    function_name: str = "FormatsFunction"
    memory_limit_in_mb: int = 256
    aws_request_id: str = "52fdfc07-2182-154f-163f-5f0f9a621d72"
    log_stream_name: str = "2026/11/22/[$LATEST]abc"
    remaining_millis: int = 30_000

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:us-east-1:123456789012:function:{self.function_name}"

    @property
    def log_group_name(self) -> str:
        return f"/aws/lambda/{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_millis


def entry_point(function: str) -> Handler:
    """``functions/<function>/app.py``'s ``lambda_handler``, loaded from its file as the runtime does."""
    spec = importlib.util.spec_from_file_location(f"fn_{function}", FUNCTIONS / function / "app.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    handler: Handler = module.lambda_handler
    return handler
