"""`[lsp]`: the language servers behind the `code` tool and the diagnostics after edits.

A server names a program to run, so an untrusted repository's `[lsp.servers.NAME]` is held back (config/trust.py
treats every key it does not know as needing trust); a project may only turn servers off.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True, defer_build=True)


class LspServerSettings(_Strict):
    command: str | None = Field(
        None, description="The program that runs the server over stdio (with `args`); unset keeps a built-in's."
    )
    args: list[str] = Field(default_factory=list, description="Arguments of `command` (`--stdio` for most servers).")
    languages: list[str] = Field(
        default_factory=list,
        description="Languages it serves, by the names diagnostics use (python, typescript, tsx, javascript, go, "
        "rust, c, cpp, ...); unset keeps a built-in's.",
    )
    root_markers: list[str] = Field(
        default_factory=list,
        description="Files or folders that mark a project root (`pyproject.toml`, `go.mod`); the nearest folder "
        "above a file that holds one is the server's root, else the workspace.",
    )
    initialization_options: dict[str, Any] = Field(
        default_factory=dict, description="Sent as `initializationOptions` when the server starts."
    )
    enabled: bool = Field(True, description="Whether the server is used (false also turns off a built-in one).")


class LspSettings(_Strict):
    enabled: bool = Field(
        True, description="Offer the `code` tool and language-server diagnostics when a server is available."
    )
    servers: dict[str, LspServerSettings] = Field(
        default_factory=dict,
        description="Language servers by name, `[lsp.servers.NAME]`; a built-in one's name (pyright, basedpyright, "
        "jedi-language-server, typescript-language-server, gopls, rust-analyzer, clangd) changes or turns it off.",
    )
    startup_timeout: float = Field(20.0, gt=0, description="Seconds a server may take to start and initialize.")
    request_timeout: float = Field(
        10.0, gt=0, description="Seconds one request may take; a server that does not answer in time is stopped."
    )
    diagnostics_wait: float = Field(
        1.5, ge=0, description="Seconds an edit waits for a running server's diagnostics, then reports without them."
    )
