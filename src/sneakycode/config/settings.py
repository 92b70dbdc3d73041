"""The settings themselves: every key with its type, default and one-line documentation (docs/config.md is
generated from the field descriptions), and the permission modes every command line and rule names."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from sneakycode.config.lsp_settings import LspSettings
from sneakycode.config.model_settings import ModelTuning
from sneakycode.config.repo_map import RepoMapSettings
from sneakycode.config.telemetry import TelemetrySettings
from sneakycode.config.tool_settings import ToolsSettings


class PermissionMode(StrEnum):
    """How much runs without asking: every command line, flag and rule names these values."""

    DEFAULT = "default"  # ask for edits and commands
    AUTO_EDIT = "auto-edit"  # approve file edits, ask for commands
    PLAN = "plan"  # only the auto-approved (read-only) tools run
    YOLO = "yolo"  # approve every call no deny rule blocks


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True, defer_build=True)


class DiagnosticsSettings(_Strict):
    enabled: bool = Field(
        True, description="After each edit, report the syntax errors and checker findings the edit introduced."
    )
    timeout: float = Field(10.0, gt=0, description="Seconds a configured checker may run before it is stopped.")
    checkers: dict[str, str] = Field(
        default_factory=dict,
        description="Language -> checker command run after edits, `{file}` for the file "
        '(`python = "ruff check --output-format=json {file}"`); ruff, pyright, eslint, tsc output is read.',
    )


class PriceSettings(_Strict):
    input: float = Field(ge=0, description="USD per million prompt tokens.")
    output: float = Field(ge=0, description="USD per million completion tokens.")
    cached_input: float | None = Field(
        None, ge=0, description="USD per million prompt tokens served from the provider's cache (unset: input)."
    )


class PermissionSettings(_Strict):
    mode: PermissionMode = Field(
        PermissionMode.DEFAULT,
        description="default (ask for edits and commands), auto-edit (approve edits), plan (read only), yolo.",
    )
    allow: list[str] = Field(default_factory=list, description="Rules `TOOL` or `TOOL(PATTERN)` approved.")
    ask: list[str] = Field(default_factory=list, description="Rules that always ask, even if allowed.")
    deny: list[str] = Field(default_factory=list, description="Rules that are always refused.")


class SkillsSettings(_Strict):
    enabled: bool = Field(True, description="Offer skills (SKILL.md folders) to the model and as /NAME commands.")
    max_prompt_chars: int = Field(
        2000, ge=0, description="Characters of the system prompt the skill list may take; skills past it are left out."
    )


class CheckpointSettings(_Strict):
    enabled: bool = Field(
        True, description="Snapshot the workspace before each turn that may change files (`sneakycode rewind`)."
    )


class BudgetSettings(_Strict):
    max_tokens: int | None = Field(
        None, ge=1, description="Headless runs stop (exit 3) after this many tokens, prompt and completion "
        "(--max-tokens)."
    )
    max_cost: float | None = Field(
        None, gt=0, description="Headless runs stop (exit 3) once they cost this many USD, by `pricing` (--max-cost)."
    )
    timeout: float | None = Field(
        None, gt=0, description="Headless runs stop (exit 3) after this many seconds of wall-clock time (--timeout)."
    )


class HookCommand(_Strict):
    matcher: str = Field(
        "",
        description="Regex the whole tool name must match, ours or Claude Code's (`Bash`, `Edit|Write`; "
        "`mcp__server__.*` for MCP tools) for PreToolUse and PostToolUse, the source for SessionStart, the trigger "
        "for PreCompact; empty or `*`: always.",
    )
    command: str = Field(description="Shell command line run in the workspace; gets the event as JSON on stdin.")
    timeout: int = Field(60, ge=1, le=3600, description="Seconds before the hook and its processes are killed.")


def _hook_list(when: str) -> list[HookCommand]:
    return Field(default_factory=list, description=f"Hooks run {when}.")


class HooksSettings(_Strict):
    """Claude Code's hook events, by their names (so its hook scripts run unchanged); see docs/extending.md."""

    SessionStart: list[HookCommand] = _hook_list("when a session starts or resumes; stdout becomes context")
    UserPromptSubmit: list[HookCommand] = _hook_list("before a request reaches the model; exit 2 refuses it")
    PreToolUse: list[HookCommand] = _hook_list("before a tool call is decided; exit 2 blocks it")
    PostToolUse: list[HookCommand] = _hook_list("after a tool call ran; exit 2 tells the model its stderr")
    Stop: list[HookCommand] = _hook_list("when the run is about to end; exit 2 makes the model continue")
    SubagentStop: list[HookCommand] = _hook_list("when a subagent is about to answer; exit 2 makes it continue")
    PreCompact: list[HookCommand] = _hook_list("before the history is compacted")
    Notification: list[HookCommand] = _hook_list("when SneakyCode waits for the user's approval")
    SessionEnd: list[HookCommand] = _hook_list("when the session ends")


class McpServerSettings(_Strict):
    command: str | None = Field(None, description="The program that runs a stdio server (with `args`, `env`, `cwd`).")
    args: list[str] = Field(default_factory=list, description="Arguments of `command`; values may name ${VARS}.")
    env: dict[str, str] = Field(
        default_factory=dict,
        description="Variables the stdio server gets besides HOME, PATH, USER, LANG and the like (never the user's "
        "keys); values may name ${VARS}.",
    )
    cwd: str | None = Field(None, description="Folder the stdio server starts in (default: the workspace).")
    url: str | None = Field(None, description="Endpoint of a remote server (streamable HTTP, or SSE, see transport).")
    transport: Literal["auto", "stdio", "http", "sse"] = Field(
        "auto", description="auto: stdio with a command, else SSE for a URL ending in /sse, else streamable HTTP."
    )
    headers: dict[str, str] = Field(
        default_factory=dict, description="HTTP headers sent to a remote server; values may name ${VARS}."
    )
    enabled: bool = Field(True, description="Whether the server starts with the session.")
    startup_timeout: float = Field(10.0, gt=0, description="Seconds the server may take to start and list its tools.")
    tool_timeout: float = Field(60.0, gt=0, description="Seconds one tool call may take before it fails as timed out.")
    trust_read_only: bool = Field(
        False,
        description="Run the tools this server marks read-only (readOnlyHint) without asking, like auto-tier tools.",
    )


class McpSettings(_Strict):
    servers: dict[str, McpServerSettings] = Field(
        default_factory=dict,
        description="MCP servers whose tools the model gets, by name: `[mcp.servers.NAME]` tables.",
    )
    max_tool_chars: int = Field(
        8000,
        ge=0,
        description="Characters of MCP tool schemas sent with every request; above it the model searches them instead.",
    )


class BatchSettings(_Strict):
    requests_per_minute: int | None = Field(
        None, ge=1, description="Model requests per minute all of a batch's tasks share (unset: no limit but 429s)."
    )
    tokens_per_minute: int | None = Field(
        None, ge=1, description="Prompt tokens per minute (estimated from request size) a batch's tasks share."
    )
    num_cpus: float = Field(1.0, gt=0, description="CPUs the Ray executor reserves for each task.")
    task_timeout: float = Field(
        1800.0, gt=0, description="Seconds one batch task (setup, agent, test) may run when its line gives none."
    )


class SmallModelSettings(_Strict):
    model: str = Field(description="The small model's name, as its server knows it.")
    base_url: str | None = Field(
        None, description="Its own OpenAI-compatible endpoint (unset: the main model's server)."
    )
    api_key_env: str | None = Field(
        None, description="Environment variable that holds its API key (unset: the main model's key)."
    )
    context_window: int | None = Field(
        None, ge=1024, description="Its context size in tokens (unset: what its server reports, else the main one's)."
    )


class FallbackModelSettings(SmallModelSettings):
    model: str = Field(description="The fallback model's name, as its server knows it.")
    max_cost: float | None = Field(
        None, gt=0, description="Its own cost cap in USD for the rounds it runs (unset: only budgets.max_cost)."
    )
    attempts: int = Field(
        1, ge=1, description="With `--attempts`: how many attempts it gets once every attempt of the main model "
        "failed the check (each under its own max_cost).",
    )


class ModelsSettings(_Strict):
    small: str | SmallModelSettings | None = Field(
        None,
        description='The model for chores (compaction summaries, session titles, the explore subagent, subagents '
        'with `model: small`): a name on the main model\'s server (`small = "qwen2.5-coder:3b"`), or a '
        "`[models.small]` table with its own base_url and api_key_env; unset, the main model does everything.",
    )
    fallback: str | FallbackModelSettings | None = Field(
        None,
        description="A stronger model that takes over a goal (`--until`) after the main model's rounds fail the "
        'check (docs/goals.md): a name on the main model\'s server (`fallback = "gpt-4.1"`), or a '
        "`[models.fallback]` table with its own base_url, api_key_env and max_cost; unset, no escalation.",
    )


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
        120.0, gt=0, description="The older name of stall_timeout, used when stall_timeout is unset."
    )
    stall_seconds: float = Field(
        60.0, gt=0, description="Seconds without a token from the model or output from a running tool before "
        "the terminal and stream-json (a `stall` event) say so, and again each time as long again passes."
    )
    stall_timeout: float | None = Field(
        None, gt=0, description="Seconds a reply that started may send nothing before the request is given up and "
        "sent once more; a second stall ends the run (exit code 5). Unset: stream_idle_timeout (120)."
    )
    max_turns: int = Field(50, ge=1, description="Model turns before a run stops.")
    request_timeout: float = Field(
        120.0, gt=0, description="Seconds to wait for a model response to start (a long prompt is read first); "
        "a request timed out is sent once more, then the run ends (exit code 5)."
    )
    max_retries: int = Field(4, ge=0, description="Retries of a model request on 429, 5xx or connection errors.")
    retry_backoff: float = Field(
        1.0, ge=0, description="Seconds before the first retry; doubles each retry (with jitter) unless Retry-After."
    )
    model_client: Literal["builtin", "openai-sdk"] = Field(
        "builtin",
        description="What carries model requests: `builtin`, a thin chat-completions client on httpx2 (starts about "
        "0.5 s sooner), or `openai-sdk`, the official OpenAI SDK; retries, errors and stream assembly are the same.",
    )
    tool_calls: Literal["auto", "native", "text"] = Field(
        "auto",
        description="Tool calls written as text: `auto` parses them until the model calls a tool natively, and only "
        "where they close the reply; `native` never parses them; `text` parses them anywhere.",
    )
    reasoning_history: Literal["auto", "drop", "chain", "keep"] = Field(
        "auto",
        description="The model's reasoning on later requests: `drop` never sends it back, `chain` sends it back on "
        "the replies that called tools, `keep` on every reply; `auto` follows the model family's documentation "
        "(docs/providers.md).",
    )
    reasoning_effort: Literal["low", "medium", "high"] | None = Field(
        None,
        description="How hard a reasoning model thinks, sent the way its family takes it (`reasoning_effort`, "
        "gpt-oss's `Reasoning:` line, Qwen3's `enable_thinking`); nothing for a family without one.",
    )
    models: ModelsSettings = Field(default_factory=ModelsSettings, description="Model roles besides the main model.")
    permissions: PermissionSettings = Field(default_factory=PermissionSettings, description="Permission rules.")
    tools: ToolsSettings = Field(default_factory=ToolsSettings, description="Per-tool settings.")
    diagnostics: DiagnosticsSettings = Field(
        default_factory=DiagnosticsSettings, description="Syntax errors and checkers after edits."
    )
    skills: SkillsSettings = Field(default_factory=SkillsSettings, description="Skills: prompts the model loads.")
    repo_map: RepoMapSettings = Field(
        default_factory=RepoMapSettings, description="The outline of the repository's most-used definitions."
    )
    checkpoints: CheckpointSettings = Field(
        default_factory=CheckpointSettings, description="Workspace snapshots that `sneakycode rewind` restores."
    )
    budgets: BudgetSettings = Field(
        default_factory=BudgetSettings, description="Limits of a headless run; the flags of the same names win."
    )
    hooks: HooksSettings = Field(
        default_factory=HooksSettings, description="Programs run on agent events (Claude Code's hook protocol)."
    )
    mcp: McpSettings = Field(default_factory=McpSettings, description="MCP servers whose tools the model may use.")
    lsp: LspSettings = Field(default_factory=LspSettings, description="Language servers for the `code` tool.")
    batch: BatchSettings = Field(default_factory=BatchSettings, description="`sneakycode batch` settings.")
    telemetry: TelemetrySettings = Field(
        default_factory=TelemetrySettings, description="OpenTelemetry export (docs/ci.md); off unless configured."
    )
    model_settings: dict[str, ModelTuning] = Field(
        default_factory=dict,
        description='Settings for one model by name, `[model_settings."MODEL"] tool_calls = "text", context_window = '
        '8192, edit_format = "replace"`: when that model is named (model, --model), over the config files\' own keys, '
        "under SNEAKYCODE_* variables and flags; `sneakycode doctor --save` writes them.",
    )
    pricing: dict[str, PriceSettings] = Field(
        default_factory=dict,
        description='Prices by model name, `[pricing."MODEL"] input = 0.15, output = 0.60` (USD per million tokens); '
        "they add to and override the built-in table, for cost figures and --max-cost.",
    )


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
    # The folder whose repository files (trust.REPOSITORY_FILES) were read, and whether the user trusts them
    # (or passed --trust-project): what loosens permissions or runs programs from the repository applies only then.
    base: Path | None = None
    trusted: bool = False
    # Loaded for an embedding program that asked for isolation: nothing of the user's (config, skills,
    # commands, subagent definitions, trust records) is read, and nothing is written outside the workspace
    # and the state folder.
    isolated: bool = False
    # Extra roots (`--add-dir`, workspace/roots.py), real paths checked once: part of the workspace for the tools
    # and the sandbox. Set only by a flag or the program's Options, never by a configuration file.
    extra_roots: tuple[Path, ...] = ()

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
