"""How GitHub's runner finds workflow commands in a step's output (actions/runner, ActionCommand.cs and
ActionCommandManager.cs), written independently of SneakyCode's own helper so a test can check it."""

from __future__ import annotations

import re


def workflow_commands(output: str) -> list[str]:
    """The lines of `output` the runner would take for a workflow command: split at CR, LF and CRLF (its
    stream reader's line ends), a line is one when it starts with `::` once its leading whitespace is
    trimmed (TryParseV2), or holds `##[` anywhere (the older TryParse)."""
    return [line for line in re.split(r"\r\n|\r|\n", output) if line.lstrip().startswith("::") or "##[" in line]
