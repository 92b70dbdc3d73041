"""What headless and interactive runs both do before the first turn: pick the model, open (or resume) the
session, and build the Agent over them. A ConfigError says why a run cannot start."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from sneakycode.agent.loop import Agent
from sneakycode.agent.model import build_chat_model
from sneakycode.agent.protocol import Approver, EventSink
from sneakycode.agent.providers import ModelConfig, resolve_model_config
from sneakycode.agent.session import AgentSession, open_agent_session
from sneakycode.config import LoadedSettings
from sneakycode.tools.base import ToolContext


@dataclass
class PreparedRun:
    config: ModelConfig
    session: AgentSession
    agent: Agent


def prepare_run(
    args: argparse.Namespace,
    loaded: LoadedSettings,
    sink: EventSink,
    approver_for: Callable[[ToolContext], Approver | None],
    debug_log: Callable[[str], None] | None = None,
) -> PreparedRun:
    """`approver_for` gets the session's tool context, so an approver can reach its cancel signal."""
    config = resolve_model_config(loaded, args.api_key)
    session = open_agent_session(loaded, continue_latest=args.continue_session, resume_id=args.resume)
    agent = Agent(
        build_chat_model(config, debug_log=debug_log),
        session.ctx,
        sink,
        approver=approver_for(session.ctx),
        mode=args.mode,
        context_window=config.context_window,
        transcript=session.transcript,
        history=session.saved.messages if session.saved else None,
    )
    return PreparedRun(config, session, agent)
