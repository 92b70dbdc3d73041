"""`Options`: everything one SneakyCode session takes, as one plain dataclass.

Every face fills one in (the command line from its flags, an editor from its protocol, a program by hand)
and hands it to `Session`; nothing else assembles a run. Fields left None fall back to the configuration
layers (docs/config.md); what is set here is the top layer, above `SNEAKYCODE_*` and every file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the [otel] extra: names for type checking only, never imported at run time here
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import TracerProvider

    from sneakycode.agent.events import Event
    from sneakycode.tools.base import Tool

CanUseTool = Callable[[str, dict[str, Any]], "bool | str"]
"""Asked where the terminal would ask: True runs the call; False or a string (the message the model gets)
refuses it. Deny rules and plan mode decide before it is asked."""

BUDGET_NAMES = ("max_tokens", "max_cost", "timeout")  # Options fields and `budgets.*` keys of the same names


@dataclass
class Options:
    """Everything a session takes; every field is optional.

    `mode` is a permission mode (default, auto-edit, plan, yolo). `enabled_tools` narrows the built-in tools
    offered (`tools.enabled`); `tools` adds the program's own (`@sneakycode.tool`). `settings` sets any
    other configuration key by its dotted name (`{"tools.shell.sandbox": "off"}`). `mcp_servers` adds MCP
    servers as `[mcp.servers.NAME]` tables would. `isolated` reads no user configuration, no environment
    override, no user skills, commands or agents, and writes nothing outside the workspace and `state_dir`
    (a temporary folder, removed on close, when none is given). `output_schema` (a JSON Schema as a mapping, or
    the path of a JSON file) makes every request's final answer JSON valid against it (`Result.structured_output`).
    `add_dirs` are folders besides the workspace that the tools may read and change (under the same permission
    rules) and the sandbox binds writable, like `claude --add-dir`; checkpoints cover the workspace only."""

    workspace: str | Path | None = None
    add_dirs: Sequence[str | Path] = ()
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    mode: str | None = None
    max_turns: int | None = None
    reasoning_effort: str | None = None  # low, medium or high: `reasoning_effort` (sent as the family takes it)
    max_tokens: int | None = None
    max_cost: float | None = None
    timeout: float | None = None
    enabled_tools: Sequence[str] | None = None
    tools: Sequence[Tool] = ()
    can_use_tool: CanUseTool | None = None
    resume: str | None = None
    continue_session: bool = False
    trust_project: bool = False
    mcp_servers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    system_prompt: str = ""
    isolated: bool = False
    state_dir: str | Path | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    on_event: Callable[[Event], None] | None = None
    # A JSON Schema the final answer must follow (a mapping, or the path of a JSON file): see api/structured.py.
    output_schema: Mapping[str, Any] | str | Path | None = None
    # A person is at the keyboard (the terminal): the budgets come from these options alone, since a
    # configured timeout would end a session that is merely waiting for them.
    interactive: bool = False
    # Debug lines (the command line's --verbose); None: none are made.
    debug_log: Callable[[str], None] | None = None
    # A program's own OpenTelemetry providers: the session's spans and metrics go to them (docs/ci.md),
    # whatever [telemetry] says; None: [telemetry] and the OTEL_* variables decide.
    tracer_provider: TracerProvider | None = None
    meter_provider: MeterProvider | None = None
    # A goal (docs/goals.md): after the model says it is done, this shell command runs in the workspace like
    # run_command (sandboxed, under the same permission rules); a non-zero exit sends its output back to the
    # model, until it passes or a budget ends the run (api/goal.py).
    until: str | None = None
    # The check's files, protected from the model for the run (default: the files `until` names that exist).
    until_files: Sequence[str] | None = None
    # Seconds the check may run before it is killed with its process group (default CHECK_TIMEOUT, 300).
    check_timeout: int | None = None
    # Independent attempts, each in its own worktree (batch/attempts.py; `Session.run` itself makes one).
    attempts: int = 1
    # Without a check, how attempts are compared: "first" to finish, or "vote" by the small model.
    attempt_rule: str = "first"
    # When `[models] fallback` works on a goal: "after" the main model's rounds fail the check, "never", or "now"
    # (from the start: what attempts run once every attempt of the main model failed, batch/attempts.py).
    escalate: str = "after"

    def layer(self) -> dict[str, Any]:
        """The configuration layer these options stand for, by dotted key (None fields left out)."""
        values: dict[str, Any] = {
            "provider": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "permissions.mode": self.mode,
            "max_turns": self.max_turns,
            "reasoning_effort": self.reasoning_effort,
            "tools.enabled": list(self.enabled_tools) if self.enabled_tools is not None else None,
            "state_dir": str(self.state_dir) if self.state_dir is not None else None,
            **{f"budgets.{name}": getattr(self, name) for name in BUDGET_NAMES},
        }
        for name, server in self.mcp_servers.items():
            values[f"mcp.servers.{name}"] = dict(server)
        values.update(self.settings)
        return {key: value for key, value in values.items() if value is not None}

    def workspace_path(self) -> Path | None:
        return Path(self.workspace) if self.workspace is not None else None
