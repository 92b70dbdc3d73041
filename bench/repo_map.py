"""The repository map: how long it takes to build and update, how much memory, how large; and which route to
the model costs fewer tokens for the same answer.

1. Build times on real trees, hard-linked into a temporary folder (nothing generated): the Python standard
   library (its `site-packages` left out) and a 5,000-file tree (the standard library, then the first files
   of this environment's site-packages in sorted order). Each tree is measured in its own process: a cold
   build (empty session folder), a warm rebuild with nothing changed, a warm update after one file is edited,
   a new process starting from the session's log, and the peak resident memory. Targets (issue 29): under
   3 s cold and 200 ms warm on 5,000 files.
   The parse itself (tree-sitter, which holds the GIL) is most of a cold build; the first request waits at
   most repo_map.build_seconds for it, smallest files first, and the next build goes on from the index.
2. Tokens by route, through the real `sneakycode -p` against the scripted server, for a scripted "find where
   X is defined and change its signature" task (X: a function the map shows) and for a task that needs no
   map: the map in the first request (what SneakyCode does), no map (grep first), and a `code_map` tool
   (the same requests with the map moved into a tool call's result one request later, plus a 260-character
   schema on every request). Tokens: the compact JSON of each request (messages and tools) / 4, summed.

0. First, a generated tree (bench/_map_tree.py: 5,000 tracked Python files in a git repository, beside an
   untracked virtualenv the map must leave out): a cold build, a shared build (a new process on a copy of the
   tree at another path, as a batch task's worktree or an eval's copy is, with the store the cold build filled),
   and what the first request of a new session waits (the build starting as the session opens), with an empty
   store and with the shared one. Targets (issue 42): cold at most 3 s on 2 cores, or the first request never
   waiting more than 0.5 s.

Run: python bench/repo_map.py [--before OTHER_SRC] [--builds-only] [--generated-only]
   --before measures each tree with another checkout's `src` too (main's, say), in the same run, one line
   before this tree's line of this checkout; --builds-only leaves out the token table.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

from _cli_env import prepare_cli_env

SRC = Path(os.environ.get("SNEAKYCODE_BENCH_SRC") or Path(__file__).resolve().parents[1] / "src")
sys.path.insert(0, str(SRC))

BIG_TREE = 5_000
TOKENS = 1_024  # the default budget of a 32k window
COLD_GOAL, WARM_GOAL = 3.0, 0.2
BUILD_SECONDS = 3.0  # a build bounded in time, as main's first request was (the generated table has today's wait)
CODE_MAP_SCHEMA_CHARS = 260  # the most a code_map tool could take (name, description, parameters)
ENV = {"SNEAKYCODE_RETRY_BACKOFF": "0.01", "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1",
       "SNEAKYCODE_CONTEXT_WINDOW": "32768"}


def link_tree(target: Path, limit: int | None) -> int:
    """Hard-link the standard library (without site-packages), then site-packages, up to `limit` files."""
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    count = 0
    for source, name in ((stdlib, "stdlib"), (site, "site-packages")):
        for folder, dirs, names in os.walk(source):
            dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "__pycache__"))
            for file_name in sorted(names):
                if limit is not None and count >= limit:
                    return count
                origin = Path(folder) / file_name
                if origin.is_symlink() or not origin.is_file():
                    continue
                destination = target / name / origin.relative_to(source)
                destination.parent.mkdir(parents=True, exist_ok=True)
                os.link(origin, destination)
                count += 1
        if limit is None:
            break  # the standard library alone
    return count


def measure(tree: Path, session: Path) -> dict[str, Any]:
    """Run in a child process: the timings of one tree, and its peak memory."""
    from sneakycode.tools.codemap import index as index_module
    from sneakycode.tools.codemap.repomap import build_map

    def build(seconds: float | None = None, where: Path = session) -> tuple[float, Any]:
        start = time.perf_counter()
        repo_map = build_map(tree, max_tokens=TOKENS, hidden=lambda _: None, max_file_bytes=262_144,
                             cache_dir=where, seconds=seconds)
        return time.perf_counter() - start, repo_map

    capped_session = session.parent / "capped" / session.name  # apart: a new session starts from a sibling's log
    capped_session.mkdir(parents=True)
    capped, capped_map = build(BUILD_SECONDS, capped_session)  # what a first request waited before issue 42
    index_module._indexes.clear()
    before_self, before_workers = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    cold, first = build()
    after_self, after_workers = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    cold_cpu = sum(after.ru_utime + after.ru_stime - ahead.ru_utime - ahead.ru_stime
                   for ahead, after in ((before_self, after_self), (before_workers, after_workers)))
    unchanged, _ = build()
    edited = next(p for p in sorted(tree.rglob("*.py")) if p.stat().st_size > 2000)
    text = edited.read_text(encoding="utf-8", errors="replace")
    edited.unlink()  # a hard link to the real file: the edit goes to a new file, never into the installation
    edited.write_text(text + "\n\ndef bench_added_function():\n    return None\n", encoding="utf-8")
    update, updated = build()
    index_module._indexes.clear()
    reloaded, _ = build()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    worker_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest worker's, if any
    return {"files": first.files, "parsed": first.refresh.parsed, "cold": cold, "cold_cpu": cold_cpu, "capped": capped,
            "capped_pending": capped_map.refresh.pending, "unchanged": unchanged,
            "update": update, "update_parsed": updated.refresh.parsed, "new_process": reloaded, "peak_mb": peak,
            "worker_peak_mb": worker_peak,
            "map_tokens": first.tokens, "definitions": first.definitions,
            "log_mb": sum(f.stat().st_size for f in session.iterdir()) / 1e6}


def measure_generated(tree: Path, work: Path, mode: str) -> dict[str, Any]:
    """Run in a child process (a new process, as a new session is): one measurement of the generated tree.
    cold: an empty store and session folder; shared: `tree` is a copy elsewhere (a batch task's worktree) and
    the store is the one a cold build filled; wait-*: what the first request of a session waits, started the
    moment the session opens (no head start), with an empty (wait-cold) or filled (wait-shared) store."""
    import inspect

    from sneakycode.config.repo_map import RepoMapSettings
    from sneakycode.tools.codemap.repomap import Focus, build_map

    shares = "index_dir" in inspect.signature(build_map).parameters
    session = work / f"state-{mode}" / "sessions" / "s"  # its own state folder: no other session's log to start from
    session.mkdir(parents=True)
    store = {"index_dir": work / ("fresh-store" if mode == "wait-cold" else "shared-store")} if shares else {}
    options: dict[str, Any] = {"max_tokens": TOKENS, "hidden": lambda _: None, "max_file_bytes": 262_144,
                               "cache_dir": session, **store}
    seconds = RepoMapSettings().build_seconds
    if shares and mode.startswith("wait"):  # imported first: a session has them before its first request
        from sneakycode.agent.first_request import wait_for_map
        from sneakycode.tools.codemap import index  # noqa: F401
        from sneakycode.tools.codemap.background import MapBuild, MapRequest
    before_cpu = _cpu()
    start = time.perf_counter()
    if mode in ("cold", "shared"):
        repo_map = build_map(tree, **options)
    elif shares:  # this checkout: the build starts as the session opens; the first request waits for it
        build = MapBuild(MapRequest(tree, options["hidden"], options["max_file_bytes"], session,
                                    options["index_dir"], TOKENS))
        repo_map = wait_for_map(build, Focus(), seconds)
        elapsed = time.perf_counter() - start
        build.stop()
        if isinstance(repo_map, str):
            return {"seconds": elapsed, "why": repo_map, "files": 0, "definitions": 0, "pending": 0, "reused": 0,
                    "cpu": _cpu() - before_cpu}
    else:  # before: the first request builds the map itself, parsing for at most build_seconds
        repo_map = build_map(tree, seconds=seconds, **options)
    elapsed = time.perf_counter() - start
    refresh = repo_map.refresh
    return {"seconds": elapsed, "cpu": _cpu() - before_cpu, "files": repo_map.files,
            "definitions": repo_map.definitions, "pending": refresh.pending + (1 if refresh.walk_cut else 0),
            "reused": getattr(refresh, "reused", 0), "build_seconds": seconds}


def _cpu() -> float:
    return sum(usage.ru_utime + usage.ru_stime
               for usage in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)))


def generated_table(temp: Path, before: str | None) -> None:
    """Cold, shared and first-request builds of the generated tree, side by side for each checkout."""
    from _map_tree import GENERATED_FILES, VENV_FILES, generate_tree

    tree = temp / "generated"
    generate_tree(tree)
    print(f"Generated tree: {GENERATED_FILES:,} tracked Python files in a git repository, beside an untracked "
          f".venv of {VENV_FILES:,} files. Parallelism: {free_cores()}; load average {os.getloadavg()[0]:.1f}.\n")
    print("| code | source files mapped | cold build (its CPU) | shared build: a copy elsewhere, new process | "
          "first request's wait, empty store | first request's wait, shared store | goal met (cold < 3 s, or "
          "wait <= 0.5 s) |")
    print("|---|---|---|---|---|---|---|")
    for code, src in ([("before", before)] if before else []) + [("this checkout", str(SRC))]:
        work = temp / f"generated-{code.replace(' ', '-')}"
        copies = {}
        for mode in ("cold", "shared", "wait-cold", "wait-shared"):
            where = tree if mode in ("cold", "wait-cold") else work / f"copy-{mode}"
            if where != tree:  # a batch task's copy (batch/workspaces.py): same content, another path and mtimes
                subprocess.run(["git", "clone", "--quiet", str(tree), str(where)], check=True)
            out = subprocess.run([sys.executable, __file__, "--measure-generated", str(where), str(work), mode],
                                 capture_output=True, text=True, check=True,
                                 env={**os.environ, "PYTHONPATH": src, "SNEAKYCODE_BENCH_SRC": src})
            copies[mode] = json.loads(out.stdout)
        cold, shared = copies["cold"], copies["shared"]

        def wait(r: dict[str, Any]) -> str:
            if "why" in r:
                return f"{r['seconds']:.2f} s (no map: {r['why']})"
            left = f", {r['pending']:,} files left for later" if r["pending"] else ""
            return f"{r['seconds']:.2f} s ({r['files']:,} files, {r['definitions']} definitions{left})"

        met_cold = cold["seconds"] < COLD_GOAL
        met_wait = max(copies["wait-cold"]["seconds"], copies["wait-shared"]["seconds"]) <= 0.5
        met = f"cold {'yes' if met_cold else 'NO'}, wait {'yes' if met_wait else 'NO'}"
        print(f"| {code} | {cold['files']:,} | {cold['seconds']:.2f} s ({cold['cpu']:.2f} s) | "
              f"{shared['seconds']:.2f} s ({shared['reused']:,} files' tags reused) | {wait(copies['wait-cold'])} | "
              f"{wait(copies['wait-shared'])} | {met} |", flush=True)


def spin(count: int) -> float:
    start = time.perf_counter()
    total = 0
    for number in range(count):
        total += number
    return time.perf_counter() - start


def free_cores() -> str:
    """How much of the box's parallelism this run could have: two spinning processes at once against one
    (1.0x: two free cores, 2.0x: the equivalent of one; the box is shared with other jobs)."""
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(2) as pool:
        pool.map(spin, [1000, 1000])
        alone = pool.apply(spin, (10_000_000,))
        start = time.perf_counter()
        pool.map(spin, [10_000_000, 10_000_000])
        both = time.perf_counter() - start
    return f"two spinning processes at once took {both / alone:.2f}x as long as one (1.00x: two free cores)"


def build_table(temp: Path, before: str | None) -> None:
    print(f"Parallelism at the start: {free_cores()}; load average {os.getloadavg()[0]:.1f}.\n")
    print("| tree | code | files in tree | source files mapped | cold build, all files | its CPU time (process + "
          "workers) | a build bounded to "
          f"{BUILD_SECONDS:g} s | warm, nothing changed | warm, one file edited | new process, from "
          "the log | peak memory | map (1,024-token budget) | goal met (cold < 3 s, warm < 200 ms) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, limit in (("Python standard library", None), (f"{BIG_TREE:,} files (stdlib + site-packages)",
                                                             BIG_TREE)):
        tree = temp / f"tree-{limit}"
        linked = link_tree(tree, limit)
        for code, src in ([("before", before)] if before else []) + [("this checkout", str(SRC))]:
            session = temp / f"session-{limit}-{code}" / "session"  # apart: no sibling's log to start from
            session.mkdir(parents=True)
            fresh = temp / f"tree-{limit}-{code}"  # a copy, so the edit of one run is not the next one's
            subprocess.run(["cp", "-al", str(tree), str(fresh)], check=True)
            out = subprocess.run([sys.executable, __file__, "--measure", str(fresh), str(session)],
                                 capture_output=True, text=True, check=True,
                                 env={**os.environ, "PYTHONPATH": src, "SNEAKYCODE_BENCH_SRC": src})
            r = json.loads(out.stdout)
            cold_met = "cold yes" if r["cold"] < COLD_GOAL else "cold NO"
            met = f"{cold_met}, warm {'yes' if r['update'] < WARM_GOAL else 'NO'}"
            workers = f" (+ {r['worker_peak_mb']:.0f} MB per worker)" if r["worker_peak_mb"] else ""
            wait = f"{r['capped']:.2f} s ({r['capped_pending']:,} files left for later)"
            print(f"| {label} | {code} | {linked:,} | {r['files']:,} | {r['cold']:.2f} s | {r['cold_cpu']:.2f} s | "
                  f"{wait} | "
                  f"{r['unchanged'] * 1000:.0f} ms | {r['update'] * 1000:.0f} ms ({r['update_parsed']} parsed) | "
                  f"{r['new_process'] * 1000:.0f} ms | "
                  f"{r['peak_mb']:.0f} MB{workers} | {r['map_tokens']:,} tokens, {r['definitions']} definitions | "
                  f"{met} |",
                  flush=True)
    print(f"\nParallelism at the end: {free_cores()}; load average {os.getloadavg()[0]:.1f}.")


def request_tokens(request: dict[str, Any], extra_chars: int = 0) -> int:
    body = {"messages": request["messages"], "tools": request.get("tools", [])}
    return (len(json.dumps(body, separators=(",", ":"), ensure_ascii=False)) + extra_chars) // 4


def tool_route(requests: list[dict[str, Any]], map_text: str) -> int:
    """The map-in-the-first-request requests rewritten as a code_map tool would make them: the first request
    without the map, a call and its result before the rest, and the tool's schema on every request."""
    call = {"role": "assistant", "content": None, "tool_calls": [{"id": "call_map", "type": "function",
            "function": {"name": "code_map", "arguments": "{}"}}]}
    result = {"role": "tool", "tool_call_id": "call_map", "content": map_text}
    total = 0
    for number, request in enumerate(requests):
        messages = [dict(m) for m in request["messages"]]
        first_user = next(i for i, m in enumerate(messages) if m["role"] == "user")
        messages[first_user]["content"] = str(messages[first_user]["content"]).replace("\n\n" + map_text, "")
        if number == 0:
            total += request_tokens({**request, "messages": messages}, CODE_MAP_SCHEMA_CHARS)
        messages[first_user + 1:first_user + 1] = [call, result]
        total += request_tokens({**request, "messages": messages}, CODE_MAP_SCHEMA_CHARS)
    return total


def route_table(temp: Path) -> None:
    tree = temp / "tree-None"
    map_out = subprocess.run([sys.executable, "-m", "sneakycode.faces.cli.main", "map", "--workspace", str(tree),
                              "--tokens", str(TOKENS)], capture_output=True, text=True, env={**os.environ, **ENV,
                              "PYTHONPATH": str(SRC), "XDG_STATE_HOME": str(temp / "state")}, check=True)
    path, line = "", ""
    for row in map_out.stdout.splitlines():
        if not row.startswith("  "):
            path = row.rstrip(":")
        elif row.split(" ", 3)[3].startswith("def ") and row.endswith("):"):
            line = row.split(" ", 3)[3]
            break
    name = line.split("def ", 1)[1].split("(")[0]
    changed = line.removesuffix("):") + ", self_check=False):"
    task = f"Find where {name} is defined and add a keyword parameter self_check=False to its signature."
    read = {"name": "read_file", "arguments": {"file_path": path}}
    edit = {"name": "str_replace", "arguments": {"file_path": path, "old_str": line, "new_str": changed}}
    grep = {"name": "grep_files", "arguments": {"pattern": f"def {name}\\(", "file_pattern": "*.py"}}
    readme = [{"name": "read_file", "arguments": {"file_path": "stdlib/this.py"}}]
    print(f"Task: \"{task}\" ({path}); a task that needs no map: \"What does stdlib/this.py print?\"\n")
    print("| task | route | requests | prompt tokens, summed | vs map in the first request |")
    print("|---|---|---|---|---|")
    for label, the_task, with_map, without in (
        ("change a signature", task, [read, edit], [grep, read, edit]),
        ("needs no map", "What does stdlib/this.py print?", readme, readme),
    ):
        on = run_task(temp, tree, the_task, with_map, map_on=True)
        off = run_task(temp, tree, the_task, without, map_on=False)
        first_user = next(m for m in on[0]["messages"] if m["role"] == "user")["content"]
        map_text = str(first_user).split("\n\n", 1)[1]
        if label == "needs no map":  # the model would not call code_map: only its schema is paid
            tool = (len(off), sum(request_tokens(r, CODE_MAP_SCHEMA_CHARS) for r in off))
        else:
            tool = (len(on) + 1, tool_route(on, map_text))
        results = {"map in the first request": (len(on), sum(map(request_tokens, on))),
                   "no map" + (" (grep first)" if label != "needs no map" else ""): (len(off),
                                                                                      sum(map(request_tokens, off))),
                   "code_map tool": tool}
        base = results["map in the first request"][1]
        for route, (count, tokens) in results.items():
            print(f"| {label} | {route} | {count} | {tokens:,} | {tokens / base:.2f}x |", flush=True)


def run_task(temp: Path, tree: Path, task: str, steps: list[dict[str, Any]], *, map_on: bool) -> list[dict[str, Any]]:
    """The requests of one scripted -p run of `task` on a copy of `tree`, the map on or off."""
    from sneakycode.testing.server import ScriptedServer

    work = temp / f"work-{len(os.listdir(temp))}"
    subprocess.run(["cp", "-al", str(tree), str(work)], check=True)
    if not map_on:
        (work / ".sneakycode").mkdir()
        (work / ".sneakycode" / "config.toml").write_text("[repo_map]\nenabled = false\n")
    script = [{"tool_calls": [step]} for step in steps] + [{"content": "Done."}]
    with ScriptedServer({"steps": script, "models": ["scripted-model"]}) as server:
        subprocess.run([sys.executable, "-m", "sneakycode.faces.cli.main", "-p", task, "--base-url", server.base_url,
                        "--model", "scripted-model", "--workspace", str(work), "--yes"], capture_output=True,
                       text=True, check=True,
                       env={**os.environ, **ENV, "PYTHONPATH": str(SRC), "XDG_STATE_HOME": str(temp / "state")})
        return list(server.chat_requests)


def main() -> int:
    if sys.argv[1:2] == ["--measure"]:
        print(json.dumps(measure(Path(sys.argv[2]), Path(sys.argv[3]))))
        return 0
    if sys.argv[1:2] == ["--measure-generated"]:
        print(json.dumps(measure_generated(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4])))
        return 0
    prepare_cli_env()
    with tempfile.TemporaryDirectory(prefix="sneakycode-map-bench-") as temp:
        before = sys.argv[sys.argv.index("--before") + 1] if "--before" in sys.argv else None
        generated_table(Path(temp), before)
        if "--generated-only" in sys.argv:
            return 0
        print()
        build_table(Path(temp), before)
        if "--builds-only" not in sys.argv:
            print()
            route_table(Path(temp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
