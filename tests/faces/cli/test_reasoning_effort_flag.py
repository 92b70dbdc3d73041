"""`--reasoning-effort` reaches the session's options (and so the request, as the model family takes it); a
level that is not low, medium or high is refused by the parser."""

from __future__ import annotations

import pytest

from sneakycode.faces.cli import agent_command
from sneakycode.faces.cli.main import SUBCOMMANDS
from sneakycode.faces.shared.startup import options_from_args


def _agent_parser() -> agent_command.argparse.ArgumentParser:
    return agent_command.parser(SUBCOMMANDS)


def test_the_flag_sets_the_options_reasoning_effort_and_its_config_key() -> None:
    args = _agent_parser().parse_args(["--reasoning-effort", "high", "-p", "hi"])
    options = options_from_args(args)
    assert options.reasoning_effort == "high" and options.layer()["reasoning_effort"] == "high"
    assert "reasoning_effort" not in options_from_args(_agent_parser().parse_args(["-p", "hi"])).layer()


def test_an_unknown_level_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _agent_parser().parse_args(["--reasoning-effort", "max"])
    assert "invalid choice: 'max'" in capsys.readouterr().err
