"""The command line of `sneakycode review` (parsed in cli/main.py, run by cli/review_command.py)."""

from __future__ import annotations

import argparse

from sneakycode.review.findings import SEVERITIES


def add_review_arguments(parser: argparse.ArgumentParser) -> None:
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
    parser.add_argument("--provider", help="groq, openai, openrouter, ollama, lmstudio, vllm, llamacpp, custom")
    parser.add_argument("--model", help="the model's name at the provider")
    parser.add_argument("--base-url", metavar="URL", help="an OpenAI-compatible endpoint")
    parser.add_argument("--api-key", metavar="KEY", help="the endpoint's key (better: in the environment)")
    parser.add_argument("--max-turns", type=int, help="model turns per part of the review")
    parser.add_argument("--max-tokens", type=int, help="stop after this many tokens (the whole review)")
    parser.add_argument("--max-cost", type=float, metavar="USD", help="stop once the review has cost this much")
    parser.add_argument("--timeout", type=float, metavar="SECONDS", help="stop after this much wall-clock time")
    parser.add_argument("--trust-project", action="store_true",
                        help="apply .sneakycode/config.toml in full for this run")
    parser.add_argument("--verbose", action="store_true", help="show the model's calls and debug lines on stderr")
