"""`sneakycode batch` throughput: a scripted server answering every request after 0.5 s, one repository.

  tasks/min     tasks finished per minute of the whole `sneakycode batch` command (start-up included)
  agent s       mean seconds of a task's agent process (`-p` start-up, the 0.5 s reply, its result)
  overhead s    mean seconds a task took beyond its agent: worktree, the sandboxed `test`, the diff, the line
  peak MB       the largest resident set of one worker's agent process (RUSAGE_CHILDREN of the worker)

Then 200 tasks on the local executor, the runner killed with SIGKILL part-way and `--resume` run after it:
every task must have exactly one result line. Each run uses a fresh HOME, and the agents run sandboxed.
Usage: python bench/batch.py [--tasks N] [--big N] [--executors local,ray]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cli_env import prepare_cli_env
from sneakycode.testing.server import ScriptedServer

REPLY_DELAY = 0.5


def make_repo(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", "-C", str(repo)]
    (repo / "a.py").write_text("a = 1\n")
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "start"], check=True)
    return repo


def write_tasks(path: Path, repo: Path, base_url: str, count: int) -> None:
    lines = [json.dumps({"id": f"t{n:04d}", "repo": str(repo), "prompt": "Look around.", "test": "true",
                         "base_url": base_url, "model": "scripted-model"}) for n in range(count)]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")


def batch_argv(tasks: Path, out: Path, workers: int, executor: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "sneakycode.faces.cli.main", "batch", str(tasks), "--out", str(out), "--workers",
            str(workers), "--executor", executor, *extra]  # fmt: skip


def environment(home: Path) -> dict[str, str]:
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"),
           "XDG_STATE_HOME": str(home / "state"), "RAY_ADDRESS": ""}  # fmt: skip
    return {k: v for k, v in env.items() if not k.startswith("SNEAKYCODE_")}


def results(out: Path) -> list[dict[str, Any]]:
    path = out / "results.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def measure(root: Path, executor: str, workers: int, count: int) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(dir=root))
    repo = make_repo(work)
    with ScriptedServer({"steps": [{"content": "Done."}] * count, "delay": REPLY_DELAY}) as server:
        tasks = work / "tasks.jsonl"
        write_tasks(tasks, repo, server.base_url, count)
        started = time.monotonic()
        run = subprocess.run(batch_argv(tasks, work / "out", workers, executor), env=environment(work / "home"),
                             capture_output=True, text=True)  # fmt: skip
        wall = time.monotonic() - started
    lines = results(work / "out")
    if run.returncode != 0 or len(lines) != count:
        raise SystemExit(f"{executor} x{workers} failed ({run.returncode}): {run.stderr[-2000:]}")
    return {
        "executor": executor, "workers": workers, "tasks": count, "wall": wall,
        "per_minute": count / wall * 60,
        "agent": statistics.mean(r["agent_seconds"] for r in lines),
        "overhead": statistics.mean(r["duration"] - r["agent_seconds"] for r in lines),
        "peak_mb": max(r["peak_rss_mb"] for r in lines),
    }  # fmt: skip


def kill_and_resume(root: Path, count: int, workers: int) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(dir=root))
    repo = make_repo(work)
    # Twice the replies: the tasks that were running at the kill ask again after the resume.
    with ScriptedServer({"steps": [{"content": "Done."}] * (count * 2), "delay": REPLY_DELAY}) as server:
        tasks = work / "tasks.jsonl"
        write_tasks(tasks, repo, server.base_url, count)
        env = environment(work / "home")
        out = work / "out"
        started = time.monotonic()
        runner = subprocess.Popen(batch_argv(tasks, out, workers, "local"), env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)  # fmt: skip
        while len(results(out)) < count // 3 and runner.poll() is None:
            time.sleep(0.1)
        os.kill(runner.pid, signal.SIGKILL)
        runner.wait()
        at_kill = len(results(out))
        resumed = subprocess.run(batch_argv(tasks, out, workers, "local", "--resume"), env=env, capture_output=True,
                                 text=True)  # fmt: skip
        wall = time.monotonic() - started
    lines = results(out)
    ids = [r["id"] for r in lines]
    passed = sum(r["outcome"] == "passed" for r in lines)
    return {"tasks": count, "at_kill": at_kill, "lines": len(lines), "unique": len(set(ids)), "passed": passed,
            "code": resumed.returncode, "wall": wall}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=8, help="tasks per throughput run")
    parser.add_argument("--big", type=int, default=200, help="tasks in the kill -9 + --resume run (0: skip)")
    parser.add_argument("--executors", default="local,ray")
    args = parser.parse_args()
    prepare_cli_env()
    executors = args.executors.split(",")
    if "ray" in executors:
        try:
            import ray  # noqa: F401
        except ImportError:
            print("ray is not installed (pip install -e '.[ray]'): only the local executor is measured")
            executors = [e for e in executors if e != "ray"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        print(f"{args.tasks} tasks per run, one model request each, answered after {REPLY_DELAY} s; sandboxed\n")
        print(f"{'executor':<9}{'workers':>8}{'tasks/min':>11}{'wall s':>9}{'agent s':>9}{'overhead s':>12}"
              f"{'peak MB':>9}")  # fmt: skip
        for executor in executors:
            for workers in (1, 2, 4):
                row = measure(root, executor, workers, args.tasks)
                print(f"{executor:<9}{workers:>8}{row['per_minute']:>11.1f}{row['wall']:>9.1f}{row['agent']:>9.2f}"
                      f"{row['overhead']:>12.2f}{row['peak_mb']:>9.0f}", flush=True)  # fmt: skip
        if args.big:
            big = kill_and_resume(root, args.big, 4)
            lost = big["tasks"] - big["unique"]
            print(f"\n{big['tasks']} tasks, local x4: SIGKILL after {big['at_kill']} results, then --resume: "
                  f"{big['lines']} result lines, {big['unique']} tasks, {lost} lost, "
                  f"{big['lines'] - big['unique']} repeated, {big['passed']} passed, exit {big['code']}, "
                  f"{big['wall']:.0f} s in all")  # fmt: skip
            if lost or big["lines"] != big["unique"]:
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
