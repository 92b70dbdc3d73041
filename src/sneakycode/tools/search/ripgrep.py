"""ripgrep as the search engine: find the binary, run it through process.run_process, read its --json.

The binary comes from the `ripgrep` wheel (installed next to the interpreter, in the sysconfig scripts
folder), else from PATH. Flags pin the behaviour the fallback reproduces: no user config, hidden files
searched, `.git` skipped, no global git excludes, CRLF-aware `$`. Counting uses `--count` (one short line
per matching file) with `--stats`, whose "N files searched" saves a second walk when nothing matches; only
the files that will be shown are searched again with `--json`, `--max-count` bounding their output, and
run_process's capture limit bounds everything else.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import re
import shutil
import sysconfig
import threading
from pathlib import Path
from typing import Any

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.process.supervise import ProcessResult, run_process
from sneakycode.tools.search.common import FileHits, FindRequest, GrepReport, GrepRequest, Line, invalid_pattern
from sneakycode.tools.search.globs import Narrowing

CAPTURE_LIMIT = 64 << 20
TIMEOUT_SECONDS = 120.0
_COUNT_LINE = re.compile(rb"(.*?)\0(\d+)\r?\n", re.DOTALL)  # --crlf ends lines with CRLF
# The block --stats prints after the last count line (ripgrep 14); only "files searched" is read.
_STATS = re.compile(
    rb"\n\d+ matches\n\d+ matched lines\n\d+ files contained matches\n(\d+) files searched\n"
    rb"\d+ bytes printed\n\d+ bytes searched\n[\d.]+ seconds spent searching\n[\d.]+ seconds\n\Z"
)
_STATS_TAIL = 1024  # the block is under 400 bytes; searching only the tail keeps a huge output cheap
_WRAPPED = "    (?:"


@functools.cache
def locate_rg() -> str | None:
    """The rg shipped with the `ripgrep` wheel of this interpreter, else the first rg on PATH."""
    name = "rg.exe" if os.name == "nt" else "rg"
    scripts = sysconfig.get_path("scripts")
    if scripts:
        candidate = os.path.join(scripts, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which(name)


def selection_flags(narrowing: Narrowing, include_ignored: bool) -> list[str]:
    flags = ["--no-config", "--no-messages", "--hidden", "--no-ignore-global", "--glob", "!.git"]
    if include_ignored:
        flags.append("--no-ignore")
    if narrowing.max_depth is not None:
        flags += ["--max-depth", str(narrowing.max_depth)]
    if narrowing.include_names is not None:
        for glob in narrowing.include_names:
            flags += ["--type-add", f"sneakyinclude:{glob}"]
        flags += ["--type", "sneakyinclude"]
    if narrowing.exclude_names:
        for glob in narrowing.exclude_names:
            flags += ["--type-add", f"sneakyexclude:{glob}"]
        flags += ["--type-not", "sneakyexclude"]
    return flags


def _matcher_flags(request: GrepRequest) -> list[str]:
    flags = ["--crlf"]
    if request.fixed_strings:
        flags.append("--fixed-strings")
    if request.case_insensitive:
        flags.append("--ignore-case")
    return [*flags, "--regexp", request.pattern]


def count_argv(rg: str, request: GrepRequest) -> list[str]:
    # --stats makes --files-with-matches read every file to its end; --max-count 1 stops at the first match.
    first = ["--max-count", "1"] if request.first_match_only else []
    argv = [rg, "--count", "--with-filename", *first, "--null", "--stats"]
    # --max-filesize spares the files named as roots, as grep_files wants, and keeps "files searched" exact.
    argv += ["--max-filesize", str(request.max_filesize)]
    argv += selection_flags(request.narrowing, request.include_ignored)
    return [*argv, *_matcher_flags(request), "--", *request.roots]


def lines_argv(rg: str, request: GrepRequest, paths: list[str]) -> list[str]:
    argv = [rg, "--json", "--no-config", "--no-messages", "--max-count", str(request.line_limit)]
    if request.context_lines:
        argv += ["--context", str(request.context_lines)]
    return [*argv, *_matcher_flags(request), "--", *paths]


def _run(argv: list[str], cwd: Path, cancel: threading.Event) -> ProcessResult:
    # rg starts no children and never opens the terminal: a process group of ours is enough (see supervise).
    result = run_process(
        argv, cwd=cwd, timeout=TIMEOUT_SECONDS, capture_limit=CAPTURE_LIMIT, cancel=cancel, own_session=False
    )
    if result.ending.cancelled:
        raise ToolError(ErrorCode.CANCELLED, "the search was cancelled")
    if result.ending.timed_out:
        raise ToolError(
            ErrorCode.TIMED_OUT,
            f"the search ran longer than {TIMEOUT_SECONDS:.0f} seconds and was stopped",
            hint="Search a smaller folder (path) or restrict the files with file_pattern.",
        )
    return result


def count(rg: str, request: GrepRequest, *, cwd: Path, cancel: threading.Event) -> GrepReport:
    """Every file with a match and its number of matching lines (ripgrep's --count), unsorted, and the
    number of files searched (ripgrep's --stats)."""
    result = _run(count_argv(rg, request), cwd, cancel)
    if result.ending.exit_code == 2 and not result.stdout:
        raise _failure(request.pattern, result.stderr.decode("utf-8", errors="replace"))
    out = result.stdout
    stats = _STATS.search(out, max(0, len(out) - _STATS_TAIL))
    counts = out[: stats.start()] if stats else out
    files = [FileHits(_clean(os.fsdecode(m.group(1))), int(m.group(2))) for m in _COUNT_LINE.finditer(counts)]
    searched = int(stats.group(1)) if stats else None
    return GrepReport(files, complete=result.stdout_total == len(out), searched=searched)


def lines(
    rg: str, request: GrepRequest, paths: list[str], *, cwd: Path, cancel: threading.Event
) -> dict[str, list[Line]]:
    """The matching lines (and context) of the given files, from ripgrep's --json, by path."""
    if not paths:
        return {}
    result = _run(lines_argv(rg, request, paths), cwd, cancel)
    found: dict[str, list[Line]] = {}
    binary: set[str] = set()
    # The last piece is empty, or a line cut short by the capture limit.
    for raw in result.stdout.split(b"\n")[:-1]:
        if not raw.strip():
            continue
        message = json.loads(raw)
        kind, data = message["type"], message["data"]
        if kind == "end" and data["binary_offset"] is not None:
            binary.add(_clean(_decode_path(data["path"])))
        if kind in ("match", "context"):
            found.setdefault(_clean(_decode_path(data["path"])), []).append(_line(kind, data))
    return {path: found_lines for path, found_lines in found.items() if path not in binary}


def find(rg: str, request: FindRequest, *, cwd: Path, cancel: threading.Event) -> list[str]:
    argv = [rg, "--files", "--null", *selection_flags(request.narrowing, request.include_ignored)]
    if request.max_filesize is not None:
        argv += ["--max-filesize", str(request.max_filesize)]
    argv += ["--", *request.roots]
    result = _run(argv, cwd, cancel)
    if result.ending.exit_code == 2 and not result.stdout:
        raise ToolError(ErrorCode.IO_ERROR, f"ripgrep failed: {result.stderr.decode('utf-8', 'replace').strip()}")
    names = os.fsdecode(result.stdout).split("\0")[:-1]  # decoded once: thousands of names
    return [name[2:] for name in names] if all(name.startswith("./") for name in names) else list(map(_clean, names))


def _line(kind: str, data: dict[str, Any]) -> Line:
    text, raw_bytes = _decode_text(data["lines"])
    start = 0
    if kind == "match" and data["submatches"]:
        offset = data["submatches"][0]["start"]
        start = offset if text.isascii() else len(raw_bytes[:offset].decode("utf-8", errors="replace"))
    return Line(data["line_number"], text.removesuffix("\n").removesuffix("\r"), kind == "match", start)


def _decode_text(field: dict[str, str]) -> tuple[str, bytes]:
    if "text" in field:
        text = field["text"]
        return text, b"" if text.isascii() else text.encode("utf-8")
    raw = base64.b64decode(field["bytes"])
    return raw.decode("utf-8", errors="replace"), raw


def _decode_path(field: dict[str, str]) -> str:
    return field["text"] if "text" in field else os.fsdecode(base64.b64decode(field["bytes"]))


def _clean(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def _failure(pattern: str, stderr: str) -> ToolError:
    """ripgrep's complaint as a ToolError: regex errors become invalid_pattern with the position."""
    lines = [line.removeprefix("rg: ") for line in stderr.strip().splitlines()]
    if not any("regex" in line or "literal" in line for line in lines[:2]):
        return ToolError(ErrorCode.IO_ERROR, f"ripgrep failed: {stderr.strip()[:500]}")
    message = next((line.removeprefix("error: ") for line in lines if line.startswith("error: ")), lines[0])
    position = None
    for index, line in enumerate(lines[:-1]):
        if line.startswith("    ") and lines[index + 1].strip().startswith("^"):
            offset = len(_WRAPPED) if line.startswith(_WRAPPED) else 4
            column = lines[index + 1].index("^") - offset
            position = column if 0 <= column <= len(pattern) else None
            break
    return invalid_pattern(pattern, message, position)
