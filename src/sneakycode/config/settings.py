"""The settings themselves: every key with its type, default and one-line documentation (docs/config.md is
generated from the field descriptions), and the permission modes every command line and rule names."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class PermissionMode(StrEnum):
    """How much runs without asking: every command line, flag and rule names these values."""

    DEFAULT = "default"  # ask for edits and commands
    AUTO_EDIT = "auto-edit"  # approve file edits, ask for commands
    PLAN = "plan"  # only the auto-approved (read-only) tools run
    YOLO = "yolo"  # approve every call no deny rule blocks


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True, defer_build=True)


class ShellSettings(_Strict):
    allowed_commands: list[str] = Field(
        default_factory=list,
        description="Command prefixes run without asking; every part of a compound command must match.",
    )
    denied_commands: list[str] = Field(
        default_factory=list,
        description="Command prefixes that are refused wherever they appear in a command line.",
    )
    default_timeout: int = Field(30, ge=1, description="Seconds a command may run when the call gives none.")
    max_timeout: int = Field(600, ge=1, description="The largest timeout, in seconds, a call may ask for.")
    sandbox: Literal["auto", "bwrap", "off"] = Field(
        "auto", description="Run commands under bubblewrap: auto (when it works), bwrap (required), off."
    )
    sandbox_network: bool = Field(True, description="Whether sandboxed commands may use the network.")
    env_keep: list[str] = Field(
        default_factory=list,
        description="Globs (any case) of credential-like variables that commands get anyway (never a model key).",
    )
    env_strip: list[str] = Field(default_factory=list, description="Globs (any case) of more variables to strip.")


class WebSettings(_Strict):
    allow_private: bool = Field(
        False,
        description="Let web_fetch reach private, loopback and link-local addresses (only from your own config).",
    )
    timeout: float = Field(30.0, gt=0, description="Seconds web_fetch waits to connect, and between reads.")
    max_bytes: int = Field(5_242_880, ge=1024, description="Bytes of a web_fetch body read; the rest is dropped.")


class ToolsSettings(_Strict):
    enabled: list[str] | None = Field(
        None,
        description="The tools the model is offered, by name (unset: all); finish is always offered. Fewer tools "
        "make a smaller request, which helps small context windows.",
    )
    edit_format: Literal["auto", "replace", "patch", "both"] = Field(
        "auto",
        description="Which edit tool the model gets: replace (str_replace), patch (patch_apply, a unified diff) or "
        "both; auto picks the one the model family is trained on, both when the family is not known.",
    )
    shell: ShellSettings = Field(default_factory=ShellSettings, description="run_command settings.")
    web: WebSettings = Field(default_factory=WebSettings, description="web_fetch settings.")


class PermissionSettings(_Strict):
    mode: PermissionMode = Field(
        PermissionMode.DEFAULT,
        description="default (ask for edits and commands), auto-edit (approve edits), plan (read only), yolo.",
    )
    allow: list[str] = Field(default_factory=list, description="Rules `TOOL` or `TOOL(PATTERN)` approved.")
    ask: list[str] = Field(default_factory=list, description="Rules that always ask, even if allowed.")
    deny: list[str] = Field(default_factory=list, description="Rules that are always refused.")


class Settings(_Strict):
    workspace_root: str = Field(".", description="Folder all tool paths are relative to.")
    max_file_size_bytes: int = Field(1_048_576, ge=1, description="Largest file a tool reads or writes.")
    max_output_bytes: int = Field(65_536, ge=1024, description="Cap on any single tool result.")
    state_dir: str | None = Field(
        None, description="Where sessions, journals and saved outputs live (default: the user state dir)."
    )
    provider: str | None = Field(
        None, description="Model provider preset: groq, openai, openrouter, ollama, lmstudio, vllm, llamacpp, custom."
    )
    model: str | None = Field(None, description="Model name sent to the provider.")
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint, overriding the preset's.")
    api_key_env: str | None = Field(None, description="Environment variable that holds the API key.")
    context_window: int | None = Field(None, ge=1024, description="Model context size in tokens.")
    supports_images: bool | None = Field(
        None, description="Whether the model accepts images (unset: known vision models such as GPT-4o, Claude, "
        "Gemini, Qwen-VL, Llava, Pixtral, Gemma 3 do)."
    )
    max_output_tokens: int | None = Field(
        None,
        ge=16,
        description="Cap on each reply's tokens (sent as max_tokens); unset: a quarter of the window, at most "
        "4,096, for local servers, 16,384 for hosted ones.",
    )
    stream_idle_timeout: float = Field(
        60.0, gt=0, description="Seconds a streamed reply may send nothing before the request is retried."
    )
    max_turns: int = Field(50, ge=1, description="Model turns before a run stops.")
    request_timeout: float = Field(120.0, gt=0, description="Seconds to wait for one model response.")
    max_retries: int = Field(4, ge=0, description="Retries of a model request on 429, 5xx or connection errors.")
    retry_backoff: float = Field(
        1.0, ge=0, description="Seconds before the first retry; doubles each retry (with jitter) unless Retry-After."
    )
    tool_calls: Literal["auto", "native", "text"] = Field(
        "auto",
        description="Tool calls written as text: `auto` parses them until the model calls a tool natively, and only "
        "where they close the reply; `native` never parses them; `text` parses them anywhere.",
    )
    permissions: PermissionSettings = Field(default_factory=PermissionSettings, description="Permission rules.")
    tools: ToolsSettings = Field(default_factory=ToolsSettings, description="Per-tool settings.")


@dataclass
class LoadedSettings:
    """Settings plus where each value came from (for `sneakycode permissions list` and error messages), and
    what an untrusted project file asked for and did not get (`ignored`, one line each)."""

    settings: Settings
    workspace: Path
    origins: dict[str, str] = field(default_factory=dict)
    rule_origins: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    project_file: Path | None = None
    ignored: list[str] = field(default_factory=list)

    def origin_of(self, key: str) -> str:
        return self.origins.get(key, "default")


def user_config_path() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("sneakycode")) / "config.toml"


def default_state_dir() -> Path:
    from platformdirs import user_state_dir

    return Path(user_state_dir("sneakycode"))


def state_dir(settings: Settings) -> Path:
    """The folder that holds sessions (created on demand)."""
    return Path(settings.state_dir).expanduser() if settings.state_dir else default_state_dir()
