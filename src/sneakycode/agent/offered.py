"""The tools a model is offered: the tools array every request carries (and its size in tokens, which every
request pays), kept in step with what the gate lets run. Tools join (a search tool found them) or leave (their
MCP server stopped) from tool threads while others run in parallel, so every change takes the lock."""

from __future__ import annotations

import json
import threading
from collections.abc import Collection
from typing import Any

from sneakycode.permissions.gate import Gate
from sneakycode.tools.base import Tool
from sneakycode.tools.registry import openai_schemas


class OfferedTools:
    """The offered tools' schemas; `gate` runs exactly these. `lock` is reentrant: the Agent holds it while
    it also changes the system prompt to match."""

    def __init__(self, gate: Gate, tools: tuple[Tool, ...]) -> None:
        self.gate = gate
        self.lock = threading.RLock()
        self.schemas: list[dict[str, Any]] = []
        self.tokens = 0
        self._set(openai_schemas(tools))

    def offer(self, tools: tuple[Tool, ...]) -> None:
        """Add the tools not offered yet."""
        with self.lock:
            known = set(self.gate.offered or {})
            new = tuple(t for t in tools if t.name not in known)
            if not new:
                return
            self.gate.offer(new)
            self._set([*self.schemas, *openai_schemas(new)])

    def withdraw(self, names: Collection[str]) -> None:
        with self.lock:
            self.gate.withdraw(names)
            self._set([schema for schema in self.schemas if schema["function"]["name"] not in names])

    def replace(self, tools: tuple[Tool, ...]) -> None:
        """Offer exactly `tools`."""
        with self.lock:
            self.gate.offered = {t.name: t for t in tools}
            self._set(openai_schemas(tools))

    def _set(self, schemas: list[dict[str, Any]]) -> None:
        self.schemas = schemas
        self.tokens = len(json.dumps(schemas, separators=(",", ":"))) // 3
