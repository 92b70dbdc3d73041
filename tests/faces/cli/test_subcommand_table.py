"""The command line's plumbing exists once (issue 36): one table of subcommands, each a module with
`add_arguments` and `run`; the endpoint flags declared once and read the same by every command that takes them;
one mapping from how a run ended to an exit code."""

from __future__ import annotations

import argparse
import importlib
from types import SimpleNamespace
from typing import Any, cast

import pytest

from sneakycode.faces.cli import agent_command
from sneakycode.faces.cli.main import COMMANDS, SUBCOMMANDS, _subcommand_parser
from sneakycode.faces.shared.exit_codes import ExitCode, exit_for_result
from sneakycode.faces.shared.flags import MODEL_FLAGS, model_flags
from sneakycode.faces.shared.startup import options_from_args

ENDPOINT = ["--provider", "custom", "--model", "m-1", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "k-1"]


def test_every_subcommand_is_one_row_naming_a_module_with_add_arguments_and_run() -> None:
    assert list(SUBCOMMANDS) == list(COMMANDS)
    for name, command in COMMANDS.items():
        module = importlib.import_module(command.module)
        assert callable(getattr(module, command.add_arguments)), name
        assert callable(getattr(module, command.run)), name


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_subcommand_parses_its_help_and_workspace(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        _subcommand_parser(name).parse_args(["--help"])
    assert ended.value.code == 0
    assert f"sneakycode {name}" in capsys.readouterr().out


def parse(argv: list[str]) -> argparse.Namespace:
    if argv and argv[0] in COMMANDS:
        return _subcommand_parser(argv[0]).parse_args(argv[1:])
    return agent_command.parser(SUBCOMMANDS).parse_args(argv)


@pytest.mark.parametrize("argv", [["-p", "task"], ["review"], ["eval"], ["doctor"]], ids=lambda a: a[0])
def test_the_endpoint_flags_read_the_same_on_every_command_that_takes_them(argv: list[str]) -> None:
    """Regression: the four endpoint flags were declared four times (main, review, eval, doctor), each with its
    own metavar and help; now one table, so a command cannot read them differently."""
    args = parse([*argv, *ENDPOINT])
    assert model_flags(args) == {"provider": "custom", "model": "m-1", "base_url": "http://127.0.0.1:9/v1",
                                 "api_key": "k-1"}
    assert set(model_flags(parse(argv)).values()) == {None}
    assert len(MODEL_FLAGS) == 4


def test_the_agent_flags_become_options_through_the_shared_helper() -> None:
    options = options_from_args(parse(["-p", "task", *ENDPOINT, "--max-cost", "0.5"]))
    assert (options.provider, options.model, options.base_url, options.api_key, options.max_cost) == (
        "custom", "m-1", "http://127.0.0.1:9/v1", "k-1", 0.5)


def ended(status: str, kind: str | None = None) -> Any:
    return cast(Any, SimpleNamespace(status=status, error_kind=kind))


def test_a_results_exit_code_comes_from_one_mapping() -> None:
    assert exit_for_result(ended("finished")) is ExitCode.OK
    assert exit_for_result(ended("budget")) is ExitCode.BUDGET
    assert exit_for_result(ended("cancelled")) is ExitCode.INTERRUPTED
    assert exit_for_result(ended("error", "auth")) is ExitCode.AUTH
    assert exit_for_result(ended("error", "timeout")) is ExitCode.STALLED
    assert exit_for_result(ended("error", "server")) is ExitCode.FAILURE
    review = importlib.import_module("sneakycode.faces.cli.review_command")
    # A review that ends without its verdict failed, however the run itself ended; the budget still says so.
    assert exit_for_result(ended("finished"), review.EXIT_BY_STATUS) is ExitCode.FAILURE
    assert exit_for_result(ended("turn_limit"), review.EXIT_BY_STATUS) is ExitCode.BUDGET
    assert exit_for_result(ended("error", "model_not_found"), review.EXIT_BY_STATUS) is ExitCode.AUTH
