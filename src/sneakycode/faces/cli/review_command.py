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

from sneakycode.api.errors import ConfigError, SneakyError
from sneakycode.faces.shared.exit_codes import RUN_EXIT_BY_STATUS, ExitCode, exit_for_exception, exit_for_result
from sneakycode.faces.shared.flags import add_budget_flags, add_flags, add_model_flags, check_budgets, model_flags
from sneakycode.faces.shared.startup import cancel_on_sigint, debug_printer, protect_key, workspace_option
from sneakycode.faces.shared.text import loggable, printable

if TYPE_CHECKING:
    from sneakycode.review.diff import Change
    from sneakycode.review.runner import Review

# A review that ended without its verdict failed, whichever way it ended (the rest as for any run).
EXIT_BY_STATUS = {**RUN_EXIT_BY_STATUS, "finished": ExitCode.FAILURE, "answered": ExitCode.FAILURE}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from sneakycode.review.findings import SEVERITIES

    parser.description = (
        "Review a change in plan mode (nothing can be written) and report findings on the lines it touched: the "
        "uncommitted changes by default, --staged, one --commit, or HEAD against --base (a pull request's diff). "
        "Exit code 1 when a finding is at or above --fail-on."
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--base", metavar="REF", help="review HEAD's commits since its merge base with REF")
    which.add_argument("--staged", action="store_true", help="review the staged changes")
    which.add_argument("--commit", metavar="SHA", help="review one commit (against its first parent)")
    parser.add_argument("paths", nargs="*", metavar="PATH", help="review only these files or folders")
    shape = parser.add_mutually_exclusive_group()
    shape.add_argument("--format", choices=("text", "json", "github", "sarif"),
                       help="text (default); json: the findings JSON; github: workflow annotations; sarif: SARIF "
                            "2.1.0 for code scanning")
    # The older spelling of `--format text|json`, kept so existing scripts run; not shown in --help.
    shape.add_argument("--output-format", choices=("text", "json"), help=argparse.SUPPRESS)
    parser.add_argument("--fail-on", choices=tuple(reversed(SEVERITIES)), default="error",
                        help="exit 1 when a finding is at or above this severity (default: error)")
    add_model_flags(parser)
    add_budget_flags(parser, help={"--max-turns": "model turns per part of the review",
                                   "--max-tokens": "stop after this many tokens (the whole review)",
                                   "--max-cost": "stop once the review has cost this much"})
    add_flags(parser, "--trust-project", "--verbose",
              help={"--verbose": "show the model's calls and debug lines on stderr"})


def run(args: argparse.Namespace) -> int:
    from sneakycode.api.startup import wipe_arguments
    from sneakycode.review.diff import DiffError, collect_change

    wipe_arguments([args.api_key])  # /proc/PID/cmdline is readable by every process on the machine
    try:
        check_budgets(args)
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
    from sneakycode.api.options import Options
    from sneakycode.api.vocabulary import Unattended
    from sneakycode.faces.shared.headless_output import HeadlessSink
    from sneakycode.review.runner import Reviewer

    options = Options(**model_flags(args), max_turns=args.max_turns, max_tokens=args.max_tokens, max_cost=args.max_cost,
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
        return exit_for_exception(exc)
    except KeyboardInterrupt:
        print("sneakycode review: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    if review.failed is not None:
        print(f"sneakycode review: no verdict: {loggable(review.failed.message)}", file=sys.stderr)
        return exit_for_result(review.failed, EXIT_BY_STATUS)
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
