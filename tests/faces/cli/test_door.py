"""The command line goes through the door (issue 36): `faces/cli`, `faces/shared` and the doctor import nothing
below `sneakycode.api` (the libraries review, evals, doctor and batch, and other faces, they may)."""

from __future__ import annotations

import ast
from pathlib import Path

import sneakycode

PACKAGE = Path(sneakycode.__file__).parent
ABOVE_THE_DOOR = {"api", "faces", "review", "evals", "doctor", "batch", "version"}


def imports_below_the_door(folder: str, allowed: set[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
                     else [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
            for name in names:
                parts = name.split(".")
                if parts[0] == "sneakycode" and len(parts) > 1 and parts[1] not in allowed:
                    found.setdefault(str(path.relative_to(PACKAGE)), []).append(name)
    return found


def test_the_command_line_imports_only_the_door() -> None:
    """Regression: the command line imported 29 modules below api (config, permissions, session, tools,
    process, ...), so a guard could be reached around the door."""
    assert imports_below_the_door("faces/cli", ABOVE_THE_DOOR) == {}
    assert imports_below_the_door("faces/shared", ABOVE_THE_DOOR) == {}


def test_the_doctor_reaches_endpoints_only_through_api() -> None:
    """Regression: doctor/ imported agent.model.* (providers, assembly, failures, families, window, dialects, ...),
    agent.protocol and agent.messages; its raw probes now go through api/probe.py and api/model_facts.py."""
    assert imports_below_the_door("doctor", {"api", "doctor", "version"}) == {}


def test_the_libraries_take_no_flags_and_print_nothing() -> None:
    for library in ("review", "evals", "doctor"):
        for path in (PACKAGE / library).glob("*.py"):  # evals/suites/ holds the tasks' repositories: data
            tree = ast.parse(path.read_text(encoding="utf-8"))
            names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
            calls = {node.func.id for node in ast.walk(tree)
                     if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
            assert "argparse" not in names and "print" not in calls, path
