"""What the agent knows of models and endpoints, for the libraries that examine one (`doctor/`, the eval's
scorecard): the providers' presets, the resolved endpoint, output caps, families, text tool-call dialects,
reasoning policies, think tags, token estimates. Names of `agent/model/` and `agent/protocol.py`, given here
so a library reads the same facts the agent acts on, never a copy of them, without importing below `api`.
"""

from __future__ import annotations

from sneakycode.agent.model.assembly import estimate_text_tokens
from sneakycode.agent.model.dialects import DIALECTS
from sneakycode.agent.model.families import edit_format_for, text_call_dialect_for
from sneakycode.agent.model.providers import (
    LOOPBACK_HOSTS,
    PLACEHOLDER_KEY,
    PRESETS,
    ModelConfig,
    output_cap,
    resolve_model_config,
)
from sneakycode.agent.model.reasoning_policy import History, reasoning_policy_for
from sneakycode.agent.model.text_tool_calls import parse_text_tool_calls
from sneakycode.agent.model.think_tags import split_think
from sneakycode.agent.model.truncation import TRUNCATION_RATIO
from sneakycode.agent.model.window import DiscoveredWindow
from sneakycode.agent.protocol import AssistantTurn, ToolCall

__all__ = [
    "DIALECTS",
    "LOOPBACK_HOSTS",
    "PLACEHOLDER_KEY",
    "PRESETS",
    "TRUNCATION_RATIO",
    "AssistantTurn",
    "DiscoveredWindow",
    "History",
    "ModelConfig",
    "ToolCall",
    "edit_format_for",
    "estimate_text_tokens",
    "output_cap",
    "parse_text_tool_calls",
    "reasoning_policy_for",
    "resolve_endpoint",
    "split_think",
    "text_call_dialect_for",
]

resolve_endpoint = resolve_model_config
"""The endpoint and model the settings (and an `--api-key`) name: provider, base URL, key, window, price."""
