"""Build the repository map: refresh the tag index, rank the definitions toward the focus, cut to the budget.

`build_map` is the one entry point: the agent calls it for the first request of a session, `sneakycode map`
to print it, bench/repo_map.py to time it. The focus is what the conversation is about: files mentioned in
the request (by path, or by a file name the workspace has once), files read or edited, and the names the
request mentions that some file defines.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sneakycode.tools.codemap.index import Refresh, index_for
from sneakycode.tools.codemap.outline import estimate_tokens, render_outline
from sneakycode.tools.codemap.rank import rank_definitions

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_PATHISH = re.compile(r"[\w./-]*\w\.\w+")
HEADING = "# Repository map"


@dataclass(frozen=True)
class Focus:
    """What the conversation is about: workspace-relative paths (mentioned, read, edited) and free text
    (the request) whose paths, file names and identifiers count too."""

    files: frozenset[str] = frozenset()
    text: str = ""


@dataclass
class RepoMap:
    text: str  # the outline; "" when no definition fits or there is none
    files: int  # source files in the index
    definitions: int  # definitions shown
    tokens: int  # estimated tokens of `text`
    refresh: Refresh = field(default_factory=Refresh)
    focus_files: tuple[str, ...] = ()




def build_map(
    root: Path,
    *,
    max_tokens: int,
    hidden: Callable[[str], str | None],
    max_file_bytes: int,
    cache_dir: Path | None = None,
    focus: Focus = Focus(),
    under: str = "",
    seconds: float | None = None,
    index_dir: Path | None = None,
    refreshed: Refresh | None = None,
) -> RepoMap:
    """The map of the source files under `root` (`under`: only those below that relative folder), at most
    `max_tokens` tokens. `hidden` names the deny rule that keeps a path from the read tools (such files are
    neither parsed nor shown); `cache_dir` is the session folder whose log keeps the index between runs;
    `seconds` bounds the parsing (what is left waits for the next build); `index_dir` holds the tags every
    session shares (`repo_map.index_dir`). `refreshed`: the report of a refresh just made (a background build's,
    background.py), so the tree is not walked again."""
    index = index_for(root, cache_dir, index_dir)
    deadline = time.monotonic() + seconds if seconds is not None else None
    with index.lock:
        report = refreshed if refreshed is not None else index.refresh(hidden, max_file_bytes, deadline)
        tags = {path: entry.tags for path, entry in index.entries.items()}
        files, names = _focus(focus, tags)
        index.graph.update(tags, report.changed_paths)
        ranked, index.ranks = rank_definitions(index.graph, tags, files, names, index.ranks,
                                               None if under else max_tokens)
    prefix = under.strip("/") + "/" if under.strip("/") not in ("", ".") else ""
    shown = (r for r in ranked if r.path.startswith(prefix)) if prefix else ranked
    text, count = render_outline(shown, max_tokens)
    return RepoMap(text, len(tags), count, estimate_tokens(text), report, tuple(sorted(files)))


def _focus(focus: Focus, tags: Mapping[str, object]) -> tuple[set[str], set[str]]:
    """The focus files (those of the index) and the defined names the text mentions."""
    files = {path for path in focus.files if path in tags}
    if not focus.text:
        return files, set()
    by_name: dict[str, list[str]] = {}
    for path in tags:
        by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    for mention in _PATHISH.findall(focus.text):
        mention = mention.removeprefix("./")
        if mention in tags:
            files.add(mention)
        elif len(candidates := by_name.get(mention, [])) == 1:
            files.add(candidates[0])
    return files, set(_WORD.findall(focus.text))


def with_heading(repo_map: RepoMap) -> str:
    """The map as a section of a message: a heading that says what it is, then the outline."""
    refresh = repo_map.refresh
    later = f" ({refresh.pending:,} more not read yet)" if refresh.pending else ""
    files = f"{repo_map.files:,} source files" + (" (more not read yet)" if refresh.walk_cut else later)
    if refresh.capped:
        files += f" (the map stops at {refresh.capped:,} source files; the rest are left out)"
    return (
        f"{HEADING}: the most-used definitions of {files}, best first; line numbers are where each is "
        f"defined.\n{repo_map.text}"
    )
