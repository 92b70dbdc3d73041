"""The peers' shell-policy cases (gemini-cli, codex, opencode, Claude Code bypass reports, adversarial lines).

The data lives outside the repository, in `shared/data/peer-cases/shell-policy-cases.json` beside the
clone (CI keeps a copy there). Each case gives a command line, `allowed` / `denied` prefix lists and the
decision SneakyCode's rules call for (`our_expects`). Our decision must never be looser: never allow what
should ask or be denied, never ask what should be denied. Where we are stricter, the reason must show one
of the deliberate rules that make us so (deny rules see through wrappers, `find -delete` and `find
-fprint` outside the workspace are never auto-approved, a denied part of an unparsable line still denies,
what might match a deny rule is refused: hardening class 6, `$cmd` while `rm` is denied).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sneakycode.config import Settings
from sneakycode.permissions.decide import PermissionDecision, decide
from sneakycode.permissions.shell.syntax import parse_line
from tests.conformance.peer_data import load_peer_cases

STRICTNESS = {"allow": 0, "ask": 1, "deny": 2}


CASES = load_peer_cases("shell-policy-cases.json")


def _decide(case: dict[str, Any], workspace: Path) -> PermissionDecision:
    shell = {"allowed_commands": case["allowed"], "denied_commands": case["denied"]}
    return decide("run_command", {"command": case["command"]}, Settings.model_validate({"tools": {"shell": shell}}),
                  workspace)


def stricter_because(case: dict[str, Any], verdict: PermissionDecision) -> str | None:
    """Which deliberate rule makes us stricter than `our_expects` on this case (None: no known rule)."""
    if verdict.decision.value == "deny" and "(run by `" in verdict.reason:
        return "deny rules see through wrappers"
    if "deletes files (-delete)" in verdict.reason or ("writes `" in verdict.reason and "outside" in verdict.reason):
        return "find -delete / -fprint outside the workspace are never auto-approved"
    if verdict.decision.value == "deny" and not parse_line(case["command"]).parses:
        return "a denied part of a line that does not parse still denies it"
    if verdict.decision.value == "deny" and "what might match a deny rule is refused" in verdict.reason:
        return "what might match a deny rule is refused, never approved (hardening class 6)"
    return None


@pytest.mark.parametrize("case", CASES, ids=[f"{i}:{c['command'][:40]!r}" for i, c in enumerate(CASES)])
def test_never_looser_than_our_expectation(case: dict[str, Any], ws: Path) -> None:
    verdict = _decide(case, ws)
    ours, expected = verdict.decision.value, case["our_expects"]
    assert STRICTNESS[ours] >= STRICTNESS[expected], f"{ours} is looser than {expected}: {verdict.reason}"
    if ours != expected:
        assert stricter_because(case, verdict) is not None, verdict.reason


def test_every_unmarked_disagreement_with_the_peers_is_on_the_strict_side(ws: Path) -> None:
    """Where a case's note marks no known difference, we agree with the peer or are stricter than it."""
    markers = ("DIFF", "GAP", "ASSUMPTION", "STRICT", "hard-denies", "not expressible", "relabelled")
    looser = []
    for case in CASES:
        ours = _decide(case, ws).decision.value
        marked = any(marker in case["note"] for marker in markers)
        if not marked and STRICTNESS[ours] < STRICTNESS[case["peer_expects"]]:
            looser.append((case["command"], case["peer_expects"], ours))
    assert looser == []
