"""Several attempts of one task (`-p --attempts N`, docs/goals.md): N independent runs of the same request, each
in its own git worktree through the batch engine (`--workers` at once, local or Ray), each with the goal check.

The attempts start from a snapshot of the workspace as it is (batch/workspaces.py `snapshot_working_tree`: the
uncommitted and untracked files too), and each one's diff is against that snapshot, so applying the chosen one
gives the workspace exactly that attempt's files. The user's workspace, index and stash are not touched while
they run. Afterwards one attempt is chosen: the one whose check passes (ties: the smallest diff, then the fewest
tokens), or, without a check, by the stated rule: `first` (the first to finish with a change) or `vote` (the
small model reads the diffs and names one). When every attempt fails the check and `[models] fallback` is set,
the fallback model runs its own attempts (one, or `[models.fallback] attempts`), each under its own cost cap;
the attempts of the main model never escalate on their own. Its change is applied to the workspace only when
`confirm` says so (the terminal asks; `-p` needs --yes); every attempt is reported, and usage and cost by model.
Whatever happens, cancelled included, every worktree is removed before this returns: the batch engine ends each
attempt's processes (SIGTERM, then SIGKILL with its process group), and `remove_copy` drops its worktree.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, cast

from sneakycode.api.goal import check_goal_options
from sneakycode.api.options import Options
from sneakycode.api.result import Result, Status, TokenUsage
from sneakycode.batch.engine import BatchConfig, Executor, run_batch
from sneakycode.batch.results import read_results
from sneakycode.batch.runner import tasks_dir
from sneakycode.batch.spec import TaskSpec
from sneakycode.batch.workspaces import TaskSetupError, remove_copy, repository_git, snapshot_working_tree
from sneakycode.config import load_settings
from sneakycode.errors import ConfigError
from sneakycode.process.sandbox import probe

Escalate = Literal["after", "never", "now"]
Confirm = Callable[["Attempts"], bool]
"""Asked once an attempt is chosen: True applies its change to the workspace."""


@dataclass
class Attempts:
    """What the attempts found: a row per attempt, the chosen one (None: none fits the rule) and its diff."""

    rows: list[dict[str, Any]]
    chosen: dict[str, Any] | None
    rule: str
    diff_path: Path | None = None


def run_attempts(options: Options, prompt: str, *, workers: int = 1, executor: Executor = "local",
                 confirm: Confirm = lambda _found: False, stop: threading.Event | None = None,
                 vote: Callable[[str], str] | None = None) -> Result:
    """Run `options.attempts` attempts of `prompt` and apply the chosen one when `confirm` agrees. A ConfigError
    before anything starts: bad options, or a workspace that is not a git repository. `vote` answers the
    ballot of `attempt_rule="vote"` (default: the small model of a session over the workspace)."""
    check_goal_options(options)
    if workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {workers}")
    workspace = Path(options.workspace or ".").resolve()
    top = repository_top(workspace)
    base = snapshot_working_tree(top)  # the working tree as it is: uncommitted and untracked files included
    fallback = fallback_of(workspace, options)
    stop = stop or threading.Event()
    out_dir = Path(tempfile.mkdtemp(prefix="sneakycode-attempts-"))
    config = BatchConfig(out_dir=out_dir / "main", workers=workers, executor=executor,
                         sandbox=sandboxed(workspace, options))  # fmt: skip
    # The children never escalate on their own: the fallback takes over once every attempt failed the check.
    tasks = [task_for(options, prompt, top, base, number, "never" if fallback else None)
             for number in range(1, options.attempts + 1)]
    rows = run_phase(tasks, config, stop, "main")
    if fallback is not None and not stop.is_set() and not any(row["check_passed"] for row in rows):
        more = [task_for(options, prompt, top, base, len(rows) + number, "now") for number in range(1, fallback[1] + 1)]
        rows += run_phase(more, replace(config, out_dir=out_dir / "fallback"), stop, "fallback")
    found = choose(rows, options, vote, workspace)
    if found.chosen is not None:
        found.diff_path = out_dir / "chosen.diff"
        found.diff_path.write_text(found.chosen["diff"], encoding="utf-8")
    applied = False
    if found.chosen is not None and not stop.is_set() and found.chosen["diff"] and confirm(found):
        apply_diff(top, found)
        applied = True
    return result_of(found, options, applied, stop.is_set(), out_dir)


def run_phase(tasks: list[TaskSpec], config: BatchConfig, stop: threading.Event, role: str) -> list[dict[str, Any]]:
    """Run attempts through the batch engine and report each; whatever ends them (cancel included), every
    worktree is removed before this returns."""
    try:
        run_batch(tasks, config, stop)
        results = sorted(read_results(config.out_dir), key=lambda r: int(r["id"].split("-")[1]))
        return [{**row_of(result), "role": role} for result in results]
    finally:
        for task in tasks:
            remove_copy(task, tasks_dir(config.out_dir))
        shutil.rmtree(config.out_dir / "sessions", ignore_errors=True)


def fallback_of(workspace: Path, options: Options) -> tuple[str, int] | None:
    """`[models] fallback` and its number of attempts, when it is to take over attempts that all failed: with a
    check, unless --escalate never. ("now" runs every attempt on it already.)"""
    if options.until is None or options.escalate != "after":
        return None
    chosen = load_settings(workspace, Options(settings=options.settings).layer()).settings.models.fallback
    if chosen is None:
        return None
    return (chosen, 1) if isinstance(chosen, str) else (chosen.model, chosen.attempts)


def repository_top(workspace: Path) -> Path:
    """The git repository the workspace is (attempts are worktrees of it); a ConfigError when it is none."""
    try:
        return Path(repository_git(["rev-parse", "--show-toplevel"], workspace).strip())
    except TaskSetupError:
        raise ConfigError(f"--attempts needs a git repository: {workspace} is not one (run `git init` first: "
                          "attempts start from a snapshot of its working tree)") from None


def sandboxed(workspace: Path, options: Options) -> bool:
    """The attempts' commands are sandboxed as the user's own would be: unless `tools.shell.sandbox` is off, and
    where bubblewrap works (`auto` runs unsandboxed elsewhere, as run_command does)."""
    settings = load_settings(workspace, Options(settings=options.settings).layer()).settings
    if settings.tools.shell.sandbox == "off":
        return False
    return probe(workspace, network=True).available or settings.tools.shell.sandbox == "bwrap"


def task_for(options: Options, prompt: str, top: Path, base: str, number: int, escalate: Escalate | None) -> TaskSpec:
    """Attempt `number` as a batch task from commit `base`: the same request, budgets and model; the check as the
    agent's goal and, run again by batch after the agent, as the verdict (an agent's word that it passed is not
    taken); `escalate` when the fallback model works on it (None: the options' own)."""
    chosen = escalate or cast(Escalate, options.escalate)
    return TaskSpec(
        id=f"attempt-{number}", repo=str(top), ref=base, prompt=prompt, escalate=chosen, test=options.until,
        timeout=options.timeout,
        max_turns=options.max_turns, max_tokens=options.max_tokens, max_cost=options.max_cost, model=options.model,
        provider=options.provider, base_url=options.base_url, permissions=options.mode, until=options.until,
        until_files=tuple(options.until_files) if options.until_files is not None else None,
        check_timeout=options.check_timeout,
    )  # fmt: skip


def row_of(result: dict[str, Any]) -> dict[str, Any]:
    """One attempt as reported: turns, tokens, cost, its check, diff size."""
    verdict = result.get("verdict")
    return {
        "attempt": int(result["id"].split("-")[1]), "status": result.get("status"), "outcome": result.get("outcome"),
        "turns": result.get("turns", 0), "tokens": (result.get("tokens") or {}).get("total", 0),
        "cost_usd": result.get("cost_usd"), "check_passed": verdict["passed"] if verdict else None,
        "check_output": verdict["output"] if verdict else None, "diff_lines": changed_lines(result.get("diff", "")),
        "files_changed": result.get("files_changed", []), "diff": result.get("diff", ""),
        "diff_truncated": bool(result.get("diff_truncated")), "error": result.get("error"),
        "seconds": result.get("duration"), "ended_at": result.get("ended_at", 0.0),
        "models": result.get("models") or {}, "solved_by": result.get("solved_by"),
    }  # fmt: skip


def changed_lines(diff: str) -> int:
    return sum(1 for line in diff.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---")))


def choose(rows: list[dict[str, Any]], options: Options, vote: Callable[[str], str] | None,
           workspace: Path) -> Attempts:
    """The chosen attempt by the check (ties: smallest diff, then fewest tokens), else by the stated rule."""
    usable = [row for row in rows if row["diff"] and not row["diff_truncated"]]
    if options.until is not None:
        passing = sorted((row for row in usable if row["check_passed"]), key=lambda r: (r["diff_lines"], r["tokens"]))
        return Attempts(rows, passing[0] if passing else None, "check")
    finished = [row for row in usable if row["status"] in ("finished", "answered")]
    if options.attempt_rule == "first" or len(finished) < 2:
        return Attempts(rows, min(finished, key=lambda r: r["ended_at"]) if finished else None, options.attempt_rule)
    ballot = ballot_for(finished)
    answer = (vote or small_model_vote(options, workspace))(ballot)
    picked = re.search(r"\d+", answer)
    chosen = next((row for row in finished if picked and row["attempt"] == int(picked.group())), None)
    return Attempts(rows, chosen, "vote")


def ballot_for(rows: list[dict[str, Any]]) -> str:
    """The vote's question: the diffs (each cut to 4,000 characters), and the answer wanted."""
    shown = "\n\n".join(f"## Attempt {row['attempt']}\n```diff\n{row['diff'][:4000]}\n```" for row in rows)
    return ("Several attempts made these changes for the same task. Which one is most likely correct and complete? "
            f"Answer with its number alone.\n\n{shown}")


def small_model_vote(options: Options, workspace: Path) -> Callable[[str], str]:
    def ask(ballot: str) -> str:
        from sneakycode.api.session import Session

        chosen = Options(workspace=workspace, provider=options.provider, model=options.model,
                         base_url=options.base_url, api_key=options.api_key, settings=options.settings,
                         isolated=options.isolated, state_dir=options.state_dir)  # fmt: skip
        with Session(chosen) as session:
            return session.ask_small(ballot)

    return ask


def apply_diff(top: Path, found: Attempts) -> None:
    """Apply the chosen attempt's change to the workspace (git apply: all of it or nothing); a ConfigError says
    why it did not apply (e.g. the workspace changed meanwhile) and where the diff is kept."""
    assert found.diff_path is not None
    try:
        repository_git(["apply", "--whitespace=nowarn", str(found.diff_path)], top)
    except TaskSetupError as exc:
        raise ConfigError(f"the chosen attempt's change did not apply ({exc}); it is kept in "
                          f"{found.diff_path}") from None


def result_of(found: Attempts, options: Options, applied: bool, cancelled: bool, out_dir: Path) -> Result:
    """One Result for all the attempts: the chosen one's outcome, everyone's usage and cost (by model too), a row
    per attempt, and which model solved it."""
    rows, chosen = found.rows, found.chosen
    models = per_model(rows)
    usage = TokenUsage(prompt_tokens=int(sum(spent["prompt_tokens"] for spent in models.values())),
                       completion_tokens=int(sum(spent["completion_tokens"] for spent in models.values())),
                       total_tokens=sum(row["tokens"] for row in rows), estimated=False, cached_tokens=0,
                       prefilled_tokens=0, cache_reported=False, prefill_seconds=None)  # fmt: skip
    costs = [row["cost_usd"] for row in rows if row["cost_usd"] is not None]
    shown = [{key: value for key, value in row.items() if key not in ("diff", "ended_at")} for row in rows]
    main_rows = [row for row in rows if row["role"] == "main"]
    status: Status
    if cancelled:
        status, message = "cancelled", "Cancelled: every attempt was stopped and its worktree removed."
    elif chosen is None:
        status = "error"
        tried = f" (and the {len(rows) - len(main_rows)} of the fallback model)" if len(rows) > len(main_rows) else ""
        message = (f"None of the {len(main_rows)} attempts{tried} passed the check `{options.until}`."
                   if options.until else f"None of the {len(rows)} attempts finished with a change.")
    else:
        status = "finished"
        how = "passes the check" if found.rule == "check" else f"was chosen by the rule `{found.rule}`"
        if chosen["role"] == "fallback":
            how += (f" (the fallback model {chosen['solved_by'] or ''} took over after all {len(main_rows)} "
                    "attempts of the main model failed it)")
        where = ("applied to the workspace" if applied else
                 f"not applied (rerun with --yes, or `git apply {found.diff_path}`)")
        message = f"Attempt {chosen['attempt']} of {len(rows)} {how}; its change is {where}."
    check = None
    if options.until is not None and chosen is not None:
        check = {"command": options.until, "passed": chosen["check_passed"], "output": chosen["check_output"]}
    solved_by = None
    if chosen is not None and found.rule == "check":
        solved_by = chosen["solved_by"] or options.model
    return Result(
        status=status, message=message, turns=sum(int(row["turns"] or 0) for row in rows), usage=usage,
        cost={"usd": round(sum(costs), 6) if costs else None, "attempts_dir": str(out_dir)},
        files_changed=chosen["files_changed"] if chosen is not None and applied else [], check=check,
        attempts=shown, chosen_attempt=chosen["attempt"] if chosen is not None else None,
        budget=None, solved_by=solved_by, models=models,
    )  # fmt: skip


def per_model(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Tokens and cost by model name, summed over the attempts (each attempt's own count, api/goal.py)."""
    merged: dict[str, dict[str, Any]] = {}
    for row in rows:
        for name, spent in row["models"].items():
            mine = merged.setdefault(name, {"prompt_tokens": 0, "completion_tokens": 0, "usd": 0.0})
            for key in mine:
                mine[key] = round(mine[key] + (spent.get(key) or 0), 6)
    return merged


def leftover_worktrees(top: Path) -> list[str]:
    """The worktrees of the repository besides its own (what a test checks is empty after attempts)."""
    listed = repository_git(["worktree", "list", "--porcelain"], top)
    return [line.split(" ", 1)[1] for line in listed.splitlines()
            if line.startswith("worktree ") and os.path.realpath(line.split(" ", 1)[1]) != os.path.realpath(top)]
