"""Cold start: what every `sneakycode tool` call and every headless run pays before doing any work.

Runs, interleaved round by round so machine noise hits every command alike: `python -c pass` (the floor any
Python CLI pays), the floors with pydantic and with the openai SDK imported, `sneakycode --help`,
`sneakycode tool read_file` in a small workspace, and `sneakycode -p` against the scripted server on
127.0.0.1, timed from process start until the server has read the first chat request (and the CPU the process
tree had spent by then, read from /proc as the server reads the request). Prints the median
wall time, CPU time and peak RSS of each (per child, through /usr/bin/time) next to the targets of the
"Cold start" issue, then the imports that cost the most (`-X importtime`, median cumulative over a few
runs) of the tool call and of the headless run, to record before and after a change. Modules loaded with
`importlib.import_module` (the tool modules) are missing from importtime's list; what they import is not.

    python bench/startup.py [--rounds 15] [--top 15] [--no-importtime] [--against REV] [--repo]
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from time import monotonic
from typing import ClassVar

from _cli_env import prepare_cli_env
from peers import tree_usage

HEAVY_PACKAGES = ("pydantic", "openai", "httpx", "rich", "prompt_toolkit", "mcp", "tree_sitter", "platformdirs")
IMPORTTIME_RUNS = 5
# What any command pays once it validates anything with pydantic: the import and the first model's build
# (which also loads pydantic's plugin machinery). With `import openai`, the floors of the tool call and -p.
REPLY = {"content": "Done."}
READ_FILE_FLOOR_RATIO = 10.0
PYDANTIC_FLOOR = "from pydantic import BaseModel\nclass M(BaseModel):\n    x: int = 0\nM()"


@dataclass
class Sample:
    wall: float
    cpu: float
    """User + system seconds: less disturbed than wall time by other work on the machine."""
    rss_mb: float
    returncode: int


@dataclass
class Case:
    name: str
    argv: list[str]
    wall_target: float | None = None
    rss_target_mb: float | None = None
    samples: list[Sample] = field(default_factory=list)


def sneakycode_argv() -> list[str]:
    script = Path(sys.executable).with_name("sneakycode")
    return [str(script)] if script.exists() else [sys.executable, "-m", "sneakycode.faces.cli.main"]


class Running:
    """The session id of the command under way (its process group's leader), for the server's thread."""

    session: int | None = None


def run_child(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, Sample]:
    """Start time, and wall time, peak RSS and exit code of one run.

    The peak RSS comes from /usr/bin/time, not from this process's `wait4`: a forked child's high-water mark
    starts at its parent's RSS (exec keeps it), so every command would seem to need at least this script's
    own ~25 MB. Without /usr/bin/time the figures are `wait4`'s, floored at this process's RSS.
    """
    timer = shutil.which("time", path="/usr/bin:/bin")
    with tempfile.NamedTemporaryFile("r") as rss_file:
        prefix = [timer, "-f", "%M", "-o", rss_file.name] if timer else []
        start = monotonic()
        proc = subprocess.Popen([*prefix, *argv], env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        Running.session = proc.pid
        _, status, usage = os.wait4(proc.pid, 0)
        Running.session = None
        wall = monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        lines = rss_file.read().split()
    rss_kb = int(lines[-1]) if timer and lines and lines[-1].isdigit() else usage.ru_maxrss
    # wait4's usage covers the child and the children it waited for (the command under /usr/bin/time).
    return start, Sample(wall, usage.ru_utime + usage.ru_stime, rss_kb / 1024, proc.returncode)


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _verdict(value: float, target: float | None) -> str:
    if target is None:
        return ""
    return "met" if value <= target else "MISSED"


def print_table(cases: list[Case], floor: float) -> None:
    head = ("command", "wall median", "x floor", "target", "", "CPU median", "peak RSS", "target", "", "exit codes")
    rows = [head]
    for case in cases:
        wall = _median([s.wall for s in case.samples])
        cpu = _median([s.cpu for s in case.samples])
        rss = _median([s.rss_mb for s in case.samples])
        codes = ",".join(str(c) for c in sorted({s.returncode for s in case.samples}))
        rows.append((
            case.name, f"{wall:.3f} s", f"{wall / floor:.1f}",
            f"<= {case.wall_target:.2f} s" if case.wall_target else "", _verdict(wall, case.wall_target),
            f"{cpu:.3f} s", f"{rss:.1f} MB", f"<= {case.rss_target_mb:.0f} MB" if case.rss_target_mb else "",
            _verdict(rss, case.rss_target_mb), codes,
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    for index, row in enumerate(rows):
        print("| " + " | ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) + " |")
        if index == 0:
            print("| " + " | ".join("-" * width for width in widths) + " |")


def parse_importtime(stderr: str) -> dict[str, tuple[float, float]]:
    """Module -> (self us, cumulative us) from `-X importtime` output."""
    found: dict[str, tuple[float, float]] = {}
    for line in stderr.splitlines():
        if not line.startswith("import time:"):
            continue
        self_us, cumulative_us, name = (part.strip() for part in line[len("import time:"):].split("|"))
        if self_us.isdigit():
            found[name] = (float(self_us), float(cumulative_us))
    return found


@dataclass
class ImportProfile:
    """`-X importtime` of one command over several runs: self and cumulative microseconds per module."""

    title: str
    run: Callable[[], str]
    self_us: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    cumulative_us: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    runs: int = 0

    def sample(self) -> None:
        for name, (self_us, cumulative_us) in parse_importtime(self.run()).items():
            self.self_us[name].append(self_us)
            self.cumulative_us[name].append(cumulative_us)
        self.runs += 1

    def print(self, top: int) -> None:
        """The `top` largest median cumulative times, and the median total spent importing."""
        cumulative = {name: _median(values) / 1000 for name, values in self.cumulative_us.items()}
        total = _median([float(sum(v[i] for v in self.self_us.values() if i < len(v))) for i in range(self.runs)])
        print(f"\n{self.title}: {len(cumulative)} modules, {total / 1000:.0f} ms importing in all; "
              f"top {top} by cumulative (median of {self.runs})\n")
        print(f"| {'cumulative':>10} | {'self':>8} | module |")
        print(f"| {'-' * 10} | {'-' * 8} | ------ |")
        for name in sorted(cumulative, key=cumulative.__getitem__, reverse=True)[:top]:
            print(f"| {cumulative[name]:7.1f} ms | {_median(self.self_us[name]) / 1000:5.1f} ms | {name} |")
        heavy = [f"{name} {cumulative[name]:.0f} ms" for name in HEAVY_PACKAGES if name in cumulative]
        print(f"\nheavy packages imported: {', '.join(heavy) or 'none'}")


def export_revision(revision: str, dest: Path) -> Path:
    """The `src` folder of a git revision of this repository, compiled; put first on PYTHONPATH, it is what
    the installed `sneakycode` script runs, so a revision can be timed beside the work tree in one run."""
    repo = Path(__file__).resolve().parents[1]
    archive = subprocess.run(["git", "-C", str(repo), "archive", revision, "src"], capture_output=True, check=True)
    dest.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    compileall.compile_dir(dest / "src", quiet=1)
    return dest / "src"


@dataclass
class Tree:
    """One version of the source: its label in the table and the environment its commands run with."""

    label: str
    env: dict[str, str]
    help: Case
    tool: Case
    first_request: Case
    whole_turn: Case


REPO_FILES = 300


def make_repository(ws: Path) -> None:
    """A small committed repository: what a session usually starts in (its git commands, the map)."""
    for index in range(REPO_FILES):
        (ws / f"mod_{index}.py").write_text(f"def f{index}(x: int) -> int:\n    return x + {index}\n")
    quiet = {"capture_output": True, "check": True}
    subprocess.run(["git", "init", "-q", str(ws)], **quiet)  # type: ignore[call-overload]
    subprocess.run(["git", "-C", str(ws), "add", "-A"], **quiet)  # type: ignore[call-overload]
    subprocess.run(["git", "-C", str(ws), "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "x"],
                   **quiet)  # type: ignore[call-overload]


def make_tree(label: str, env: dict[str, str], cli: list[str], base_url: str) -> Tree:
    headless = [*cli, "-p", "Say done", "--base-url", base_url, "--model", "scripted-model"]
    return Tree(
        label,
        env,
        Case(f"sneakycode --help{label}", [*cli, "--help"], 0.05),
        Case(f"sneakycode tool read_file{label}", [*cli, "tool", "read_file", '{"file_path": "x"}'], 0.12, 45),
        Case(f"sneakycode -p, to the first request{label}", headless, 0.35),
        Case(f"sneakycode -p, one turn (whole run){label}", headless),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15, help="interleaved runs of every command")
    parser.add_argument("--top", type=int, default=15, help="how many imports to list per command")
    parser.add_argument("--no-importtime", action="store_true", help="only the table")
    parser.add_argument("--against", metavar="REV", help="also time this git revision's src, in the same rounds")
    parser.add_argument("--repo", action="store_true", help=f"the workspace is a git repository of {REPO_FILES} files")
    args = parser.parse_args()
    prepare_cli_env()
    from sneakycode.testing.server import RecordedRequest, ScriptedServer

    class CpuAtRequest(ScriptedServer):
        """Notes, as it reads each POST, the CPU seconds the command's process tree has spent by then."""

        cpu_at: ClassVar[dict[int, float]] = {}

        def _record(self, method: str, path: str, headers: dict[str, str], body: object) -> RecordedRequest:
            record = super()._record(method, path, headers, body)
            if method == "POST" and Running.session is not None:
                self.cpu_at[id(record)] = tree_usage(Running.session)[1]
            return record

    with tempfile.TemporaryDirectory() as tmp, CpuAtRequest({"steps": []}) as server:
        root = Path(tmp)
        ws = root / "ws"
        ws.mkdir()
        (ws / "x").write_text("one line\n")
        if args.repo:
            make_repository(ws)
        env = {**os.environ, "HOME": str(root / "home"), "XDG_STATE_HOME": str(root / "state"),
               "XDG_CONFIG_HOME": str(root / "config"), "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}
        env = {k: v for k, v in env.items() if not k.startswith("SNEAKYCODE_") and k != "PYTHONPATH"}
        cli = sneakycode_argv()
        trees = [make_tree("", env, cli, server.base_url)]
        if args.against:
            src = export_revision(args.against, root / "against")
            trees.append(make_tree(f" @{args.against}", {**env, "PYTHONPATH": str(src)}, cli, server.base_url))
        floors = [
            Case("python -c pass (floor)", [sys.executable, "-c", "pass"]),
            Case("python: import pydantic, build one model", [sys.executable, "-c", PYDANTIC_FLOOR]),
            Case("python -c 'import openai'", [sys.executable, "-c", "import openai"]),
        ]
        for round_index in range(args.rounds + 1):  # round 0 warms the disk cache and is not counted
            runs = [(case, env) for case in floors]
            runs += [(case, tree.env) for tree in trees for case in (tree.help, tree.tool)]
            for case, case_env in runs:
                _, sample = run_child(case.argv, case_env, ws)
                if round_index:
                    case.samples.append(sample)
            for tree in trees:
                seen = len(server.requests)
                server.add_steps([REPLY])
                start, sample = run_child(tree.whole_turn.argv, tree.env, ws)
                posts = [r for r in server.requests[seen:] if r.method == "POST"]
                if round_index:
                    tree.whole_turn.samples.append(sample)
                    arrival = posts[0].received_at - start if posts else float("nan")
                    cpu = server.cpu_at.get(id(posts[0]), float("nan")) if posts else float("nan")
                    tree.first_request.samples.append(Sample(arrival, cpu, sample.rss_mb, sample.returncode))
        rows = [*floors]
        for attribute in ("help", "tool", "first_request", "whole_turn"):
            rows += [getattr(tree, attribute) for tree in trees]
        floor_wall = _median([s.wall for s in floors[0].samples])
        print_table(rows, floor_wall)
        for tree in trees:  # issue 42's target for the tool call: at most 10x the bare interpreter
            ratio = _median([s.wall for s in tree.tool.samples]) / floor_wall
            print(f"\nsneakycode tool read_file{tree.label}: {ratio:.1f}x python -c pass (target: at most "
                  f"{READ_FILE_FLOOR_RATIO:g}x): {_verdict(ratio, READ_FILE_FLOOR_RATIO)}")
        print("\nwall: median of interleaved runs; -p rows share runs (the first request's CPU is the process "
              "tree's as the server read that request, in clock ticks; RSS is the whole run's);"
              f" {args.rounds} rounds; MB = MiB of peak RSS")
        if args.no_importtime:
            return 0
        profiles = []
        for tree in trees:
            profile_env = {**tree.env, "PYTHONPROFILEIMPORTTIME": "1"}

            def stderr_of(case: Case, headless: bool, profile_env: dict[str, str] = profile_env) -> Callable[[], str]:
                def run() -> str:
                    if headless:
                        server.add_steps([REPLY])
                    done = subprocess.run(case.argv, env=profile_env, cwd=ws, capture_output=True, text=True,
                                          check=False)
                    return done.stderr

                return run

            profiles += [
                ImportProfile(f"`sneakycode tool read_file`{tree.label}", stderr_of(tree.tool, False)),
                ImportProfile(f"`sneakycode -p` (one turn){tree.label}", stderr_of(tree.whole_turn, True)),
            ]
        for _ in range(IMPORTTIME_RUNS):  # interleaved too, so load on the machine hits every profile alike
            for profile in profiles:
                profile.sample()
        for profile in profiles:
            profile.print(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
