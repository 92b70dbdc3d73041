"""`sneakycode review`: collect the change with git, have the model review it (review/), print the findings in
the chosen format, and exit 1 when one is at or above --fail-on (docs/ci.md).

Exit codes: 0 no finding at or above --fail-on, 1 one or more (or the review failed), 2 usage (flags, not a
repository, an unknown ref), 3 a budget ran out, 4 the provider refused the key or model, 5 the model server
stalled, 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sneakycode.api.options import Options
from sneakycode.errors import ConfigError, ModelError, SneakyError
from sneakycode.faces.cli.exit_codes import EXIT_BY_MODEL_ERROR, ExitCode
from sneakycode.faces.cli.startup import cancel_on_sigint, debug_printer, protect_key, workspace_option
from sneakycode.faces.cli.text import loggable, printable

if TYPE_CHECKING:
    from sneakycode.api.result import Result
    from sneakycode.review.diff import Change
    from sneakycode.review.runner import Review

EXIT_BY_STATUS = {"error": ExitCode.FAILURE, "turn_limit": ExitCode.BUDGET, "budget": ExitCode.BUDGET,
                  "cancelled": ExitCode.INTERRUPTED, "finished": ExitCode.FAILURE, "answered": ExitCode.FAILURE}


def run_review_command(args: argparse.Namespace) -> int:
    from sneakycode.process.hardening import wipe_arguments
    from sneakycode.review.diff import DiffError, collect_change

    wipe_arguments([args.api_key])  # /proc/PID/cmdline is readable by every process on the machine
    try:
        _check_budgets(args)
        cwd = Path(workspace_option(args.workspace) or ".")
        change = collect_change(cwd, base=args.base, staged=args.staged, commit=args.commit, paths=args.paths)
    except (ConfigError, DiffError) as exc:
        print(f"sneakycode review: {loggable(str(exc))}", file=sys.stderr)
        return ExitCode.USAGE
    review = _review(args, change)
    if isinstance(review, int):
        return review
    return _report(args, change, review)


def _review(args: argparse.Namespace, change: Change) -> Review | int:
    from sneakycode.faces.cli.headless_output import HeadlessSink
    from sneakycode.permissions.gate import Unattended
    from sneakycode.review.runner import Reviewer

    options = Options(provider=args.provider, model=args.model, base_url=args.base_url, api_key=args.api_key,
                      max_turns=args.max_turns, max_tokens=args.max_tokens, max_cost=args.max_cost,
                      timeout=args.timeout, trust_project=args.trust_project, debug_log=debug_printer(args.verbose))
    sink = HeadlessSink("text", args.verbose, sys.stdout, sys.stderr)  # notices, refusals and stalls on stderr
    reviewer = Reviewer(options, sink=sink, unattended=Unattended("a review (plan mode)", ""),
                        on_start=lambda session: protect_key(session.loaded))
    try:
        with cancel_on_sigint(reviewer.cancel, sigterm=True):
            review = reviewer.review(change)
    except ConfigError as exc:
        print(f"sneakycode review: {loggable(str(exc))}", file=sys.stderr)
        return ExitCode.USAGE
    except SneakyError as exc:  # a model request outside the loop's own (compaction) failed
        print(f"sneakycode review: {loggable(str(exc))}", file=sys.stderr)
        return EXIT_BY_MODEL_ERROR.get(exc.kind, ExitCode.FAILURE) if isinstance(exc, ModelError) else ExitCode.FAILURE
    except KeyboardInterrupt:
        print("sneakycode review: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    if review.failed is not None:
        print(f"sneakycode review: no verdict: {loggable(review.failed.message)}", file=sys.stderr)
        return _exit_code(review.failed)
    return review


def _report(args: argparse.Namespace, change: Change, review: Review) -> int:
    from sneakycode.review.findings import at_or_above
    from sneakycode.review.formats import render_github, render_json, render_sarif, render_text

    shape = args.format or args.output_format or "text"
    if shape == "json":
        shown = render_json(review)
    elif shape == "github":  # a job's log is a terminal too: control characters shown, never obeyed
        shown = printable(render_github(review))
    elif shape == "sarif":
        shown = render_sarif(review)
    else:
        shown = loggable(render_text(review, args.fail_on))
    sys.stdout.write(shown)
    sys.stdout.flush()
    if shape == "json":  # github and SARIF carry the notes themselves; the JSON's shape has no room for them
        for note in review.notes:
            print(f"sneakycode review: {loggable(note)}", file=sys.stderr)
    spent = review.last.cost.get("usd") if review.last is not None else None
    cost = f", ${spent:.4f}" if isinstance(spent, (int, float)) else ""
    print(f"sneakycode review: reviewed {loggable(change.described)}: {len(change.files)} file(s) in {review.parts} "
          f"request(s){cost}", file=sys.stderr)
    failing = [f for f in review.findings if at_or_above(f["severity"], args.fail_on)]
    return ExitCode.FAILURE if failing else ExitCode.OK


def _exit_code(result: Result) -> ExitCode:
    if result.status == "error" and result.error_kind in EXIT_BY_MODEL_ERROR:
        return EXIT_BY_MODEL_ERROR[result.error_kind]
    return EXIT_BY_STATUS[result.status]


def _check_budgets(args: argparse.Namespace) -> None:
    for flag, value in (("--max-turns", args.max_turns), ("--max-tokens", args.max_tokens),
                        ("--max-cost", args.max_cost), ("--timeout", args.timeout)):
        if value is not None and value <= 0:
            raise ConfigError(f"{flag} must be above 0, got {value}")
