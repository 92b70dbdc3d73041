"""The names a face speaks in, from one place: errors, events, tool results, images and the approver's call.

Faces (`sneakycode.faces`) import only `sneakycode.api` (the import contract in pyproject.toml); these are the
types they need to read what a run reports. Behaviour a face needs is a verb on `Session` or a function in
`api/`, never a type re-exported here. Add a name here only when a face needs it.
"""

from __future__ import annotations

from sneakycode.agent.events import (
    AssistantEvent,
    Event,
    NoticeEvent,
    PermissionEvent,
    ProgressEvent,
    ReasoningDeltaEvent,
    ReasoningEvent,
    StallEvent,
    SubagentEvent,
    TasksEvent,
    TextDeltaEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEvent,
    UsageEvent,
)
from sneakycode.agent.model.providers import ModelConfig
from sneakycode.agent.protocol import EventSink
from sneakycode.api.catalog import SettingInfo, SkillInfo, SubagentInfo
from sneakycode.api.history import SavedSession, SessionDiff
from sneakycode.api.mentions import Mentions
from sneakycode.api.usage import Usage
from sneakycode.config import LoadedSettings, PermissionMode
from sneakycode.errors import CheckpointError, ConfigError, ErrorCode, ModelError, SneakyError, ToolError
from sneakycode.extensions.mcp.manager import ServerRow as McpServerInfo
from sneakycode.permissions.gate import Approver, Declined, PendingCall, Remembered, Unattended
from sneakycode.process.jobs import Job
from sneakycode.session.folders import SessionInfo
from sneakycode.session.rewind import RewindReport
from sneakycode.session.undo import UndoReport
from sneakycode.tools.base import ImagePart, Preview, ProposedEdit, Tool, ToolContext, ToolResult
from sneakycode.tools.images import IMAGE_SUFFIXES

__all__ = [
    "IMAGE_SUFFIXES",
    "Approver",
    "AssistantEvent",
    "CheckpointError",
    "ConfigError",
    "Declined",
    "ErrorCode",
    "Event",
    "EventSink",
    "ImagePart",
    "Job",
    "LoadedSettings",
    "McpServerInfo",
    "Mentions",
    "ModelConfig",
    "ModelError",
    "NoticeEvent",
    "PendingCall",
    "PermissionEvent",
    "PermissionMode",
    "Preview",
    "ProgressEvent",
    "ProposedEdit",
    "ReasoningDeltaEvent",
    "ReasoningEvent",
    "Remembered",
    "RewindReport",
    "SavedSession",
    "SessionDiff",
    "SessionInfo",
    "SettingInfo",
    "SkillInfo",
    "SneakyError",
    "StallEvent",
    "SubagentEvent",
    "SubagentInfo",
    "TasksEvent",
    "TextDeltaEvent",
    "Tool",
    "ToolCallEvent",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "ToolResultEvent",
    "TurnEvent",
    "Unattended",
    "UndoReport",
    "Usage",
    "UsageEvent",
]
