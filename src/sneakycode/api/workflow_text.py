"""What a face prints into a CI log: GitHub workflow commands written escaped, and any other text made unable
to start one. The rules live in `sneakycode.workflow_commands` (a leaf module the review library uses too);
this is the faces' door to them."""

from __future__ import annotations

from sneakycode.workflow_commands import InertLines, command, inert, inert_json, mask

__all__ = ["InertLines", "command", "inert", "inert_json", "mask"]
