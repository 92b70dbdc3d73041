"""Which engine runs a search: ripgrep, unless an ignore file on the way is one it must not read.

ripgrep reads every `.gitignore`, `.ignore` and `.rgignore` of the folders it enters (and of their parents),
`info/exclude` and a worktree's `.git`/`commondir`, each whole, by name, following links, blocking. A
repository that makes one of them a link to `/dev/zero` makes ripgrep grow by hundreds of MB a second until
the search's timeout; a FIFO makes it wait for that timeout; a 1 GB file costs a GB. No flag of ripgrep
bounds that, and turning ignore files off would search what they ignore. So before ripgrep runs, the
folders it would enter are walked (walk.py: same ignore rules, each ignore file read through the bounded
reader of config/files.py), and when one of those files is not a regular file within its limit, this call
runs on the pure-Python backend, which walks the same way, skips that file and searches the rest; the
result says which ignore files were skipped. The walk reads folders only, never files (about 0.1 s for
10,000 folders), and its answer is kept while nothing it looked at changed (prewalk.py: one stat per folder
instead of a listing); with include_ignored ripgrep reads no ignore file, so there is no walk.

A process that replaces an ignore file between this walk and ripgrep's read is not caught here; it can
make that one search wait for its timeout.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sneakycode.process.environment import find_program
from sneakycode.tools.base import ToolContext
from sneakycode.tools.search import ripgrep
from sneakycode.tools.search.common import FindRequest, GrepReport, GrepRequest, Line
from sneakycode.tools.search.prewalk import checked_ignore_files
from sneakycode.workspace.files import Workspace

# The notice shares max_output_bytes with the results: a few entries, each of bounded length.
_LISTED = 5
_ENTRY_CHARS = 160


@dataclass(frozen=True)
class Backend:
    """The search engine of this call: ripgrep when it is installed and safe here, else the pure-Python
    fallback; `skipped` holds the ignore files the search does not apply (absolute path: why)."""

    name: str
    count: Callable[[GrepRequest], GrepReport]
    lines: Callable[[GrepRequest, list[str]], dict[str, list[Line]]]
    find: Callable[[FindRequest], list[str]]
    skipped: dict[str, str] = field(default_factory=dict)

    def skipped_notice(self, ws: Workspace) -> str:
        """The line saying which ignore files were skipped, or ""."""
        if not self.skipped:
            return ""
        entries = [f"{ws.display(Path(path))} ({reason})" for path, reason in list(self.skipped.items())[:_LISTED]]
        listed = ", ".join(entry if len(entry) <= _ENTRY_CHARS else entry[:_ENTRY_CHARS] + "..." for entry in entries)
        more = len(self.skipped) - len(entries)
        tail = f" and {more} more" if more else ""
        return f"Ignore files skipped, so their rules were not applied: {listed}{tail}."


def backend(ctx: ToolContext, roots: tuple[str, ...], max_depth: int | None, include_ignored: bool) -> Backend:
    """The engine for a search of `roots` (relative to the workspace root)."""
    cwd, cancel = ctx.workspace.root, ctx.cancel
    skipped = {} if include_ignored else checked_ignore_files(str(cwd), list(roots), max_depth)
    rg = ripgrep.locate_rg()
    if rg is not None and ctx.workspace.contains(Path(os.path.realpath(rg))):
        # rg runs outside the sandbox: never one that a sandboxed command could have written.
        rg = find_program("rg", not_under=cwd)
    if rg is not None and not skipped:
        return _ripgrep(rg, cwd, cancel)
    from sneakycode.tools.search import fallback as fallback

    return Backend(
        "python",
        lambda request: fallback.count(request, cwd=cwd, cancel=cancel),
        lambda request, paths: fallback.lines(request, paths, cwd=cwd, cancel=cancel),
        lambda request: fallback.find(request, cwd=cwd, cancel=cancel),
        skipped,
    )


def _ripgrep(rg: str, cwd: Path, cancel: threading.Event) -> Backend:
    return Backend(
        "ripgrep",
        lambda request: ripgrep.count(rg, request, cwd=cwd, cancel=cancel),
        lambda request, paths: ripgrep.lines(rg, request, paths, cwd=cwd, cancel=cancel),
        lambda request: ripgrep.find(rg, request, cwd=cwd, cancel=cancel),
    )
