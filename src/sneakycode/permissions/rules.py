"""Permission rules as configured: `[permissions] allow / ask / deny` and `[tools.shell]` command lists.

A `[permissions]` rule is `TOOL` (every call of that tool) or `TOOL(PATTERN)`; TOOL may be a glob with `*`
and `?` (`mcp__docs__*`, `mcp__github__delete_*`), matched against the whole tool name. For file tools PATTERN is a
gitignore-style glob relative to the workspace, matched against the tool's path arguments; for a tool that
fetches a URL it is `domain:HOST-GLOB`, matched against the URL's host (any case; `*.internal` matches every
name under internal), or else a glob on the whole URL; for run_command
it is a command `PREFIX` (the whole command must equal it in an allow rule) or `PREFIX:*` (any command that
starts with those words). Deny and ask rules always match as prefixes: a rule meant to stop `git push`
must also stop `git push --force`. Every rule remembers the file, variable or flag it came from.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from sneakycode.config import LoadedSettings, Settings
from sneakycode.tools.context import nothing_hidden
from sneakycode.tools.registry import get_tool

RULE_SYNTAX = re.compile(r"\s*([A-Za-z_*?][A-Za-z0-9_.:*?-]*)\s*(?:\((.*?)\)?)?\s*", re.DOTALL)
KINDS = ("deny", "ask", "allow")
SHELL_LISTS = {"deny": "tools.shell.denied_commands", "allow": "tools.shell.allowed_commands"}

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

    from sneakycode.permissions.shell.matching import CommandRules

Origins = Mapping[str, Sequence[tuple[str, str]]]
RuleLists = tuple[tuple[str, tuple[tuple[str, str | None], ...]], ...]


@dataclass(frozen=True)
class ToolRule:
    tool: str
    pattern: str | None
    entry: str
    key: str
    origin: str | None = None

    def describe(self) -> str:
        where = f"{self.key} in {self.origin}" if self.origin else self.key
        return f"`{self.entry}` ({where})"


@dataclass(frozen=True)
class RuleSet:
    """Every rule, sorted by kind; `malformed` lists entries that are not `TOOL` or `TOOL(PATTERN)`."""

    tools: dict[str, tuple[ToolRule, ...]]
    malformed: tuple[tuple[str, str, str | None], ...]
    lists: RuleLists
    """Every configured entry with its origin, by settings key: what `shell` is compiled from."""

    @property
    def shell(self) -> CommandRules:
        # Compiled on first use: only run_command decisions need the shell policy, and importing it is a
        # noticeable part of a single `sneakycode tool read_file`.
        return _command_rules(self.lists)

    def for_tool(self, kind: str, tool: str) -> list[ToolRule]:
        return [rule for rule in self.tools[kind] if names_tool(rule.tool, tool)]


def names_tool(rule_tool: str, tool: str) -> bool:
    """Whether a rule's TOOL part (a name, or a glob with `*` and `?`) covers the tool called `tool`."""
    if "*" in rule_tool or "?" in rule_tool:
        return fnmatch.fnmatchcase(tool, rule_tool)
    return rule_tool == tool


def parse_rule(entry: str) -> tuple[str, str | None] | None:
    """`TOOL` or `TOOL(PATTERN)` -> (tool, pattern); None when the entry has neither form. A missing
    closing parenthesis is forgiven (and reported by `permissions list`): a typo must not drop a deny rule."""
    found = RULE_SYNTAX.fullmatch(entry)
    if found is None:
        return None
    pattern = found.group(2)
    if pattern is not None and not pattern.strip():
        return None
    return found.group(1), (pattern.strip() if pattern is not None else None)


def rule_set(settings: Settings | LoadedSettings) -> RuleSet:
    """The rules of these settings, with their origins when the settings were loaded from files."""
    origins: Origins = settings.rule_origins if isinstance(settings, LoadedSettings) else {}
    plain = settings.settings if isinstance(settings, LoadedSettings) else settings
    lists = {
        "permissions.deny": plain.permissions.deny,
        "permissions.ask": plain.permissions.ask,
        "permissions.allow": plain.permissions.allow,
        "tools.shell.denied_commands": plain.tools.shell.denied_commands,
        "tools.shell.allowed_commands": plain.tools.shell.allowed_commands,
    }
    frozen = tuple(
        (key, tuple((entry, _origin(origins, key, entry)) for entry in entries)) for key, entries in lists.items()
    )
    return _compile(frozen)


def _origin(origins: Origins, key: str, entry: str) -> str | None:
    sources = [source for rule, source in origins.get(key, ()) if rule == entry]
    return " and ".join(sources) if sources else None


@lru_cache(maxsize=64)
def _compile(lists: RuleLists) -> RuleSet:
    by_key = dict(lists)
    tools: dict[str, list[ToolRule]] = {kind: [] for kind in KINDS}
    malformed: list[tuple[str, str, str | None]] = []
    for kind in KINDS:
        key = f"permissions.{kind}"
        for entry, origin in by_key[key]:
            parsed = parse_rule(entry)
            if parsed is None:
                malformed.append((key, entry, origin))
            elif not (parsed[1] and _takes_commands(parsed[0])):
                tools[kind].append(ToolRule(*parsed, entry, key, origin))
    return RuleSet(tools={kind: tuple(rules) for kind, rules in tools.items()}, malformed=tuple(malformed), lists=lists)


@lru_cache(maxsize=64)
def _command_rules(lists: RuleLists) -> CommandRules:
    from sneakycode.permissions.shell.matching import CommandRule, CommandRules

    by_key = dict(lists)
    shell: dict[str, list[CommandRule]] = {kind: [] for kind in KINDS}
    for kind in KINDS:
        key = f"permissions.{kind}"
        for entry, origin in by_key[key]:
            parsed = parse_rule(entry)
            if parsed is not None and parsed[1] and _takes_commands(parsed[0]):
                shell[kind].append(CommandRule.parse(parsed[1], entry, key, origin, prefix=kind != "allow"))
        if kind in SHELL_LISTS:
            key = SHELL_LISTS[kind]
            shell[kind].extend(CommandRule.parse(entry, entry, key, origin) for entry, origin in by_key[key])
    return CommandRules(tuple(shell["deny"]), tuple(shell["ask"]), tuple(shell["allow"]))


def hidden_paths(settings: Settings | LoadedSettings) -> Callable[[str], str | None]:
    """For the search tools: the deny rule that keeps a workspace-relative path out of their results, or
    None. A path a deny rule keeps from any tool that reads (a read-only tool with path arguments, like
    `read_file(.env)`) must not come back as search matches or file names either. A search of an extra root
    (`--add-dir`) reports absolute paths: they are matched relative to the extra root that holds them, as
    the permission decision matches them (workspace/paths.py `path_forms`)."""
    rules = [rule for rule in rule_set(settings).tools["deny"] if rule.pattern and _reads(rule.tool)]
    if not rules:
        return nothing_hidden
    extra = settings.extra_roots if isinstance(settings, LoadedSettings) else ()

    def hidden(path: str) -> str | None:
        forms = [path, *(os.path.relpath(path, root) for root in extra if path.startswith(str(root) + "/"))]
        return next((rule.entry for rule in rules for form in forms
                     if rule.pattern and path_matches(rule.pattern, form)), None)

    return hidden


def denied_urls(settings: Settings | LoadedSettings) -> Callable[[str], str | None]:
    """For tools that fetch URLs: the deny rule that refuses a URL, or None. The tool asks it again for every
    redirect hop, so a deny rule holds for a page that redirects into a denied domain; web_search asks it for
    every result, so a denied domain never shows up there either."""
    rules = url_deny_rules(settings)

    def denied(url: str) -> str | None:
        return next((rule.entry for rule in rules if rule.pattern and url_matches(rule.pattern, url)), None)

    return denied


def url_deny_rules(settings: Settings | LoadedSettings) -> list[ToolRule]:
    """The deny rules with a pattern for tools that fetch or list URLs: the ones `denied_urls` applies."""
    return [rule for rule in rule_set(settings).tools["deny"] if rule.pattern and _fetches(rule.tool)]


def url_host(url: str) -> str | None:
    """The URL's host name, lower case and without a trailing dot, as the fetching tool reads it."""
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    return host.rstrip(".") if host else None


def url_matches(pattern: str, url: str) -> bool:
    """`domain:GLOB` against the URL's host; any other pattern is a glob on the whole URL."""
    if pattern.startswith("domain:"):
        host = url_host(url)
        wanted = pattern.removeprefix("domain:").strip().lower().rstrip(".")
        return host is not None and fnmatch.fnmatchcase(host, wanted)
    return fnmatch.fnmatchcase(url.strip(), pattern)


def _fetches(tool: str) -> bool:
    """A tool that fetches a URL, or lists URLs to fetch (web_search): its domain deny rules hold for both."""
    found = get_tool(tool)
    return found is not None and (found.url is not None or found.lists_urls)


def _reads(tool: str) -> bool:
    found = get_tool(tool)
    return found is not None and found.read_only and bool(found.paths)


def _takes_commands(tool: str) -> bool:
    """A rule's pattern is a command prefix for a tool that runs command lines, a path glob otherwise."""
    found = get_tool(tool)
    return found is not None and found.command is not None


@lru_cache(maxsize=256)
def _spec(pattern: str) -> GitIgnoreSpec:
    from pathspec import GitIgnoreSpec

    return GitIgnoreSpec.from_lines([pattern.removeprefix("./")])


def path_matches(pattern: str, form: str) -> bool:
    return _spec(pattern).match_file(form)
