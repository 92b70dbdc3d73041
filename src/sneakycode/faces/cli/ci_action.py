"""The GitHub Action's step (`action.yml` runs `python -m sneakycode.faces.cli.ci_action`): runs `-p`, `review` or
`batch` as its `command` input says, writes the result and cost to the job summary and the step's outputs,
and for a review on a pull request posts the findings as a review with inline comments and one summary
comment that later runs edit (docs/ci.md).

Inputs come as INPUT_* variables (action.yml maps each one: a composite action's inputs are not exported on
their own), GitHub's context as GITHUB_* variables and the event payload file. The model's key reaches the
agent through an environment variable, never its command line; the workflow's token is used only for the
GitHub API and is not passed to the agent at all.

A pull request may change any file of the checkout, so a file an input names (prompt-file, output-schema,
tasks-file, findings-file) is read only as a regular file inside the working directory, through the
workspace's containment and its bounded reader: a link to /proc/self/environ or a `../` path fails the step
before any request. Everything this step prints into the job's log that carries model or repository text
(the agent's stderr, relayed) is made inert (workflow_commands.py), so it can never become a workflow
command such as `::add-mask::` or `::stop-commands::`.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sneakycode.api.child_runs import HeadBuffer, Stream, run_command_line
from sneakycode.api.errors import ToolError
from sneakycode.api.workflow_text import InertLines, command, mask
from sneakycode.api.workspace_files import read_workspace_text
from sneakycode.faces.cli.ci_github import GitHub, GitHubError, longest_backtick_run, place
from sneakycode.faces.cli.ci_secrets import redacted, secret_forms
from sneakycode.faces.cli.ci_summary import (
    batch_summary,
    pull_request_comment,
    review_body,
    review_summary,
    run_summary,
)
from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.faces.shared.text import loggable

COMMANDS = {"prompt": "prompt", "-p": "prompt", "review": "review", "batch": "batch"}
SEVERITY_RANK = {"note": 0, "warning": 1, "error": 2}
KEY_VARIABLE = "SNEAKYCODE_ACTION_API_KEY"  # a credential name: held at start-up, never passed to a command
# Not for the agent: the workflow's tokens and this step's own inputs (the key among them); nor the files
# through which a step sets later steps' environment and PATH, its outputs, state and summary (this step
# writes those itself), so a model that was talked into it is not handed the way to reach later steps.
WITHHELD = ("GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL",
            "GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STATE", "GITHUB_STEP_SUMMARY")
INPUT_FILE_LIMIT = 8 << 20  # a prompt, schema, task list or findings file; the agent's own limits come after
STDOUT_LIMIT = 64 << 20
STDERR_TAIL = 4000
KILL_GRACE = 15.0
TIMEOUT_GRACE = 120.0  # past the run's own --timeout, for it to end cleanly and print its result


class ActionError(Exception):
    """A wrong input or a missing part of GitHub's environment: the step fails with this one line."""


@dataclass(frozen=True)
class Inputs:
    command: str
    values: Mapping[str, str]

    def get(self, name: str) -> str:
        return self.values.get(f"INPUT_{name.upper().replace('-', '_')}", "").strip()

    def flag(self, name: str, default: bool) -> bool:
        value = self.get(name).lower()
        return default if not value else value in ("true", "yes", "1")


def read_inputs(environ: Mapping[str, str]) -> Inputs:
    command = environ.get("INPUT_COMMAND", "").strip() or "prompt"
    if command not in COMMANDS:
        raise ActionError(f"the command input must be prompt (or -p), review or batch, not {command!r}")
    return Inputs(COMMANDS[command], environ)


def agent_environment(inputs: Inputs, environ: Mapping[str, str]) -> dict[str, str]:
    """The agent's environment: the runner's, without the tokens and inputs, with the model settings as
    SNEAKYCODE_* variables (every command reads them) and the key under a variable `api_key_env` names."""
    env = {k: v for k, v in environ.items() if not k.startswith("INPUT_") and k not in WITHHELD}
    settings = {"model": "MODEL", "base-url": "BASE_URL", "provider": "PROVIDER", "mode": "PERMISSIONS__MODE",
                "max-turns": "MAX_TURNS", "max-cost": "BUDGETS__MAX_COST", "timeout": "BUDGETS__TIMEOUT"}
    for name, variable in settings.items():
        value = inputs.get(name)
        if value:
            # Quoted as TOML where it is text, so a model named `1.5` stays a name.
            numeric = name in ("max-turns", "max-cost", "timeout")
            env[f"SNEAKYCODE_{variable}"] = value if numeric else json.dumps(value)
    key = inputs.get("api-key")
    if key:
        env[KEY_VARIABLE] = key
        env["SNEAKYCODE_API_KEY_ENV"] = json.dumps(KEY_VARIABLE)
    return env


@dataclass
class Finished:
    exit_code: int
    stdout: bytes
    stderr_tail: str


def run_sneakycode(argv: list[str], env: dict[str, str], cwd: Path, *, stdin: bytes | None,
                   timeout: float | None) -> Finished:
    """Run the agent, its stderr shown in the job's log as it comes (each line made inert), its stdout kept
    for the result."""
    out = HeadBuffer(STDOUT_LIMIT)
    tail = bytearray()

    def show(data: bytes) -> None:
        sys.stderr.buffer.write(data)
        sys.stderr.buffer.flush()

    log = InertLines(show)

    def sink(stream: Stream, chunk: bytes) -> None:
        if stream == "stdout":
            out.feed(chunk)
            return
        log.feed(chunk)
        tail.extend(chunk)
        del tail[:-STDERR_TAIL]

    exit_code = run_command_line(argv, cwd=cwd, env=env, stdin=stdin,
                                 timeout=None if timeout is None else timeout + TIMEOUT_GRACE, kill_grace=KILL_GRACE,
                                 sink=sink)
    log.close()
    code = exit_code if exit_code is not None else ExitCode.FAILURE
    return Finished(code, bytes(out.kept), tail.decode("utf-8", "replace"))


class Step:
    """One run of the action: GitHub's context, the job summary and the outputs."""

    def __init__(self, inputs: Inputs, environ: Mapping[str, str]) -> None:
        self.inputs = inputs
        self.environ = environ
        self.cwd = Path(inputs.get("working-directory") or ".").resolve()
        if not self.cwd.is_dir():
            raise ActionError(f"working-directory {str(self.cwd)!r} is not a directory")
        self.temp = Path(environ.get("RUNNER_TEMP") or self.cwd)
        # What the model reports is posted and written with these shown as *** (ci_secrets.py).
        self.secrets = secret_forms(self.token(), inputs.get("api-key"))
        event_path = environ.get("GITHUB_EVENT_PATH")
        self.event: dict[str, Any] = {}
        if event_path and Path(event_path).is_file():
            event = _json(Path(event_path).read_bytes())
            if not isinstance(event, dict):
                raise ActionError(f"GITHUB_EVENT_PATH {event_path} does not hold a JSON object")
            self.event = event

    def token(self) -> str:
        """The workflow's token, for the GitHub API only."""
        return self.inputs.get("github-token") or self.environ.get("GITHUB_TOKEN", "")

    def timeout(self) -> float | None:
        value = self.inputs.get("timeout")
        try:
            return float(value) if value else None
        except ValueError:
            raise ActionError(f"the timeout input must be a number of seconds, not {value!r}") from None

    def summary(self, markdown: str) -> None:
        path = self.environ.get("GITHUB_STEP_SUMMARY")
        if path:
            with open(path, "a", encoding="utf-8") as file:
                file.write(markdown.rstrip() + "\n\n")
        else:
            print(loggable(markdown))

    def output(self, name: str, value: str) -> None:
        path = self.environ.get("GITHUB_OUTPUT")
        if not path:
            return
        delimiter = f"EOF_{secrets.token_hex(8)}"  # a value cannot end the block early
        with open(path, "a", encoding="utf-8") as file:
            file.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")

    def file_input(self, name: str) -> tuple[Path, str] | None:
        """The real path and text of the file input `name` names: a regular text file inside the working
        directory (a link only to a file inside it), read through the workspace (containment, then the one
        bounded reader); else the step fails here, before any request."""
        value = self.inputs.get(name)
        if not value:
            return None
        try:
            return read_workspace_text(self.cwd, value, max_bytes=INPUT_FILE_LIMIT)
        except ToolError as exc:
            raise ActionError(f"the {name} input must name a regular file inside {self.cwd}: {exc.error}") from None

    # ---- the three commands ------------------------------------------------------------------------

    def prompt(self) -> int:
        prompt_file = self.file_input("prompt-file")
        text = prompt_file[1] if prompt_file else self.inputs.get("prompt")
        if not text:
            raise ActionError("the prompt command needs the prompt or prompt-file input")
        argv = ["-p", "-", "--output-format", "json"]
        schema = self.file_input("output-schema")
        if schema is not None:  # its real path: no link left for the agent's reader to follow
            argv += ["--output-schema", str(schema[0])]
        finished = self._run(argv, stdin=text.encode("utf-8"))
        result = redacted(_json(finished.stdout), self.secrets)
        if result is None:
            return self._no_result("-p", finished)
        path = self.temp / "sneakycode-result.json"
        path.write_text(json.dumps(result, indent=2), encoding="utf-8")
        self.summary(run_summary(result, finished.exit_code))
        for name, value in (("status", result.get("status")), ("result", result.get("result")),
                            ("cost-usd", (result.get("cost") or {}).get("usd")), ("result-file", path),
                            ("exit-code", finished.exit_code)):
            self.output(name, "" if value is None else str(value))
        if result.get("structured_output") is not None:
            self.output("structured-output", json.dumps(result["structured_output"]))
        return finished.exit_code

    def batch(self) -> int:
        from sneakycode.batch.results import SUMMARY, read_results

        tasks = self.file_input("tasks-file")
        if tasks is None:
            raise ActionError("the batch command needs the tasks-file input (one JSON task per line)")
        out = Path(self.inputs.get("batch-out") or self.temp / "sneakycode-batch")
        finished = self._run(["batch", str(tasks[0]), "--out", str(out)], stdin=None)
        summary = _json((out / SUMMARY).read_bytes()) if (out / SUMMARY).is_file() else None
        if summary is None:
            return self._no_result("batch", finished)
        results = redacted(read_results(out), self.secrets)
        self.summary(batch_summary(redacted(summary, self.secrets), results, finished.exit_code))
        self.output("results-dir", str(out))
        self.output("exit-code", str(finished.exit_code))
        return finished.exit_code

    def review(self) -> int:
        fail_on = self.inputs.get("fail-on") or "error"
        if fail_on not in SEVERITY_RANK:
            raise ActionError(f"fail-on must be error, warning or note, not {fail_on!r}")
        given = self.file_input("findings-file")
        if given is not None:
            review = redacted(_json(given[1].encode("utf-8")), self.secrets)
            exit_code = gate(review, fail_on) if isinstance(review, dict) else ExitCode.FAILURE
        else:
            base = self.inputs.get("review-base") or self._default_base()
            argv = ["review", "--output-format", "json", "--fail-on", fail_on, *(["--base", base] if base else [])]
            finished = self._run(argv, stdin=None)
            review, exit_code = redacted(_json(finished.stdout), self.secrets), finished.exit_code
            if review is None:
                return self._no_result("review", finished)
        problem = findings_problem(review)
        if problem is not None:
            raise ActionError(f"the review's findings are not in the expected shape: {problem}")
        assert isinstance(review, dict)
        path = self.temp / "sneakycode-findings.json"
        path.write_text(json.dumps(review, indent=2), encoding="utf-8")
        self.output("findings-file", str(path))
        self.output("exit-code", str(exit_code))
        where = self._post(review)
        self.summary(review_summary(review, fail_on=fail_on, exit_code=exit_code, where=where))
        return exit_code

    # ---- helpers -----------------------------------------------------------------------------------

    def _run(self, argv: list[str], *, stdin: bytes | None) -> Finished:
        env = agent_environment(self.inputs, self.environ)
        extra = self.inputs.get("extra-args")
        return run_sneakycode([*argv, *shlex.split(extra)] if extra else argv, env, self.cwd, stdin=stdin,
                              timeout=self.timeout())

    def _no_result(self, what: str, finished: Finished) -> int:
        tail = redacted(finished.stderr_tail.strip(), self.secrets) or "(nothing on stderr)"
        fence = "`" * max(3, longest_backtick_run(tail) + 1)  # the agent's stderr cannot close the block
        self.summary(f"## SneakyCode\n\n`{what}` ended with exit code {finished.exit_code} and no result:\n\n"
                     f"{fence}\n{tail}\n{fence}")
        self.output("exit-code", str(finished.exit_code))
        return finished.exit_code or ExitCode.FAILURE

    def _default_base(self) -> str:
        base = ((self.event.get("pull_request") or {}).get("base") or {}).get("ref")
        return f"origin/{base}" if base else ""

    def _post(self, review: dict[str, Any]) -> str:
        """Post the review on the pull request this event is about; what happened, for the job summary."""
        pull = self.event.get("pull_request")
        if not self.inputs.flag("post-review", True) or not isinstance(pull, dict):
            return ""
        token = self.token()
        repository = self.environ.get("GITHUB_REPOSITORY", "")
        if not token or not repository:
            return "Not posted on the pull request: no github-token (or GITHUB_REPOSITORY)."
        number, commit = pull.get("number"), str((pull.get("head") or {}).get("sha", ""))
        if not isinstance(number, int) or not commit:
            return "Not posted: the event payload names no pull request number and head commit."
        findings = list(review.get("findings") or [])
        try:
            github = GitHub(self.environ.get("GITHUB_API_URL") or "https://api.github.com", repository, token)
        except GitHubError as exc:
            print(command("warning", f"SneakyCode could not post the review: {exc}"))
            return f"Not posted on the pull request: {exc}"
        try:
            placement = place(findings, github.changed_lines(number), github.commented_findings(number))
            posted = ""
            if placement.inline:
                made = github.post_review(number, commit, review_body(len(placement.inline), placement.elsewhere),
                                          placement.inline)
                posted = f"[review]({made.get('html_url', '')}) with {len(placement.inline)} inline comment(s)"
            how, comment = github.upsert_summary(number, pull_request_comment(review, placement.elsewhere, commit))
        except GitHubError as exc:
            print(command("warning", f"SneakyCode could not post the review: {exc}"))
            return f"Not posted on the pull request: {exc}"
        finally:
            github.close()
        again = f"; {placement.already} finding(s) were commented on by an earlier run" if placement.already else ""
        return (f"Posted on #{number}: {posted or 'no new inline comments'}{again}; summary comment {how} "
                f"({comment.get('html_url', '')}).")


def gate(review: dict[str, Any], fail_on: str) -> int:
    """`review`'s exit code: 1 when a finding is at or above `fail_on`, else 0."""
    threshold = SEVERITY_RANK[fail_on]
    findings = review.get("findings") or []
    worst = max((SEVERITY_RANK.get(str(f.get("severity")), 0) for f in findings if isinstance(f, dict)), default=-1)
    return ExitCode.FAILURE if worst >= threshold else ExitCode.OK


def findings_problem(review: Any) -> str | None:
    """Why `review` is not `{"summary": str, "findings": [{"path", "line", "severity", "title", "body", ...}]}`."""
    if not isinstance(review, dict) or not isinstance(review.get("findings"), list):
        return "not an object with a findings list"
    for index, finding in enumerate(review["findings"]):
        if not isinstance(finding, dict) or not isinstance(finding.get("path"), str):
            return f"finding {index} has no path"
        if not isinstance(finding.get("line"), int) or finding.get("severity") not in SEVERITY_RANK:
            return f"finding {index} needs an integer line and a severity of error, warning or note"
    return None


def _json(data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


def main(environ: Mapping[str, str] | None = None) -> int:
    env = os.environ if environ is None else environ
    try:
        inputs = read_inputs(env)
        for line in mask(inputs.get("api-key")):  # in case anything echoes it, the log shows *** (every line)
            print(line)
        step = Step(inputs, env)
        return int(getattr(step, inputs.command)())
    except (ActionError, OSError, ValueError) as exc:  # a bad input, an unreadable file, unbalanced quotes
        print(command("error", f"SneakyCode: {exc}"))
        return ExitCode.USAGE


if __name__ == "__main__":
    sys.exit(main())
