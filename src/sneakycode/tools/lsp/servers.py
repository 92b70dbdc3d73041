"""Which language servers a session may use: the built-in table of common servers (found on PATH) merged with
`[lsp.servers.NAME]`, and which one serves a file (by its language, at the root its markers point to).

Only the user's configuration (or a trusted repository's) can name a program here: config/trust.py holds an
untrusted project's `lsp.servers` back, and PATH is the user's. Relative PATH entries are skipped, so a
repository cannot put a `gopls` of its own in front of the real one by being the current folder.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sneakycode.config import LoadedSettings
from sneakycode.tools.diagnostics.languages import EXTENSIONS

PYTHON_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pyrightconfig.json")
JS_LANGUAGES = ("typescript", "tsx", "javascript")


@dataclass(frozen=True)
class ServerSpec:
    """One server: its name, how to run it, what it serves, where its roots are, what it is sent at start."""

    name: str
    argv: tuple[str, ...]
    languages: tuple[str, ...]
    root_markers: tuple[str, ...] = ()
    initialization_options: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    origin: str = "built-in"


# In order of preference where two serve one language: a type checker before jedi, which reports syntax only.
BUILT_IN: tuple[ServerSpec, ...] = (
    ServerSpec("basedpyright", ("basedpyright-langserver", "--stdio"), ("python",), PYTHON_MARKERS),
    ServerSpec("pyright", ("pyright-langserver", "--stdio"), ("python",), PYTHON_MARKERS),
    ServerSpec("jedi-language-server", ("jedi-language-server",), ("python",), PYTHON_MARKERS),
    ServerSpec("typescript-language-server", ("typescript-language-server", "--stdio"), JS_LANGUAGES,
               ("tsconfig.json", "jsconfig.json", "package.json")),
    ServerSpec("gopls", ("gopls",), ("go",), ("go.work", "go.mod")),
    ServerSpec("rust-analyzer", ("rust-analyzer",), ("rust",), ("Cargo.toml",)),
    ServerSpec("clangd", ("clangd",), ("c", "cpp"), ("compile_commands.json", "compile_flags.txt", ".clangd")),
)
# LSP's languageId where it differs from the diagnostics' language names.
LANGUAGE_IDS = {"tsx": "typescriptreact", "cpp": "cpp", "csharp": "csharp"}
# Folders a workspace scan never enters: dependencies and caches hold other people's code.
_SKIPPED = frozenset({"node_modules", "__pycache__", "target", "build", "dist", "vendor", "venv", ".venv"})
SCAN_LIMIT = 5_000  # entries looked at to learn which languages a workspace holds


def configured_servers(loaded: LoadedSettings) -> list[ServerSpec]:
    """The servers this session may start, in order of preference: the configured ones first (a built-in's
    name changes that server), then the built-in ones whose program is on PATH."""
    settings = loaded.settings.lsp
    if not settings.enabled:
        return []
    chosen: list[ServerSpec] = []
    built_in = {spec.name: spec for spec in BUILT_IN}
    for name, server in settings.servers.items():
        base = built_in.get(name)
        if not server.enabled:
            continue
        command = server.command or (base.argv[0] if base else None)
        languages = tuple(server.languages) or (base.languages if base else ())
        if command is None or not languages:
            continue
        args = tuple(server.args) if server.args else (base.argv[1:] if base else ())  # a built-in's `--stdio`
        program = _on_path(command) if os.sep not in command else command
        if program is None:
            continue
        chosen.append(ServerSpec(name, (program, *args), languages,
                                 tuple(server.root_markers) or (base.root_markers if base else ()),
                                 server.initialization_options, loaded.origin_of(f"lsp.servers.{name}.command")))
    for spec in BUILT_IN:
        if spec.name in settings.servers:
            continue
        program = _on_path(spec.argv[0])
        if program is not None:
            chosen.append(ServerSpec(spec.name, (program, *spec.argv[1:]), spec.languages, spec.root_markers))
    return chosen


def server_for(servers: list[ServerSpec], language: str) -> ServerSpec | None:
    return next((spec for spec in servers if language in spec.languages), None)


def root_for(spec: ServerSpec, file: Path, workspace: Path) -> Path:
    """The nearest folder from the file up to the workspace root holding one of the server's root markers;
    the workspace root when none does (a root outside the workspace would let a server index what it may not)."""
    folder = file.parent
    while folder != workspace and workspace in folder.parents:
        if any((folder / marker).exists() for marker in spec.root_markers):
            return folder
        folder = folder.parent
    return workspace


def language_id(language: str) -> str:
    return LANGUAGE_IDS.get(language, language)


def workspace_languages(root: Path, limit: int = SCAN_LIMIT) -> set[str]:
    """The languages of the files in the first `limit` entries of a breadth-first walk (hidden folders and
    dependency folders skipped): enough to tell whether a server has anything to serve."""
    found: set[str] = set()
    for name in _walk(root, limit):
        language = EXTENSIONS.get(os.path.splitext(name)[1].lower())
        if language is not None:
            found.add(language)
    return found


def available_servers(loaded: LoadedSettings) -> list[ServerSpec]:
    """The configured or found servers with a language this workspace holds (what decides whether `code` is
    offered)."""
    servers = configured_servers(loaded)
    if not servers:
        return []
    languages = workspace_languages(loaded.workspace)
    return [spec for spec in servers if languages.intersection(spec.languages)]


def _walk(root: Path, limit: int) -> Iterator[str]:
    pending = [root]
    seen = 0
    while pending and seen < limit:
        folder = pending.pop(0)
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > limit:
                return
            if entry.name.startswith(".") or entry.name in _SKIPPED:
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False):
                    yield entry.name
            except OSError:
                continue


def _on_path(program: str) -> str | None:
    """`program` looked up in PATH's absolute folders only."""
    folders = [part for part in os.environ.get("PATH", "").split(os.pathsep) if os.path.isabs(part)]
    return shutil.which(program, path=os.pathsep.join(folders)) if folders else None
