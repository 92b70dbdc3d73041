"""SneakyCode: a terminal coding agent with an honest tool layer, and a Python API to embed it (docs/sdk.md).

    import sneakycode
    result = sneakycode.run("fix the failing test", workspace="repo", mode="auto-edit")

`__all__` is the public API; every other module is private and may change. Names are imported on first
use, so `import sneakycode` loads nothing heavy (no model client, no pydantic models, no parsers).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from sneakycode.version import __version__ as __version__

if TYPE_CHECKING:
    from sneakycode.agent.events import Event
    from sneakycode.api.options import CanUseTool, Options
    from sneakycode.api.result import Result
    from sneakycode.api.run import run
    from sneakycode.api.session import Session
    from sneakycode.api.tools import tool
    from sneakycode.errors import ConfigError, SneakyError
    from sneakycode.tools.base import ImagePart, ToolArgs, ToolContext, ToolResult

_WHERE = {
    "run": "sneakycode.api.run",
    "Options": "sneakycode.api.options",
    "CanUseTool": "sneakycode.api.options",
    "Session": "sneakycode.api.session",
    "Result": "sneakycode.api.result",
    "tool": "sneakycode.api.tools",
    "ToolArgs": "sneakycode.tools.base",
    "ToolResult": "sneakycode.tools.base",
    "ToolContext": "sneakycode.tools.base",
    "ImagePart": "sneakycode.tools.base",
    "Event": "sneakycode.agent.events",
    "SneakyError": "sneakycode.errors",
    "ConfigError": "sneakycode.errors",
}

__all__ = [
    "CanUseTool",
    "ConfigError",
    "Event",
    "ImagePart",
    "Options",
    "Result",
    "Session",
    "SneakyError",
    "ToolArgs",
    "ToolContext",
    "ToolResult",
    "run",
    "tool",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(import_module(_WHERE[name]), name)
        globals()[name] = value  # the next access is a plain attribute
        return value
    raise AttributeError(f"module 'sneakycode' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
