"""One task, start to end: its copy of the repository, `setup`, the agent, `test`, and the result line.

The agent runs as `python -m sneakycode.faces.cli.main -p - --yes --output-format json` in a subprocess: the
same code path as a user's `-p` run, isolated (a task cannot corrupt another's memory), sandboxed by the
normal `tools.shell.sandbox` setting (forced to bwrap unless the batch was started with --no-sandbox), and
stoppable: a cancel sends SIGTERM, which the headless run takes as a clean cancel (see faces/cli/headless.py).
Its model requests go through the batch's proxy (see proxy.py), which applies the shared rate limiter.
`setup` and `test` run in the same sandbox as the agent's commands, under the same repository guard
(process/protected.py: the copy's `.git` entry, git config, hooks and `.sneakycode/` read-only, what they
plant there removed): `test` runs after the model changed the code, so it runs what the model wrote.
Whatever a step did, batch's own git calls in the copy afterwards are neutral (see workspaces.py), and a
`.git` that is no longer the one batch made is reported in the result's `notes`.
"""

from __future__ import annotations

import json
import resource
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sneakycode.batch.spec import TaskSpec
from sneakycode.batch.workspaces import TaskCopy, TaskSetupError, changes_since, git_entry_changed, prepare_copy
from sneakycode.config import load_settings, state_dir
from sneakycode.errors import ConfigError
from sneakycode.process.environment import command_environment, full_environment, shell_argv
from sneakycode.process.protected import RepositoryGuard
from sneakycode.process.sandbox import bwrap_argv, probe
from sneakycode.process.supervise import HeadBuffer, supervise
from sneakycode.session.folders import is_session_id, sessions_root
from sneakycode.session.transcript import TRANSCRIPT

# What a setup or test command's output keeps in the result: its tail says why it failed.
OUTPUT_TAIL = 4000
# After SIGTERM, how long the agent has to close its turn and print its result before SIGKILL.
CANCEL_GRACE = 10.0
# Past the agent's own --timeout, how long it has to end cleanly before it is killed.
TIMEOUT_GRACE = 15.0
AGENT_OK = ("finished", "answered")


@dataclass(frozen=True)
class RunOptions:
    """What every task of a batch shares."""

    out_dir: Path
    sandbox: bool
    task_timeout: float
    route: Callable[[str], str]
    """The proxy address that stands for a real base_url (see ModelProxy.route)."""


@dataclass
class _Step:
    exit_code: int | None
    output: str
    seconds: float
    timed_out: bool
    cancelled: bool
    notes: list[str] = field(default_factory=list)
    """What the repository guard undid after the step."""


def tasks_dir(out_dir: Path) -> Path:
    return out_dir / "tasks"


def session_state_dir(out_dir: Path, task_id: str) -> Path:
    return out_dir / "sessions" / task_id


def _run_step(argv: list[str], cwd: Path, env: dict[str, str], timeout: float, cancel: threading.Event,
              *, stdin: bytes | None = None, grace: float = 2.0, guard: RepositoryGuard | None = None) -> _Step:
    out = HeadBuffer(8 << 20)
    tail = bytearray()

    def sink(stream: str, chunk: bytes) -> None:
        if stream == "stdout":
            out.feed(chunk)
        tail.extend(chunk)
        del tail[:-OUTPUT_TAIL]

    try:
        ending = supervise(argv, cwd=cwd, env=env, timeout=max(timeout, 0.1), cancel=cancel, kill_grace=grace,
                           sink=sink, stdin=stdin)  # fmt: skip
    finally:  # the sandbox's processes are all gone (they share its PID namespace): undo what they planted
        notes = guard.restore() if guard is not None else []
    text = bytes(out.kept if stdin is not None else tail).decode("utf-8", "replace")
    return _Step(ending.exit_code, text, ending.duration, ending.timed_out, ending.cancelled, notes)


def _shell_step(name: str, command: str, copy: TaskCopy, options: RunOptions, timeout: float,
                cancel: threading.Event, result: dict[str, Any], hide: tuple[str, ...] = ()) -> _Step:  # fmt: skip
    """`setup` or `test`: in the sandbox under the repository guard run_command uses, unless --no-sandbox."""
    argv = shell_argv(command)
    guard = None
    if options.sandbox:
        found = probe(copy.path, network=True)
        if not found.available:
            raise TaskSetupError(f"the sandbox does not work for {copy.path}: {found.reason}")
        # A worktree's git data lives in the source repository: readable, so `git status` works in the sandbox.
        readable = [copy.common_dir] if not copy.common_dir.is_relative_to(copy.path) else []
        guard = RepositoryGuard.survey(copy.path)
        argv = bwrap_argv(argv, bwrap=found.bwrap, workspace=copy.path, cwd=copy.path, network=True,
                          readable=readable, hidden=[Path(path) for path in hide], guard=guard)  # fmt: skip
    step = _run_step(argv, copy.path, command_environment(), timeout, cancel, guard=guard)
    result["notes"] += [f"{name}: {note}" for note in step.notes]
    return step


def agent_command(task: TaskSpec, copy: TaskCopy, options: RunOptions, seconds_left: float) -> tuple[
        list[str], dict[str, str]]:
    """The `-p` command line of a task with the task's budgets and overrides, and the environment that gives it
    the proxy as base_url (the route holds the batch's key: a command line is readable by every local user)."""
    from sneakycode.agent.model.providers import resolve_model_config

    flags = {key: value for key, value in {"provider": task.provider, "model": task.model,
                                           "base_url": task.base_url}.items() if value is not None}  # fmt: skip
    loaded = load_settings(copy.path, flags)
    config = resolve_model_config(loaded)
    # -P: the task's repository is the working folder, and a `sneakycode/` folder in it must not be imported.
    argv = [sys.executable, "-P", "-m", "sneakycode.faces.cli.main", "-p", "-", "--yes", "--output-format", "json",
            "--workspace", str(copy.path), "--provider", config.provider, "--model", config.model,
            "--timeout", f"{max(seconds_left, 1.0):.1f}"]  # fmt: skip
    for flag, value in (("--max-turns", task.max_turns), ("--max-tokens", task.max_tokens),
                        ("--max-cost", task.max_cost), ("--mode", task.permissions)):  # fmt: skip
        if value is not None:
            argv += [flag, str(value)]
    if task.until is not None:  # a goal (attempts of one task, batch/attempts.py): the agent works until it passes
        argv += ["--until", task.until]
        argv += [f"--until-files={name}" for name in task.until_files or ()]
        argv += ["--check-timeout", str(task.check_timeout)] if task.check_timeout is not None else []
        argv += ["--escalate", task.escalate] if task.escalate is not None else []
    # Every task's agent shares this process's store of parsed tags (by content: the tasks' worktrees of one
    # repository parse it once), not its own state folder's.
    shared_tags = loaded.settings.repo_map.index_folder(state_dir(loaded.settings))
    return argv, {"SNEAKYCODE_BASE_URL": options.route(config.base_url),
                  "SNEAKYCODE_REPO_MAP__INDEX_DIR": str(shared_tags)}


def run_task(task: TaskSpec, options: RunOptions, cancel: threading.Event) -> dict[str, Any]:
    """Run one task and return its result line (see docs/batch.md); never raises for the task's own failures."""
    started = time.time()
    clock = time.monotonic()
    deadline = clock + (task.timeout or options.task_timeout)
    result: dict[str, Any] = {
        "id": task.id, "outcome": "errored", "status": "error", "verdict": None, "message": "", "diff": "",
        "files_changed": [], "turns": 0, "tokens": {"prompt": 0, "completion": 0, "total": 0}, "cost_usd": None,
        "duration": 0.0, "agent_seconds": 0.0, "error": None, "transcript": None, "session_id": None,
        "workdir": str(tasks_dir(options.out_dir) / task.id), "peak_rss_mb": None, "started_at": started,
        "notes": [],
    }  # fmt: skip
    copy = None
    try:
        copy = prepare_copy(task, tasks_dir(options.out_dir))
        _run(task, copy, options, cancel, deadline, result)
    except (TaskSetupError, ConfigError, OSError) as exc:
        result["error"] = str(exc)
    if copy is not None and (replaced := git_entry_changed(copy)) is not None:
        result["notes"].append(replaced)
    if cancel.is_set() and result["outcome"] == "errored":
        result["status"] = "cancelled"
    result["duration"] = round(time.monotonic() - clock, 3)
    result["ended_at"] = time.time()
    # The largest child this process has waited for: the agent is by far the largest it starts.
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
    return result


def _run(task: TaskSpec, copy: TaskCopy, options: RunOptions, cancel: threading.Event, deadline: float,
         result: dict[str, Any]) -> None:
    if task.setup:
        setup = _shell_step("setup", task.setup, copy, options, deadline - time.monotonic(), cancel, result,
                            task.sandbox_hide)  # fmt: skip
        if setup.exit_code != 0:
            ended = "timed out" if setup.timed_out else f"exit code {setup.exit_code}"
            result.update(status="setup_failed", error=f"setup failed ({ended}): {setup.output.strip()[-1000:]}")
            return
    if cancel.is_set():
        return
    state = session_state_dir(options.out_dir, task.id)
    # Without the local Ray's token (executors/ray.py): an agent is no Ray client, and nothing it runs may be.
    agent_env = {**{k: v for k, v in full_environment().items() if k != "RAY_AUTH_TOKEN"},
                 "SNEAKYCODE_STATE_DIR": str(state)}
    if options.sandbox:
        agent_env["SNEAKYCODE_TOOLS__SHELL__SANDBOX"] = "bwrap"
        if task.sandbox_hide:  # a TOML array (JSON's strings are TOML's); config files' lists add to it
            agent_env["SNEAKYCODE_TOOLS__SHELL__SANDBOX_HIDE"] = json.dumps(list(task.sandbox_hide))
    left = deadline - time.monotonic()
    argv, routed = agent_command(task, copy, options, left)
    agent = _run_step(argv, copy.path, {**agent_env, **routed}, left + TIMEOUT_GRACE, cancel,
                      stdin=task.prompt.encode(), grace=CANCEL_GRACE)  # fmt: skip
    result["agent_seconds"] = round(agent.seconds, 3)
    _read_agent_json(agent, state, result)
    changes = changes_since(copy)
    result.update(diff=changes.diff, diff_truncated=changes.truncated, files_changed=changes.files)
    if result["status"] == "cancelled" or cancel.is_set():
        return
    if task.test:
        test = _shell_step("test", task.test, copy, options, max(deadline - time.monotonic(), 30.0), cancel, result,
                           task.sandbox_hide)  # fmt: skip
        passed = test.exit_code == 0
        result["verdict"] = {"passed": passed, "exit_code": test.exit_code, "output": test.output[-OUTPUT_TAIL:]}
        result["outcome"] = "passed" if passed else "failed"
    elif result["status"] in AGENT_OK:
        result["outcome"] = "passed"
    elif result["error"] is None:
        result["outcome"] = "failed"


def _read_agent_json(agent: _Step, state: Path, result: dict[str, Any]) -> None:
    try:
        data = json.loads(agent.output.strip().splitlines()[-1]) if agent.output.strip() else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        why = "timed out" if agent.timed_out else f"exit code {agent.exit_code}"
        result.update(status="cancelled" if agent.cancelled else "error",
                      error=f"the agent printed no result ({why})")  # fmt: skip
        return
    usage = data.get("usage") or {}
    cost = data.get("cost") or {}
    session_id = data.get("session_id")
    named = isinstance(session_id, str) and is_session_id(session_id)  # a name, never a path (session/folders.py)
    transcript = sessions_root(state) / str(session_id) / TRANSCRIPT if named else None
    result.update(
        status=data.get("status", "error"), message=data.get("result", ""), turns=data.get("turns", 0),
        tokens={"prompt": usage.get("prompt_tokens", 0), "completion": usage.get("completion_tokens", 0),
                "total": usage.get("total_tokens", 0)},
        cost_usd=cost.get("usd"), session_id=session_id, transcript=str(transcript) if transcript else None,
        models=data.get("models") or {}, solved_by=data.get("solved_by"),
    )  # fmt: skip
    if data.get("status") not in (*AGENT_OK, "budget", "turn_limit", "cancelled"):
        result["error"] = data.get("result") or f"the agent ended with {data.get('status')}"
