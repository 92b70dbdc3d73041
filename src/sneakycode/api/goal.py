"""A goal: a request that ends when a check command passes (`Options.until`, `-p --until`, `/goal`).

After the model says it is done, the check runs as the user's own `run_command` call would (through the
session's gate: deny rules and plan mode refuse it, the sandbox and the repository guard hold, its process
group is killed at its timeout, its output is bounded by `max_output_bytes`). A non-zero exit goes back to the
model as the next request; the goal ends when the check passes, or when a budget ends it (the goal's turns
count against `max_turns` together; tokens, cost and time are the session's budgets anyway). A check that
passes before any change is reported as "already passing" and asks nothing of the model.

The check's files (those the command names, or `Options.until_files`) are held for the run: the file tools
refuse to change them (workspace/protected.py) and the sandbox binds them read-only (process/protected.py),
the same mechanism that keeps `.git/hooks` out of reach. When the main model's rounds end without a pass and
`[models] fallback` is set, the fallback model takes over once, with its own cost cap (api/binding.py binds it).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sneakycode.api.result import Result, TokenUsage
from sneakycode.errors import ConfigError, ToolError

if TYPE_CHECKING:
    from sneakycode.api.options import Options
    from sneakycode.api.session import Session
    from sneakycode.workspace.files import Workspace

CHECK_TIMEOUT = 300  # seconds a check may run by default; then its process group is killed
ATTEMPT_RULES = ("first", "vote")
ESCALATIONS = ("after", "never", "now")
_ENDED = ("finished", "answered")

Step = Callable[[str, bool], Result]
"""One request of the session: the text and whether it is the goal's first (which keeps its images)."""


def check_goal_options(options: Options) -> None:
    """Refuse goal options that cannot work, before anything is read or started (a ConfigError says which)."""
    if options.until is not None and (not options.until.strip() or "\x00" in options.until):
        raise ConfigError("--until (Options.until) is empty: give the check command to run, e.g. --until 'pytest -q'")
    if options.until is None and options.until_files:
        raise ConfigError("--until-files (Options.until_files) needs a check: add --until CMD")
    if options.check_timeout is not None and options.check_timeout < 1:
        raise ConfigError(f"--check-timeout must be at least 1 second, got {options.check_timeout}")
    if options.attempts < 1:
        raise ConfigError(f"--attempts must be at least 1, got {options.attempts}")
    if options.attempt_rule not in ATTEMPT_RULES:
        raise ConfigError(f"--attempt-rule must be one of {', '.join(ATTEMPT_RULES)}, not {options.attempt_rule!r}")
    if options.escalate not in ESCALATIONS:
        raise ConfigError(f"--escalate must be one of {', '.join(ESCALATIONS)}, not {options.escalate!r}")


@dataclass(frozen=True)
class Goal:
    """The check: its command line, its timeout, and the files held for the run (real path -> why)."""

    command: str
    timeout: int
    files: dict[Path, str]

    def shown_files(self, workspace: Workspace) -> list[str]:
        return sorted(workspace.display(path) for path in self.files)


def goal_for(options: Options, workspace: Workspace, max_timeout: int) -> Goal:
    """The goal of `options` (which has `until`): a ConfigError for a timeout above `tools.shell.max_timeout` or a
    check file outside the workspace."""
    assert options.until is not None
    timeout = options.check_timeout if options.check_timeout is not None else min(CHECK_TIMEOUT, max_timeout)
    if timeout > max_timeout:
        raise ConfigError(f"--check-timeout {timeout} is above tools.shell.max_timeout ({max_timeout} s)")
    why = f"is a file of the goal's check (`{options.until}`)"
    if options.until_files is not None:
        files: dict[Path, str] = {}
        for name in options.until_files:
            try:
                files[workspace.resolve(name)] = why
            except ToolError as exc:
                raise ConfigError(f"--until-files {name!r}: {exc.error}") from None
        return Goal(options.until, timeout, files)
    return Goal(options.until, timeout, {path: why for path in named_files(options.until, workspace)})


def named_files(command: str, workspace: Workspace) -> list[Path]:
    """The workspace's regular files a command line names (`pytest tests/test_calc.py::test_add` names
    tests/test_calc.py); words that are no such file are not files of the check."""
    try:
        words = shlex.split(command)
    except ValueError:  # an unbalanced quote: the shell will say so when the check runs
        words = command.split()
    found: list[Path] = []
    for word in words:
        # `--cov-config=setup.cfg` names a file after its `=`; `tests/t.py::test_x` a file before its `::`.
        name = (word.partition("=")[2] if word.startswith("-") else word).split("::")[0]
        if not name or name.startswith("-"):
            continue
        try:
            real = workspace.resolve(name, must_exist=True)
        except ToolError:
            continue
        if real.is_file() and real not in found:
            found.append(real)
    return found


def run_check(session: Session, goal: Goal) -> dict[str, Any]:
    """Run the check once, as the user's own run_command call (api docstring above); its bounded outcome."""
    from sneakycode.tools.shell import run_command

    result = session._agent.gate.run_direct(run_command.name, {"command": goal.command, "timeout": goal.timeout})
    return {
        "command": goal.command, "passed": result.success, "exit_code": result.data.get("exit_code"),
        "code": None if result.success else str(result.code), "output": result.render(),
        "timed_out": bool(result.data.get("timed_out")), "files": goal.shown_files(session._ctx.workspace),
    }  # fmt: skip


def run_goal(session: Session, prompt: str, step: Step) -> Result:
    """Work on `prompt` until the goal's check passes or a budget ends it (the module docstring says how)."""
    options, agent = session.options, session._agent
    workspace = session._ctx.workspace
    goal = goal_for(options, workspace, session.loaded.settings.tools.shell.max_timeout)
    agent.cancel.clear()  # a cancel of an earlier request is not this one's (run_turn clears it the same way)
    workspace.held = dict(goal.files)
    try:
        check = run_check(session, goal)
        session._notice(check_line(check, 0))
        if check["passed"]:
            return ended(session, "finished", f"Already passing: `{goal.command}` exited 0 before any change; "
                         "nothing was asked of the model.", {**check, "rounds": 0, "already_passing": True})
        if check["code"] in ("permission_denied", "cancelled"):
            return ended(session, "error" if check["code"] == "permission_denied" else "cancelled",
                         f"The check `{goal.command}` could not run: {check['output']}", {**check, "rounds": 0})
        rounds = _Rounds(session, goal, step)
        first = (f"{prompt}\n\nThis request is done when the check `{goal.command}` passes (exit code 0); it fails "
                 f"now. Its files are read-only for this run: {', '.join(check['files']) or '(none named)'}.")
        if options.escalate == "now":
            with on_fallback(session) as fallback:
                if fallback is None:
                    return ended(session, "error", "--escalate now needs a fallback model: set [models] fallback.",
                                 {**check, "rounds": 0})
                session._notice(f"{fallback} (the fallback model) works on this goal from the start.")
                return rounds.run(first, check, agent.max_turns)
        outcome = rounds.run(first, check, agent.max_turns)
        # The fallback takes over rounds the main model spent; a session budget used up (tokens, cost, time)
        # would stop it at once, so then there is nothing to hand over.
        if (options.escalate == "after" and outcome.status == "turn_limit" and outcome.check is not None
                and not outcome.check["passed"]):
            outcome = escalate(session, rounds, prompt, outcome) or outcome
        return outcome
    finally:
        workspace.held = {}


class _Rounds:
    """The goal's requests and checks, with their usage summed (each request's Result counts only itself)."""

    def __init__(self, session: Session, goal: Goal, step: Step) -> None:
        self.session, self.goal, self.step = session, goal, step
        self.turns = self.tool_calls = self.rounds = 0
        self.usage: TokenUsage | None = None
        self.first = True

    def run(self, request: str, check: dict[str, Any], max_turns: int) -> Result:
        """Requests until the check passes or a budget ends them; `max_turns` counts all of these requests."""
        session, agent = self.session, self.session._agent
        kept = agent.max_turns
        try:
            while True:
                agent.max_turns = max(1, max_turns - self.turns)
                result = self.step(request, self.first)
                self.first = False
                self.add(result)
                if result.status not in _ENDED:
                    return self.merged(result, check)
                check = run_check(session, self.goal)
                self.rounds += 1
                session._notice(check_line(check, self.rounds))
                if check["passed"]:
                    return self.merged(result, check, solved=True)
                if agent.cancel.is_set() or check["code"] == "cancelled":
                    return self.merged(replace(result, status="cancelled", message="Cancelled."), check)
                stop = self.budget_stop(max_turns)
                if stop is not None:
                    return self.merged(replace(result, status=stop[0], budget=stop[1], message=stop[2]), check)
                request = failed_request(check)
        finally:
            agent.max_turns = kept

    def budget_stop(self, max_turns: int) -> tuple[Any, str, str] | None:
        """Why the goal stops although the check still fails: its turns, or a session budget used up."""
        keeper = self.session._agent.budgets
        which = keeper.exhausted()
        failing = f" The check `{self.goal.command}` still fails."
        if which is not None:
            return "budget", which, keeper.describe(which) + failing
        if self.turns >= max_turns:
            return "turn_limit", "max_turns", f"Stopped after {self.turns} model turns (the max_turns limit).{failing}"
        return None

    def add(self, result: Result) -> None:
        self.turns += result.turns
        self.tool_calls += result.tool_calls
        if self.usage is None:
            self.usage = TokenUsage(**result.usage)
            return
        for key in ("prompt_tokens", "completion_tokens", "total_tokens", "cached_tokens", "prefilled_tokens"):
            self.usage[key] += result.usage[key]
        self.usage["estimated"] |= result.usage["estimated"]
        self.usage["cache_reported"] |= result.usage["cache_reported"]

    def merged(self, last: Result, check: dict[str, Any], *, solved: bool = False) -> Result:
        """The goal's Result: the last request's, with the goal's totals, the check and who solved it."""
        message = last.message
        if solved:
            message = f"{message}\n\nThe check `{self.goal.command}` passes." if message else "The check passes."
            last = replace(last, status="finished")
        return replace(last, message=message, turns=self.turns, tool_calls=self.tool_calls,
                       usage=self.usage or last.usage, check={**check, "rounds": self.rounds, "already_passing": False},
                       solved_by=self.session.model if solved else None, models=per_model(self.session),
                       cost=self.session._agent.spending.report())  # fmt: skip


def escalate(session: Session, rounds: _Rounds, prompt: str, failed: Result) -> Result | None:
    """The fallback model's turn after the main one's rounds failed the check. None without a fallback."""
    main = session.model
    with on_fallback(session) as fallback:
        if fallback is None:
            return None
        session._notice(f"The check still fails after {main}'s rounds: {fallback} (the fallback model) takes over.")
        check = failed.check or {}
        request = (f"{prompt}\n\nAnother model worked on this and the check `{rounds.goal.command}` still fails. "
                   f"Its output:\n{check.get('output', '')}\n\nMake the check pass (exit code 0); its files are "
                   "read-only for this run.")
        # The fallback gets max_turns of its own: it starts where the main model left off, not at zero.
        return rounds.run(request, check, rounds.turns + session._agent.max_turns)


@contextmanager
def on_fallback(session: Session) -> Iterator[str | None]:
    """The fallback model ([models] fallback) in the main model's place while the block runs, bound like any
    model (its price checked), under its own cost cap counted from here; the main model is put back after.
    Yields its name, or None when no fallback is set (nothing changes)."""
    from sneakycode.api.binding import ModelBinding, fallback_cost_cap

    models = session._parts.models
    if session.loaded.settings.models.fallback is None or models is None:
        yield None
        return
    binding = ModelBinding.for_model(None, "fallback", models)
    binding.charge_to(session._agent.spending)
    keeper = session._agent.budgets
    own_cap = fallback_cost_cap(session.loaded)
    kept_budgets = keeper.budgets
    if own_cap is not None:  # the cap counts from here: what the main model spent is not the fallback's
        total = keeper.spending.cost + own_cap
        keeper.budgets = replace(kept_budgets, max_cost=total if kept_budgets.max_cost is None
                                 else min(total, kept_budgets.max_cost))
    main = session._use_main(binding)
    try:
        yield binding.name
    finally:
        keeper.budgets = kept_budgets
        session._use_main(ModelBinding.for_model(main.model, "main", models))


def failed_request(check: dict[str, Any]) -> str:
    """The next request after a failed check: its bounded output, and what to do."""
    ended_as = "timed out" if check["timed_out"] else f"exited with code {check['exit_code']}"
    return (f"The check `{check['command']}` {ended_as}, so the task is not done yet. Its output:\n\n"
            f"{check['output']}\n\nFix the code so the check passes. Its files are read-only for this run.")


def check_line(check: dict[str, Any], rounds: int) -> str:
    """The notice a face shows for each run of the check."""
    when = "before any change" if rounds == 0 else f"after round {rounds}"
    failed = "timed out" if check["timed_out"] else f"fails (exit {check['exit_code']})"
    verdict = "passes" if check["passed"] else failed
    return f"Check `{check['command']}` {verdict} {when}."


def per_model(session: Session) -> dict[str, dict[str, Any]]:
    """Tokens and cost by model name (the loop counts the start-up model's requests under "main")."""
    models = session._parts.models
    start = models.main.model if models is not None else session.model
    merged: dict[str, dict[str, Any]] = {}
    for name, spent in session._agent.spending.by_model.items():
        mine = merged.setdefault(start if name == "main" else name, {"prompt_tokens": 0, "completion_tokens": 0,
                                                                      "usd": 0.0})
        for key, value in spent.items():
            mine[key] = round(mine[key] + value, 6)
    return merged


def ended(session: Session, status: Any, message: str, check: dict[str, Any]) -> Result:
    """A goal that ends without asking the model anything (already passing, or the check cannot run)."""
    return Result(status=status, message=message, session_id=session.session_id, check=check,
                  cost=session._agent.spending.report(), models=per_model(session),
                  solved_by=None, jobs=session.jobs())
