"""The tools' settings (`[tools]`, `[tools.shell]`, `[tools.web]`): which tools the model gets, how commands
run (sandbox, network, timeouts) and how the web tools fetch. Part of `Settings`; docs/config.md is generated
from the field descriptions."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from sneakycode.config.web_search import WebSearchSettings


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
    max_jobs: int = Field(4, ge=0, description="Background jobs (run_command background=true) that may run at once.")
    sandbox: Literal["auto", "bwrap", "off"] = Field(
        "auto", description="Run commands under bubblewrap: auto (when it works), bwrap (required), off."
    )
    sandbox_network: bool = Field(
        True, description="The old switch: false is network = off (network, when set, wins over it)."
    )
    network: Literal["off", "allowlist", "on"] | None = Field(
        None,
        description="Sandboxed commands' network: off, on, or allowlist (only allowed_hosts, through SneakyCode's "
        "proxy). Unset: allowlist once allowed_hosts names a host, else on (see docs/shell.md).",
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description='Hosts an allowlist lets commands reach: "pypi.org", "*.example.com" (subdomains only), or a '
        "preset: python, node, rust, go (their public registries). A project file may only narrow it until trusted.",
    )
    allowed_ports: list[Annotated[int, Field(ge=1, le=65535)]] = Field(
        default_factory=lambda: [443, 80], description="Ports an allowlist lets commands reach on allowed hosts."
    )
    sandbox_hide: list[Annotated[str, StringConstraints(pattern=r"^/")]] = Field(
        default_factory=list,
        description="Absolute paths the sandbox covers (an empty folder or file), beside the credential folders "
        "and SneakyCode's state folder; lists from every layer add up (eval hides its suite here).",
    )
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
    search: WebSearchSettings = Field(
        default_factory=WebSearchSettings, description="web_search: the search backend (see docs/web.md)."
    )


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
    web: WebSettings = Field(default_factory=WebSettings, description="web_fetch and web_search settings.")
