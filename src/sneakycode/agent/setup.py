"""What an Agent is built from besides its models (`roles.Binding`): `Calls`, the tool side (the tool
session, the tools offered, who is asked); `Conversation`, where the conversation starts and is recorded;
`RunConfig`, how runs go (events, main or subagent, mode, limits, hooks). `Agent(binding, calls,
conversation, config)`: each construction site (the session's assembly, the task tool, tests) fills the
groups it has, and a new knob joins its group instead of the constructor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sneakycode.agent.budgets import Budgets, Spending
from sneakycode.agent.protocol import EventSink
from sneakycode.config import PermissionMode
from sneakycode.extensions.hooks import HookRunner
from sneakycode.permissions.gate import NOBODY, Approver, Unattended
from sneakycode.session.checkpoints import Checkpoints
from sneakycode.session.transcript import Transcript
from sneakycode.tools.base import Tool
from sneakycode.tools.context import ToolContext


@dataclass
class Calls:
    """The tool-call machinery's parts: the tool session the calls run in, the tools the model is offered
    (None: all; a call to any other is an unknown tool), the approver asked when a call needs a yes (None:
    nobody, such calls are refused), and how such a refusal is worded (the face's words)."""

    ctx: ToolContext
    approver: Approver | None
    tools: tuple[Tool, ...] | None = None
    unattended: Unattended = NOBODY


@dataclass
class Conversation:
    """Where the conversation starts and where it is kept: the messages of a resumed session (None: a new
    one) and the model turns it had (what checkpoints are numbered by), the transcript it is written to, the
    checkpoints of the files, and the system prompt's own parts: the list of skills (extensions.skills), the
    embedding program's instructions (after the project's), and a role's (a subagent definition's, last)."""

    history: list[dict[str, Any]] | None = None
    session_turns: int = 0
    transcript: Transcript | None = None
    checkpoints: Checkpoints | None = None
    skills_prompt: str = ""
    system_prompt: str = ""
    role: str = ""


@dataclass
class RunConfig:
    """How the runs go: where events go; `main`, whether this is the session's main agent (False: a
    subagent, whose stop is SubagentStop and whose first request gets no repository map); the permission
    mode (None: the configured one); the turns a request may take (None: the configured max_turns); the
    user's hooks; the session's budgets, and the spending that carries the prices and counts what is used
    (shared with the subagents, whose tokens count)."""

    sink: EventSink
    main: bool
    mode: PermissionMode | str | None = None
    max_turns: int | None = None
    hooks: HookRunner | None = None
    budgets: Budgets | None = None
    spending: Spending | None = None
