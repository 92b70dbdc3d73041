"""grep_files and find_files against ripgrep, `grep -rn` and a naive Python walker, side by side.

The tree is built from what is installed: the Python standard library folder and this environment's
site-packages, hard-linked (copied where linking is refused) into a temporary git-like folder outside the
repository with a `.gitignore` for `__pycache__/`, and removed afterwards. Every command runs as its own
process, interpreter start included (plus the same call inside a running process, as the agent makes it);
the contenders run interleaved and the median wall time is reported. The match sets (every file and its
number of matching lines) of `sneakycode tool grep_files` and `rg` must be equal.

A second table holds the per-call goal: on two tree sizes (subsets of 20,000 and 60,000 files of the full
tree, or the full tree when it is smaller), one in-process call of grep_files (a match, no match, a rare
match, a path glob, case-insensitive) against the `rg` command that searches the same files (a file type,
not `-g`, for the path glob: see rg_flags), and find_files against `rg --files -g`. "goal met" compares the
ratio with GREP_GOAL / FIND_GOAL; it is a report, never a gate. "same answer" checks the numbers a user
reads: the matching lines, or for no match the "N files searched", against rg's own `--stats`.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from _cli_env import prepare_cli_env

if TYPE_CHECKING:
    from sneakycode.tools.base import ToolResult

RUNS = 7

NAIVE_WALKER = r"""
import os, re, sys
root, pattern, flags, suffix = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
regex = re.compile(pattern, flags)
found = []
for folder, dirs, files in os.walk(root):
    dirs[:] = [d for d in dirs if d not in (".git", "node_modules")]
    for name in files:
        if suffix and not name.endswith(suffix):
            continue
        path = os.path.join(folder, name)
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError):
            continue
        for number, line in enumerate(text.split("\n"), 1):
            if regex.search(line):
                found.append({"path": path, "line": number, "text": line})
print(len(found))
"""


@dataclass(frozen=True)
class GrepCase:
    label: str
    pattern: str
    case_insensitive: bool = False
    file_pattern: str | None = None
    rg_by_glob: bool = False  # goal table: compare with `rg -g` rather than the rg command of the same work

    def tool_args(self) -> dict[str, object]:
        args: dict[str, object] = {"pattern": self.pattern}
        if self.case_insensitive:
            args["case_insensitive"] = True
        if self.file_pattern:
            args["file_pattern"] = self.file_pattern
        return args

    def rg_flags(self, *, by_type: bool = False) -> list[str]:
        """The options that make rg search what grep_files searches (default max_file_size_bytes). rg's
        `--glob` overrides .gitignore for the files it names, so it skips the ignore rules for them (and would
        search an ignored `*.py`); `by_type` names them with a file type instead, which keeps .gitignore as
        file_pattern does: the same work grep_files asks of rg."""
        flags = ["--no-config", "--hidden", "--glob", "!.git", "--max-filesize", "1048576"]
        if self.case_insensitive:
            flags.append("--ignore-case")
        if self.file_pattern and by_type:
            flags += ["--type-add", f"bench:{self.file_pattern}", "--type", "bench"]
        elif self.file_pattern:
            flags += ["--glob", self.file_pattern]
        return flags


GREP_CASES = [
    GrepCase("literal", "subprocess.Popen"),
    GrepCase("regex", r"class \w+Error\(\w*Exception\)"),
    GrepCase("case-insensitive", "deprecated", case_insensitive=True),
    GrepCase("file_pattern *.py", "TODO", file_pattern="*.py"),
]
FIND_CASES = ["*.so", "**/tests/test_*.py"]

GOAL_RUNS = 11
GREP_GOAL = 1.15
FIND_GOAL = 1.5
SMALL_TREE_FILES = 20_000
LARGE_TREE_FILES = 60_000  # issue 29's two sizes; the full tree grows with what is installed
GOAL_CASES = [
    GrepCase("match", "subprocess.Popen"),
    GrepCase("no match", "sneakycode_bench_finds_nothing"),
    GrepCase("rare match", "_remaining_time"),
    GrepCase("path glob", "TODO", file_pattern="*.py"),
    GrepCase("path glob, against rg -g", "TODO", file_pattern="*.py", rg_by_glob=True),
    GrepCase("case-insensitive", "deprecated", case_insensitive=True),
]
GOAL_FIND_CASES = ["*.so", "*.pyi"]


def build_tree(root: Path) -> tuple[int, int]:
    """Hard-link the standard library and site-packages under root; returns (files, bytes)."""
    sources = {Path(sysconfig.get_paths()["stdlib"]).resolve(): "stdlib"}
    for key in ("purelib", "platlib"):
        path = Path(sysconfig.get_paths()[key]).resolve()
        if not any(path == s or s in path.parents for s in sources):
            sources[path] = f"site-packages-{key}"
    files = size = 0
    for source, name in sources.items():
        for folder, _dirs, names in os.walk(source):
            target = root / name / Path(folder).relative_to(source)
            target.mkdir(parents=True, exist_ok=True)
            for file_name in names:
                origin = Path(folder) / file_name
                if origin.is_symlink() or not origin.is_file():
                    continue
                try:
                    os.link(origin, target / file_name)
                except OSError:
                    shutil.copy2(origin, target / file_name)
                files += 1
                size += _read_through(origin)
    (root / ".git").mkdir()
    (root / ".gitignore").write_text("__pycache__/\n*.pyc\n")
    return files, size


def build_subset(tree: Path, subset: Path, limit: int) -> int:
    """Hard-link the first `limit` files of `tree` (folders in sorted order, ignored ones included, as in a
    real checkout) under `subset`; returns how many."""
    linked = 0
    for folder, dirs, names in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        target = subset / Path(folder).relative_to(tree)
        target.mkdir(parents=True, exist_ok=True)
        for name in sorted(names):
            if linked == limit:
                break
            os.link(Path(folder) / name, target / name)
            linked += 1
    (subset / ".git").mkdir()
    return linked


def _read_through(path: Path) -> int:
    """Read a file once so every tool, including the ones that read everything, starts from a warm cache."""
    size = 0
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            size += len(chunk)
    return size


def run_once(argv: Sequence[str], cwd: Path, env: dict[str, str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    out = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False).stdout
    return time.perf_counter() - start, out


def interleaved(contenders: dict[str, Callable[[], float]]) -> dict[str, float]:
    """Median time of each contender over RUNS rounds; each round runs every contender once, so a burst of
    load on the shared machine hits all of them alike."""
    return {name: statistics.median(values) for name, values in rounds(contenders, RUNS).items()}


def rounds(contenders: dict[str, Callable[[], float]], count: int) -> dict[str, list[float]]:
    """Each contender's time in each of `count` rounds; every other round runs them in reverse order, so
    neither always runs first after the other has warmed (or loaded) the machine."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for index in range(count):
        order = list(contenders.items())
        for name, run in order if index % 2 == 0 else reversed(order):
            times[name].append(run())
    return times


def paired_medians(ours: Callable[[], float], reference: Callable[[], float]) -> tuple[float, float, float]:
    """Median times of both over GOAL_RUNS rounds, and the median of the per-round ratios: a load burst that
    lasts a round then skews one ratio, not the result."""
    times = rounds({"ours": ours, "reference": reference}, GOAL_RUNS)
    ratios = [a / b for a, b in zip(times["ours"], times["reference"], strict=True)]
    return statistics.median(times["ours"]), statistics.median(times["reference"]), statistics.median(ratios)


def sneakycode_argv() -> list[str]:
    script = Path(sysconfig.get_path("scripts")) / "sneakycode"
    return [str(script)] if script.exists() else [sys.executable, "-m", "sneakycode.faces.cli.main"]


def rg_counts(rg: str, case: GrepCase, tree: Path, env: dict[str, str]) -> dict[str, int]:
    argv = [rg, "--count", "--with-filename", "--null", *case.rg_flags(), "--regexp", case.pattern, "."]
    out = subprocess.run(argv, cwd=tree, env=env, capture_output=True, check=False).stdout
    counts = {}
    for line in out.splitlines():
        path, count = line.split(b"\0")
        counts[os.fsdecode(path).removeprefix("./")] = int(count)
    return counts


def our_counts(case: GrepCase, tree: Path, env: dict[str, str]) -> dict[str, int]:
    args = {**case.tool_args(), "output_mode": "count", "max_results": 5000}
    argv = [*sneakycode_argv(), "tool", "--workspace", str(tree), "--json", "grep_files", json.dumps(args)]
    big = {**env, "SNEAKYCODE_MAX_OUTPUT_BYTES": str(1 << 30)}
    result = json.loads(subprocess.run(argv, cwd=tree, env=big, capture_output=True, check=True).stdout)
    assert not result["data"].get("truncated"), "pick a pattern with at most 5000 matching files"
    return {path: int(count) for path, count in (line.rsplit(":", 1) for line in result["content"].splitlines())}


def in_process(
    tool: str, args: dict[str, object], tree: Path, seen: list[ToolResult] | None = None
) -> Callable[[], float]:
    """One call of the tool inside this process, as the agent calls it (no interpreter start-up); each
    result is appended to `seen` when given."""
    from sneakycode.config import load_settings
    from sneakycode.permissions.gate import Gate
    from sneakycode.tools.context import open_tool_context

    ctx = open_tool_context(load_settings(tree))

    def call() -> float:
        start = time.perf_counter()
        result = Gate(ctx).run_direct(tool, args)
        elapsed = time.perf_counter() - start
        assert result.success, result.render()
        if seen is not None:
            seen.append(result)
        return elapsed

    return call


def ratio(slow: float, fast: float) -> str:
    return f"{slow / fast:.2f}x"


def grep_row(case: GrepCase, rg: str, tree: Path, env: dict[str, str]) -> str:
    tool = [*sneakycode_argv(), "tool", "--workspace", str(tree), "grep_files", json.dumps(case.tool_args())]
    raw = [rg, "--line-number", *case.rg_flags(), "--regexp", case.pattern, "."]
    run_once(raw, tree, env)  # warm up
    median = interleaved(
        {
            "tool": lambda: run_once(tool, tree, env)[0],
            "in-process": in_process("grep_files", case.tool_args(), tree),
            "rg": lambda: run_once(raw, tree, env)[0],
        }
    )
    grep = ["grep", "-rnI", "-E", *(["-i"] if case.case_insensitive else [])]
    grep += [f"--include={case.file_pattern}"] if case.file_pattern else []
    grep_time, _ = run_once([*grep, "--", case.pattern.replace("\\(", "[(]"), "."], tree, env)
    suffix = case.file_pattern.removeprefix("*") if case.file_pattern else ""
    flags = str(2 if case.case_insensitive else 0)  # re.IGNORECASE
    naive, _ = run_once([sys.executable, "-c", NAIVE_WALKER, ".", case.pattern, flags, suffix], tree, env)
    ours_counts, rg_count = our_counts(case, tree, env), rg_counts(rg, case, tree, env)
    matched = f"{sum(rg_count.values()):,} lines / {len(rg_count):,} files"
    ours, warm, fast = median["tool"], median["in-process"], median["rg"]
    return (
        f"| {case.label} (`{case.pattern}`, {matched}) | {ours:.3f} s | {warm:.3f} s | {fast:.3f} s "
        f"| {ratio(ours, fast)} | {ratio(warm, fast)} | {grep_time:.3f} s | {naive:.3f} s "
        f"| {ratio(naive, ours)} | {ratio(naive, warm)} | {'yes' if ours_counts == rg_count else 'NO'} |"
    )


def find_row(pattern: str, rg: str, tree: Path, env: dict[str, str]) -> str:
    tool = [*sneakycode_argv(), "tool", "--workspace", str(tree)]
    raw = [rg, "--files", "--no-config", "--hidden", "--glob", "!.git", "--glob", pattern, "."]
    median = interleaved(
        {
            "tool": lambda: run_once([*tool, "find_files", json.dumps({"pattern": pattern})], tree, env)[0],
            "in-process": in_process("find_files", {"pattern": pattern}, tree),
            "rg": lambda: run_once(raw, tree, env)[0],
        }
    )
    everything = json.dumps({"pattern": pattern, "max_results": 5000})
    big = {**env, "SNEAKYCODE_MAX_OUTPUT_BYTES": str(1 << 30)}
    out = subprocess.run([*tool, "--json", "find_files", everything], env=big, capture_output=True).stdout
    ours_files = set(json.loads(out)["content"].splitlines())
    rg_files = {line.removeprefix("./") for line in run_once(raw, tree, env)[1].decode().splitlines()}
    ours, warm, fast = median["tool"], median["in-process"], median["rg"]
    return (
        f"| `{pattern}` ({len(rg_files):,} files) | {ours:.3f} s | {warm:.3f} s | {fast:.3f} s "
        f"| {ratio(ours, fast)} | {ratio(warm, fast)} | {'yes' if ours_files == rg_files else 'NO'} |"
    )


def rg_stats(rg: str, case: GrepCase, tree: Path, env: dict[str, str]) -> dict[str, int]:
    """rg's own `--stats` for the case: "matched lines", "files searched" and the rest, by name."""
    argv = [rg, "--count", "--stats", *case.rg_flags(by_type=not case.rg_by_glob), "--regexp", case.pattern, "."]
    out = subprocess.run(argv, cwd=tree, env=env, capture_output=True, check=False).stdout.decode()
    pairs = (line.partition(" ") for line in out.splitlines())
    return {name: int(number) for number, _, name in pairs if number.isdigit()}


def same_answer(result: ToolResult, stats: dict[str, int]) -> bool:
    if not stats["matched lines"]:
        return f"({stats['files searched']:,} files searched)" in result.message
    return bool(result.data["matches"] == stats["matched lines"])


def goal_grep_row(size: str, case: GrepCase, rg: str, tree: Path, env: dict[str, str]) -> str:
    raw = [rg, "--line-number", *case.rg_flags(by_type=not case.rg_by_glob), "--regexp", case.pattern, "."]
    results: list[ToolResult] = []
    run_once(raw, tree, env)  # warm up
    call = in_process("grep_files", case.tool_args(), tree, results)
    ours, fast, paired = paired_medians(call, lambda: run_once(raw, tree, env)[0])
    stats = rg_stats(rg, case, tree, env)
    shown = f"{stats['matched lines']:,} lines / {stats['files searched']:,} files searched"
    answer = "yes" if all(same_answer(result, stats) for result in results) else "NO"
    met = "yes" if paired <= GREP_GOAL else "NO"
    return (
        f"| {size} | grep: {case.label} (`{case.pattern}`{f', {case.file_pattern}' if case.file_pattern else ''}; "
        f"{shown}) | {ours:.3f} s | {fast:.3f} s | {paired:.2f}x | {met} | {answer} |"
    )


def goal_find_row(size: str, pattern: str, rg: str, tree: Path, env: dict[str, str]) -> str:
    raw = [rg, "--files", "--no-config", "--hidden", "--glob", "!.git", "--glob", pattern, "."]
    results: list[ToolResult] = []
    call = in_process("find_files", {"pattern": pattern}, tree, results)
    ours, fast, paired = paired_medians(call, lambda: run_once(raw, tree, env)[0])
    listed = len(run_once(raw, tree, env)[1].splitlines())
    answer = "yes" if all(result.data["files"] == listed for result in results) else "NO"
    return (
        f"| {size} | find: `{pattern}` ({listed:,} files) | {ours:.3f} s | {fast:.3f} s | {paired:.2f}x "
        f"| {'yes' if paired <= FIND_GOAL else 'NO'} | {answer} |"
    )


def goal_table(trees: list[tuple[str, Path]], rg: str, env: dict[str, str]) -> None:
    print(f"Per call: medians of {GOAL_RUNS} interleaved rounds; the ratio is the median of the rounds' ratios.\n")
    goals = f"goal met (grep <= {GREP_GOAL}x, find <= {FIND_GOAL}x)"
    print(f"| tree | call | in-process | rg | in-process / rg | {goals} | same answer as rg |")
    print("|---|---|---|---|---|---|---|")
    for size, tree in trees:
        for case in GOAL_CASES:
            print(goal_grep_row(size, case, rg, tree, env), flush=True)
        for pattern in GOAL_FIND_CASES:
            print(goal_find_row(size, pattern, rg, tree, env), flush=True)


def main() -> int:
    prepare_cli_env()
    from sneakycode.tools.search.ripgrep import locate_rg

    rg = locate_rg()
    if rg is None or shutil.which("grep") is None:
        print("bench/search.py needs rg (the ripgrep wheel) and grep")
        return 1
    goal_only = "--goal-only" in sys.argv[1:]
    with tempfile.TemporaryDirectory(prefix="sneakycode-bench-") as temp:
        tree = Path(temp) / "tree"
        started = time.perf_counter()
        files, size = build_tree(tree)
        small = build_subset(tree, Path(temp) / "subset", SMALL_TREE_FILES)
        large = build_subset(tree, Path(temp) / "large", LARGE_TREE_FILES) if files > LARGE_TREE_FILES else 0
        os.environ["XDG_STATE_HOME"] = str(Path(temp) / "state")  # sessions of this run stay in the temp folder
        env = {**os.environ, "RIPGREP_CONFIG_PATH": ""}
        print(
            f"Tree: {files:,} files, {size / 1e6:,.0f} MB (standard library + site-packages, hard-linked in "
            f"{time.perf_counter() - started:.1f} s; the subsets hold its first {small:,} and {large:,} files). "
            f"Medians of {RUNS} interleaved runs; grep and the naive walker run once."
        )
        if not goal_only:
            print()
            print("| grep_files case | sneakycode tool | in-process | rg | tool / rg | in-process / rg | grep -rn "
                  "| naive walker | naive / tool | naive / in-process | same matches as rg |")
            print("|---|---|---|---|---|---|---|---|---|---|---|")
            for case in GREP_CASES:
                print(grep_row(case, rg, tree, env), flush=True)
            print()
            print("| find_files pattern | sneakycode tool | in-process | rg --files -g | tool / rg | in-process / rg "
                  "| same files as rg |")
            print("|---|---|---|---|---|---|---|")
            for pattern in FIND_CASES:
                print(find_row(pattern, rg, tree, env), flush=True)
        print()
        trees = [(f"{small:,} files", Path(temp) / "subset")]
        trees.append((f"{large:,} files", Path(temp) / "large") if large else (f"{files:,} files", tree))
        goal_table(trees, rg, env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
