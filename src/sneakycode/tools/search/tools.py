"""grep_files and find_files: ripgrep when it is installed, the pure-Python fallback otherwise.

This module resolves the path, turns `file_pattern` into the narrowing both backends apply, keeps only
the hits the pattern really matches, sorts them by path and hands them to render.py. The backends
differ only in how they find hits; the fallback is imported when it is needed, so startup stays small.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from sneakycode.config.files import kind_of
from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.base import Tier, ToolArgs, ToolContext, ToolResult, tool
from sneakycode.tools.search.globs import EVERYTHING, FileFilter, GlobError, Narrowing, RootStatus
from sneakycode.workspace.files import Workspace

if TYPE_CHECKING:
    from sneakycode.tools.search.common import FileHits, GrepReport, GrepRequest, Line
    from sneakycode.tools.search.engine import Backend

# The backends (ripgrep's wrapper, the walk), the verification and the rendering are imported by the searches
# that use them, not with the tools: the first request needs only the tools' schemas (issue 42).

_NOTICE_RESERVE = 600
IGNORED_HINT = "Files ignored by .gitignore/.ignore were skipped; set include_ignored to search them too."


@dataclass(frozen=True)
class Scope:
    """Where a search looks: `base` is the search folder relative to the workspace root ("" for the root),
    `roots` what the backends walk, and `file_filter` the exact test on paths relative to `base`."""

    base: str
    roots: tuple[str, ...]
    narrowing: Narrowing
    file_filter: FileFilter | None
    single_file: bool = False

    @property
    def counted_exactly(self) -> bool:
        """Whether the backend's own count of the files it searched is the number `keeps` would keep."""
        return self.file_filter is None or self.narrowing.exact

    def keeps(self, path: str) -> bool:
        if self.file_filter is None:
            return True
        relative = path.rsplit("/", 1)[-1] if self.single_file else path[len(self.base) + 1 :] if self.base else path
        return self.file_filter.matches(relative)


def parse_filter(text: str | None, field: str) -> FileFilter | None:
    if text is None or not text.strip():
        return None
    try:
        return FileFilter.parse(text)
    except GlobError as exc:
        raise ToolError(
            ErrorCode.INVALID_PATTERN,
            f"{field} {text!r} is not a valid glob: {exc}",
            hint="Use globs like *.py, src/**/*.ts or !*_test.go, separated by spaces.",
        ) from None


def _join(base: str, relative: str) -> str:
    return "/".join(part for part in (base, relative) if part) or "."


def build_scope(ws: Workspace, target: Path, file_filter: FileFilter | None) -> Scope:
    shown = ws.display(target)
    base = "" if shown == "." else shown
    if target.is_file():
        parent = ws.display(target.parent)
        return Scope("" if parent == "." else parent, (shown,), EVERYTHING, file_filter, single_file=True)
    if not target.is_dir():
        kind = kind_of(target.stat().st_mode)  # a FIFO would make the search wait forever, a device never end
        raise ToolError(ErrorCode.NOT_REGULAR_FILE, f"{shown!r} is {kind}, neither a regular file nor a folder")

    def status(prefix: str) -> RootStatus:
        lexical = target / prefix
        if not os.path.lexists(lexical):
            return "missing"
        try:
            real = ws.resolve(str(lexical))
        except ToolError:
            return "unsafe"
        if real != lexical:
            return "unsafe"
        return "dir" if real.is_dir() else "missing"

    narrowing = file_filter.narrowing(status) if file_filter else EVERYTHING
    return Scope(base, tuple(_join(base, root) for root in narrowing.roots), narrowing, file_filter)


class GrepFilesArgs(ToolArgs):
    """Field descriptions are left to the tool description: the schema goes out with every request."""

    pattern: str = Field(min_length=1)
    path: str = "."
    file_pattern: str | None = None
    case_insensitive: bool = False
    fixed_strings: bool = False
    context_lines: int = Field(0, ge=0, le=10)
    max_results: int = Field(100, ge=1, le=5000)
    output_mode: Literal["content", "files_with_matches", "count"] = "content"
    include_ignored: bool = False


@tool(
    name="grep_files",
    claude_names=("Grep",),
    tier=Tier.AUTO,
    read_only=True,
    paths=("path",),
    headline="pattern",
    example={"pattern": "def main", "path": "app/", "file_pattern": "*.py"},
)
def grep_files(args: GrepFilesArgs, ctx: ToolContext) -> ToolResult:
    """Regex search (ripgrep syntax) of file contents in `path`; prints path:line:text. file_pattern:
    space-separated globs (`*.py`, `!*_test.go`). Skips .git, binary and ignored files unless
    include_ignored."""
    from sneakycode.tools.search.common import GrepReport, GrepRequest
    from sneakycode.tools.search.engine import backend
    from sneakycode.tools.search.render import Budget, content_lines, left_out_notice, listed_lines, path_key, plural
    from sneakycode.tools.search.verify import reachable_first, verified_lines

    ws = ctx.workspace
    target = ws.resolve(args.path, must_exist=True)
    if "\n" in args.pattern or "\r" in args.pattern:
        raise ToolError(
            ErrorCode.INVALID_PATTERN,
            "the pattern contains a line break, but grep_files matches within single lines",
            hint="Search for one line of the text at a time.",
        )
    scope = build_scope(ws, target, parse_filter(args.file_pattern, "file_pattern"))
    if scope.single_file:
        refuse_hidden(ctx, ws.display(target))
    content = args.output_mode == "content"
    request = GrepRequest(
        pattern=args.pattern,
        roots=scope.roots,
        narrowing=scope.narrowing,
        fixed_strings=args.fixed_strings,
        case_insensitive=args.case_insensitive,
        context_lines=args.context_lines if content else 0,
        first_match_only=args.output_mode == "files_with_matches",
        line_limit=args.max_results if content else 1,
        include_ignored=args.include_ignored,
        max_filesize=ctx.settings.max_file_size_bytes,
    )
    engine = backend(ctx, scope.roots, scope.narrowing.max_depth, args.include_ignored)
    if scope.single_file:
        report, by_path = grep_one_file(request, scope, engine, ws.root, ws.extra_roots)
        hits = report.files
    else:
        report = engine.count(request) if scope.roots else GrepReport([], complete=True, searched=0)
        visible = (hit for hit in report.files if scope.keeps(hit.path) and ctx.hidden(hit.path) is None)
        hits = sorted(visible, key=lambda hit: path_key(hit.path))
        by_path = {}
        if content:
            chosen = pick_files(hits, args.max_results)
            by_path = verified_lines(ws.root, engine.lines(request, chosen), ws.extra_roots)
            fetched = set(chosen)  # a set: hits can be thousands, chosen up to max_results
            hits = [hit for hit in hits if hit.path in by_path or hit.path not in fetched]
    # What ripgrep reported is shown only where it holds inside the workspace (see verify.py): shown lines
    # were read again above, and a listed path is reached again, but only among the max_results that can be
    # listed. The rest (and in content mode the files whose lines were not fetched) are only counted, as
    # find_files counts what it does not list: checking thousands of them cost more than the search.
    if not content:
        unseen = [hit.path for hit in hits if hit.path not in by_path]
        reached = set(reachable_first(ws.root, unseen, args.max_results, ws.extra_roots))
        hits = [hit for hit in hits if hit.path in by_path or hit.path in reached]
    skipped = engine.skipped_notice(ws)
    if not hits:
        return no_matches(args, scope, request, engine, ws.display(target), report, skipped)
    budget = Budget(ctx.output_limit - _NOTICE_RESERVE - len(skipped))
    total = sum(hit.matched_lines for hit in hits)
    if content:
        shown = content_lines(hits, by_path, args.max_results, args.context_lines, budget)
        lines, shown_count, shown_files = shown.lines, shown.matches, shown.files
        unit, shown_total = "matching lines", total
    else:
        counted = args.output_mode == "count"
        entries = [f"{hit.path}:{hit.matched_lines}" if counted else hit.path for hit in hits]
        lines = listed_lines(entries, args.max_results, budget)
        shown_count = shown_files = len(lines)
        unit, shown_total = "files", len(hits)
    cut = shown_count < shown_total or shown_files < len(hits) or budget.exhausted
    if cut or not report.complete:
        message = left_out_notice(
            shown=shown_count,
            total=shown_total,
            unit=unit,
            shown_files=shown_files,
            files=len(hits),
            lower_bound=not report.complete,
            budget=budget,
        )
    elif args.output_mode == "files_with_matches":
        message = f"{plural(len(hits), 'file')} match."
    else:
        message = f"{plural(total, 'matching line')} in {plural(len(hits), 'file')}."
    return ToolResult.ok(
        "\n".join(lines), with_notice(message, skipped), matches=total, files=len(hits), shown=shown_count,
        truncated=cut, backend=engine.name,
    )


def grep_one_file(
    request: GrepRequest, scope: Scope, engine: Backend, root: Path, extra: Sequence[Path] = ()
) -> tuple[GrepReport, dict[str, list[Line]]]:
    """The grep of a file named as `path`: its lines first (counting cannot tell a binary file from text;
    fetching its lines can), and the count pass only when the lines stopped at line_limit."""
    from sneakycode.tools.search.common import FileHits, GrepReport
    from sneakycode.tools.search.verify import verified_lines

    path = scope.roots[0]
    if not scope.keeps(path):
        return GrepReport([], complete=True, searched=0), {}
    by_path = verified_lines(root, engine.lines(request, [path]), extra)
    matched = sum(line.is_match for line in by_path.get(path, []))
    if matched < request.line_limit or request.first_match_only:
        return GrepReport([FileHits(path, matched)] if matched else [], complete=True, searched=1), by_path
    return engine.count(request), by_path


def pick_files(hits: list[FileHits], max_results: int) -> list[str]:
    """The first files (in display order) that together hold max_results matching lines."""
    chosen: list[str] = []
    lines = 0
    for hit in hits:
        if lines >= max_results:
            break
        chosen.append(hit.path)
        lines += hit.matched_lines
    return chosen


def no_matches(
    args: GrepFilesArgs,
    scope: Scope,
    request: GrepRequest,
    engine: Backend,
    where: str,
    report: GrepReport,
    skipped: str,
) -> ToolResult:
    from sneakycode.tools.search.render import plural

    searched = count_searched(scope, request, engine, report)
    filtered = f" matching file_pattern {args.file_pattern!r}" if scope.file_filter else ""
    message = f"No matches for {args.pattern!r} in {where}{filtered} ({plural(searched, 'file')} searched)."
    if not args.include_ignored and not scope.single_file:
        message += " " + IGNORED_HINT
    return ToolResult.ok(message=with_notice(message, skipped), matches=0, files=0, backend=engine.name)


def with_notice(message: str, notice: str) -> str:
    return f"{message}\n{notice}" if notice else message


def count_searched(scope: Scope, request: GrepRequest, engine: Backend, report: GrepReport) -> int:
    """How many files a grep searched: the count pass's own number, or where file_pattern is more exact than
    the narrowing the backend applied (or ripgrep could not tell), a listing of the files it keeps."""
    from sneakycode.tools.search.common import FindRequest

    if not scope.roots:
        return 0
    if report.searched is not None and scope.counted_exactly:
        return report.searched
    listing = FindRequest(scope.roots, scope.narrowing, request.include_ignored, request.max_filesize)
    return sum(1 for path in engine.find(listing) if scope.keeps(path))


class FindFilesArgs(ToolArgs):
    """Field descriptions are left to the tool description: the schema goes out with every request."""

    pattern: str = Field(min_length=1)
    path: str = "."
    sort: Literal["path", "mtime"] = "path"
    max_results: int = Field(200, ge=1, le=5000)
    include_ignored: bool = False


@tool(
    name="find_files",
    claude_names=("Glob",),
    tier=Tier.AUTO,
    read_only=True,
    paths=("path",),
    headline="pattern",
    example={"pattern": "*.yaml", "path": "config/"},
)
def find_files(args: FindFilesArgs, ctx: ToolContext) -> ToolResult:
    """Find files by space-separated globs below folder `path`: `*.py` (any depth), `src/**/test_*.py`,
    `!glob` excludes. Skips .git and ignored files unless include_ignored."""
    from sneakycode.tools.search.common import FindRequest
    from sneakycode.tools.search.engine import backend
    from sneakycode.tools.search.render import Budget, listed_lines, path_key, plural
    from sneakycode.tools.search.verify import reachable_first

    ws = ctx.workspace
    target = ws.resolve(args.path, must_exist=True)
    if not target.is_dir():
        raise ToolError(
            ErrorCode.NOT_A_DIRECTORY,
            f"{args.path!r} is a file; find_files searches a folder",
            hint="Give the folder to search as path, or use read_file on this file.",
        )
    file_filter = parse_filter(args.pattern, "pattern")
    scope = build_scope(ws, target, file_filter)
    engine = backend(ctx, scope.roots, scope.narrowing.max_depth, args.include_ignored)
    skipped = engine.skipped_notice(ws)
    found = engine.find(FindRequest(scope.roots, scope.narrowing, args.include_ignored)) if scope.roots else []
    if not (scope.counted_exactly and not scope.single_file):  # else the backend applied file_filter itself
        found = [path for path in found if scope.keeps(path)]
    paths = [path for path in found if ctx.hidden(path) is None]
    if args.sort == "mtime":
        paths.sort(key=lambda path: (-_mtime(ws.root / path), path_key(path)))
    else:
        paths.sort(key=path_key)
    paths = reachable_first(ws.root, paths, args.max_results, ws.extra_roots)
    where = ws.display(target)
    if not paths:
        message = f"No files match {args.pattern!r} in {where}."
        if not args.include_ignored:
            message += " " + IGNORED_HINT.replace("search", "list")
        return ToolResult.ok(message=with_notice(message, skipped), files=0, backend=engine.name)
    budget = Budget(ctx.output_limit - _NOTICE_RESERVE - len(skipped))
    lines = listed_lines(paths, args.max_results, budget)
    if len(lines) < len(paths):
        message = (
            f"[Showing {len(lines):,} of {len(paths):,} files; {len(paths) - len(lines):,} more left out. "
            "Narrow the pattern or the path.]"
        )
    else:
        message = f"{plural(len(paths), 'file')}."
    return ToolResult.ok(
        "\n".join(lines), with_notice(message, skipped), files=len(paths), shown=len(lines), backend=engine.name
    )


def refuse_hidden(ctx: ToolContext, path: str) -> None:
    rule = ctx.hidden(path)
    if rule is not None:
        raise ToolError(
            ErrorCode.PERMISSION_DENIED,
            f"{path!r} is kept from the model by the deny rule `{rule}`, so it is not searched either",
        )


def _mtime(path: Path) -> float:
    try:
        return path.stat(follow_symlinks=False).st_mtime
    except OSError:
        return 0.0
