"""The single permission decision: tool call + settings -> allow | ask | deny, with the reason.

Order: deny rules > plan mode > ask rules > allow rules > mode > tier default. Plan mode sits above the
allow rules because it promises that nothing changes: an allow rule written for everyday work must not
let a plan-mode run write files or run commands. The agent, `sneakycode permissions check`, `sneakycode
tool` and the MCP server all ask this function; nothing else decides. The reason names the part of the
call that decided, the rule that matched it and where that rule was configured (when the settings passed
in are a LoadedSettings, which remembers origins); it is shown to the user and to the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sneakycode.config import LoadedSettings, PermissionMode, Settings
from sneakycode.permissions.rules import RuleSet, ToolRule, path_matches, rule_set, url_host, url_matches
from sneakycode.tools.base import Tier, Tool
from sneakycode.tools.registry import all_tools, get_tool
from sneakycode.workspace.paths import path_forms

if TYPE_CHECKING:
    from sneakycode.permissions.shell.matching import CommandRule, RuleHit

SETTINGS_FOLDER = ".sneakycode/"
YOLO_REASON = "yolo mode approves every call that no deny rule blocks"
REFUSED_DOUBT = "what might match a deny rule is refused, never approved"


class Decision(StrEnum):
    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


@dataclass(frozen=True)
class PermissionDecision:
    """`rule` names what decided (a rule, `mode: MODE` or `tier: TIER`); `commands` are the simple commands
    a command line parsed into."""

    decision: Decision
    reason: str
    rule: str | None = None
    commands: list[str] = field(default_factory=list)


def decide(
    tool: Tool | str,
    args: dict[str, Any],
    settings: Settings | LoadedSettings,
    workspace: Path,
    mode: PermissionMode | str | None = None,
    extra_roots: Sequence[Path] = (),
) -> PermissionDecision:
    """Decide one call without running it. `tool` is the Tool (or, for a name that may be none, its name);
    `mode` overrides settings.permissions.mode; `extra_roots` (`--add-dir`) are matched by the same rules."""
    found = get_tool(tool) if isinstance(tool, str) else tool
    name = tool if isinstance(tool, str) else tool.name
    plain = settings.settings if isinstance(settings, LoadedSettings) else settings
    try:
        active = PermissionMode(mode or plain.permissions.mode)
    except ValueError:
        raise ValueError(f"unknown permission mode {mode!r}; use one of {', '.join(PermissionMode)}") from None
    rules = rule_set(settings)
    if found is not None and found.command is not None:
        cwd = args.get(found.command_cwd) if found.command_cwd else None
        command = str(args.get(found.command) or "")
        return _decide_command(found.name, command, rules, workspace, active, cwd if isinstance(cwd, str) else None,
                               extra_roots)
    return _decide_tool(name, found, args, rules, (workspace, *extra_roots), active)


def _decide_tool(
    tool_name: str, found: Tool | None, args: dict[str, Any], rules: RuleSet, roots: Sequence[Path],
    mode: PermissionMode,
) -> PermissionDecision:
    paths = found.path_arguments(args) if found is not None else []
    forms = {value: path_forms(roots[0], value, directory, roots[1:]) for value, directory in paths}
    url = found.url_of(args) if found is not None else None
    tier = found.tier if found is not None else None
    denied = _first_hit(rules, "deny", tool_name, forms, url)
    if denied is not None:
        return PermissionDecision(Decision.DENY, *denied)
    if mode is PermissionMode.PLAN and tier is not Tier.AUTO:
        return _plan_refusal(tool_name)
    asked = _first_hit(rules, "ask", tool_name, forms, url)
    if asked is not None:
        return PermissionDecision(Decision.ASK, *asked)
    allowed = _first_hit(rules, "allow", tool_name, forms, url)
    if allowed is not None:
        return PermissionDecision(Decision.ALLOW, *allowed)
    if mode is PermissionMode.YOLO:
        return PermissionDecision(Decision.ALLOW, YOLO_REASON, "mode: yolo")
    if mode is PermissionMode.AUTO_EDIT and found is not None and found.edits_files:
        settings_paths = [value for value, _ in paths if any(f.startswith(SETTINGS_FOLDER) for f in forms[value])]
        if not settings_paths:
            return PermissionDecision(Decision.ALLOW, "auto-edit mode approves file edits", "mode: auto-edit")
        return PermissionDecision(
            Decision.ASK,
            f"{tool_name} needs confirmation: `{settings_paths[0]}` is in {SETTINGS_FOLDER}, which holds SneakyCode's "
            "own settings and permission rules, so auto-edit mode does not approve changing it",
            "mode: auto-edit",
        )
    if tier is Tier.AUTO:
        return PermissionDecision(Decision.ALLOW, f"{tool_name} is auto-approved (its tier is auto)", "tier: auto")
    if tier is None:
        return PermissionDecision(
            Decision.ASK, f"{tool_name} is not a SneakyCode tool, so it needs confirmation", "tier: confirm"
        )
    return PermissionDecision(
        Decision.ASK, f"{tool_name} needs confirmation (its tier is confirm and no rule or mode approves it)",
        "tier: confirm",
    )


def _first_hit(
    rules: RuleSet, kind: str, tool_name: str, forms: dict[str, set[str]], url: str | None = None
) -> tuple[str, str] | None:
    """(reason, rule) of the first `kind` rule that covers the call."""
    for rule in rules.for_tool(kind, tool_name):
        hit = _url_hit(rule, url, kind) if url is not None and rule.pattern else _tool_hit(rule, forms, kind)
        if hit is not None:
            return hit, rule.entry
    return None


def _tool_hit(rule: ToolRule, forms: dict[str, set[str]], kind: str) -> str | None:
    """The reason when a `kind` rule covers the call: deny and ask need one path to match, allow all."""
    if rule.pattern is None:
        return f"{kind} rule {rule.describe()} covers every {rule.tool} call"
    every = kind == "allow"
    matched = [value for value, shapes in forms.items() if _covers(rule.pattern, shapes, every)]
    if not matched or (every and len(matched) != len(forms)):
        return None
    return f"`{matched[0]}` matches {kind} rule {rule.describe()}"


def _url_hit(rule: ToolRule, url: str, kind: str) -> str | None:
    """The reason when a `kind` rule's domain (or URL glob) matches the call's URL."""
    assert rule.pattern is not None
    if not url_matches(rule.pattern, url):
        return None
    subject = url_host(url) if rule.pattern.startswith("domain:") else url
    return f"`{subject}` matches {kind} rule {rule.describe()}"


def _covers(pattern: str, shapes: set[str], every: bool) -> bool:
    """A deny or ask rule needs one shape of the path to match; an allow rule needs all of them."""
    results = [path_matches(pattern, shape) for shape in shapes]
    return all(results) if every else any(results)


def _decide_command(
    tool_name: str, command: str, rules: RuleSet, workspace: Path, mode: PermissionMode, cwd: str | None = None,
    extra_roots: Sequence[Path] = (),
) -> PermissionDecision:
    from sneakycode.permissions.shell.policy import evaluate  # only commands need the shell parser

    verdict = evaluate(command, rules.shell, workspace, cwd, extra_roots)
    commands = list(verdict.commands)

    def made(decision: Decision, reason: str, rule: str | None) -> PermissionDecision:
        return PermissionDecision(decision, reason, rule, commands)

    whole = {kind: rules.for_tool(kind, tool_name) for kind in ("deny", "ask", "allow")}
    if whole["deny"]:
        rule = whole["deny"][0]
        return made(Decision.DENY, f"deny rule {rule.describe()} covers every command", rule.entry)
    if verdict.denied is not None:
        return made(Decision.DENY, _denial(verdict.denied), _label(verdict.denied.rule))
    doubt = verdict.doubt
    doubted = _label(doubt.rule) if doubt is not None and doubt.rule is not None else None
    if doubt is not None and doubt.kind == "deny":
        return made(Decision.DENY, f"{doubt.text}; {REFUSED_DOUBT}", doubted)
    if mode is PermissionMode.PLAN:
        refusal = _plan_refusal(tool_name)
        return made(refusal.decision, refusal.reason, refusal.rule)
    if whole["ask"]:
        rule = whole["ask"][0]
        return made(Decision.ASK, f"ask rule {rule.describe()} covers every command", rule.entry)
    if verdict.asked is not None:
        return made(Decision.ASK, verdict.asked.explain("ask"), _label(verdict.asked.rule))
    if doubt is not None:
        return made(Decision.ASK, f"{tool_name} needs confirmation: {doubt.text}", doubted)
    if verdict.protected is not None:
        reason = f"{tool_name} needs confirmation in every mode: {verdict.protected}"
        return made(Decision.ASK, reason, "protected path")
    if whole["allow"]:
        rule = whole["allow"][0]
        return made(Decision.ALLOW, f"allow rule {rule.describe()} covers every command", rule.entry)
    if verdict.not_approved is None:
        return made(Decision.ALLOW, _approval(verdict.approved), _labels(verdict.approved))
    if mode is PermissionMode.YOLO:
        return made(Decision.ALLOW, YOLO_REASON, "mode: yolo")
    why = "auto-edit mode approves file edits, not commands; " if mode is PermissionMode.AUTO_EDIT else ""
    return made(Decision.ASK, f"{tool_name} needs confirmation: {why}{verdict.not_approved}", "tier: confirm")


def _denial(hit: RuleHit) -> str:
    return f"{hit.explain('deny')}; a denied part anywhere in a command line denies the whole line"


def _approval(hits: tuple[RuleHit, ...]) -> str:
    if len(hits) == 1:
        return hits[0].explain("allow")
    parts = "; ".join(f"`{hit.part}` by {hit.rule.describe()}" for hit in hits)
    return f"every part of the command line is allowed: {parts}"


def _label(rule: CommandRule) -> str:
    return rule.entry if rule.key.startswith("permissions.") else f"{rule.key}: {rule.entry}"


def _labels(hits: tuple[RuleHit, ...]) -> str | None:
    return "; ".join(dict.fromkeys(_label(hit.rule) for hit in hits)) or None


def _plan_refusal(tool_name: str) -> PermissionDecision:
    allowed = ", ".join(auto_tools())
    return PermissionDecision(
        Decision.DENY,
        f"SneakyCode is in plan mode: only the auto-approved tools ({allowed}) run, so {tool_name} was refused. "
        "Investigate with those tools, then finish with your plan; the user switches modes to carry it out",
        "mode: plan",
    )


def auto_tools() -> list[str]:
    return [found.name for found in all_tools() if found.tier is Tier.AUTO]
