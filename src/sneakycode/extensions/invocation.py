"""`/NAME ARGS`: a custom command, a skill or an MCP server's prompt turned into the request the model gets.

A command's body gets its arguments (`$ARGUMENTS`, `$1`..`$9`; without either, the arguments are appended),
then each `` !`cmd` `` is replaced by the command's output, after the same permission check as any command
the model runs (it goes through the gate as a call of the command tool, so deny rules, the shell policy and
approvals apply; headless without --yes it is refused), and each `@path` that names a workspace file attaches
that file (read through the workspace guard, never a path a deny rule hides). Commands run before files are
attached, so an attached file's text is never run. A skill's body is the request as it is, with arguments.
An MCP prompt (`/mcp__SERVER__PROMPT`) is the text the server gives for its arguments (see mcp/prompts.py);
nothing in it is run or attached.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from sneakycode.errors import ConfigError, ErrorCode, ToolError
from sneakycode.extensions.commands import CommandCatalog, CustomCommand, discover_commands
from sneakycode.extensions.grants import granted, translate
from sneakycode.extensions.mcp.prompts import McpPrompt
from sneakycode.extensions.skills import Skill, SkillCatalog, discover_skills, render_skill
from sneakycode.permissions.gate import Gate
from sneakycode.tools.base import ToolContext
from sneakycode.tools.registry import all_tools
from sneakycode.workspace.files import Workspace

SLASH = re.compile(r"/([A-Za-z0-9][A-Za-z0-9_.-]*(?::[A-Za-z0-9][A-Za-z0-9_.-]*)*)(?:\s+(.*))?", re.DOTALL)
POSITIONAL = re.compile(r"\$([1-9])(?!\d)")
INLINE_COMMAND = re.compile(r"!`([^`\n]+)`")
FILE_MENTION = re.compile(r"(?<![\w@/`])@([A-Za-z0-9_.~/-][^\s`'\"()<>\[\]{},;]*)")
QUIET_MISSES = frozenset({ErrorCode.NOT_FOUND, ErrorCode.INVALID_PATH, ErrorCode.IS_DIRECTORY})


@dataclass(frozen=True)
class Extensions:
    """The skills, commands and MCP prompts of a session; a command shadows a skill of the same name."""

    skills: SkillCatalog = field(default_factory=SkillCatalog)
    commands: CommandCatalog = field(default_factory=CommandCatalog)
    prompts: tuple[McpPrompt, ...] = ()

    def notices(self) -> list[str]:
        return [*self.skills.notices(), *self.commands.notices()]

    def slash_entries(self) -> list[tuple[str, str]]:
        """(name, one line of help) for every `/NAME` these provide, commands first."""
        entries = [(c.name, _command_help(c)) for c in self.commands.commands]
        taken = {name for name, _ in entries}
        entries += [(s.name, f"(skill) {s.description}") for s in self.skills.skills if s.name not in taken]
        taken = {name for name, _ in entries}
        entries += [(p.name, p.help()) for p in self.prompts if p.name not in taken]
        return entries

    def find(self, name: str) -> CustomCommand | Skill | McpPrompt | None:
        return (self.commands.get(name) or self.skills.get(name)
                or next((p for p in self.prompts if p.name == name), None))


def load_extensions(workspace: Workspace, *, skills: bool = True, user: bool = True) -> Extensions:
    """Every command, and every skill unless `skills` is off (the skills.enabled setting); `user` off reads
    only the workspace's own files, nothing from the user's config folder."""
    catalog = discover_skills(workspace, user=user) if skills else SkillCatalog()
    return Extensions(catalog, discover_commands(workspace, user=user))


def _command_help(command: CustomCommand) -> str:
    hint = f"{command.argument_hint} " if command.argument_hint else ""
    return f"{hint}{command.description or f'(command from {command.file})'}"


@dataclass
class Invocation:
    """The request to send, the allow rules to grant while it runs (with their origin), the model to use."""

    name: str
    prompt: str
    origin: str
    grants: list[str] = field(default_factory=list)
    model: str | None = None
    notices: list[str] = field(default_factory=list)


def parse_slash(line: str) -> tuple[str, str] | None:
    """(name, arguments) when `line` invokes `/NAME`; None otherwise (`/tmp/x.py is broken` is a task)."""
    found = SLASH.fullmatch(line.strip())
    return (found.group(1), (found.group(2) or "").strip()) if found else None


def invoke(line: str, extensions: Extensions, gate: Gate, *, trusted: bool) -> Invocation:
    """The request `/NAME ARGS` stands for; a ConfigError when there is no such command or an inline
    command was refused (nothing is sent then). `trusted`: the user trusts this workspace's own files."""
    parsed = parse_slash(line)
    found = extensions.find(parsed[0]) if parsed else None
    if parsed is None or found is None:
        names = ", ".join(f"/{name}" for name, _ in extensions.slash_entries()) or "none are defined"
        asked = parsed[0] if parsed else line.split()[0].lstrip("/")
        raise ConfigError(f"there is no command or skill /{asked} (the commands and skills: {names})")
    name, arguments = parsed
    if isinstance(found, McpPrompt):
        prompt = found.expand(arguments, gate.ctx.output_limit)
        return Invocation(name, prompt, origin=f"/{name} (MCP server {found.server})")
    invocation = Invocation(name, "", origin=f"/{name} ({_file_of(found)})")
    _grant(invocation, found, trusted)
    if isinstance(found, Skill):
        invocation.prompt = with_arguments(f"Use the skill {found.name}.\n\n{render_skill(found)}", arguments)
        return invocation
    if found.model and found.project and not trusted:
        # The user pays for the model on their key: a repository's command does not choose it before trust.
        invocation.notices.append(
            f"model {found.model!r} of {invocation.origin} is not used (the session's model runs it): the file comes "
            "with the repository and this workspace is not trusted (run `sneakycode trust`, or pass --trust-project "
            "for one run)"
        )
    else:
        invocation.model = found.model
    prompt = with_arguments(found.body, arguments)
    with granted(gate.ctx, invocation.grants, invocation.origin):
        prompt = run_inline_commands(prompt, gate)
    invocation.prompt = attach_files(prompt, gate.ctx, invocation.notices)
    return invocation


def _file_of(found: CustomCommand | Skill) -> str:
    return found.file if isinstance(found, CustomCommand) else found.folder + "/SKILL.md"


def _grant(invocation: Invocation, found: CustomCommand | Skill, trusted: bool) -> None:
    if not found.allowed_tools:
        return
    if found.project and not trusted:
        invocation.notices.append(
            f"allowed-tools of {invocation.origin} were not granted: the file comes with the repository and this "
            "workspace is not trusted (run `sneakycode trust`, or pass --trust-project for one run)"
        )
        return
    invocation.grants, dropped = translate(found.allowed_tools)
    if dropped:
        invocation.notices.append(f"allowed-tools of {invocation.origin} name no tool here: {', '.join(dropped)}")


def with_arguments(body: str, arguments: str) -> str:
    """`$ARGUMENTS` is the whole argument text, `$1`..`$9` its words (shell quoting respected); a body with
    neither gets the arguments appended, so they are never lost."""
    if "$ARGUMENTS" not in body and not POSITIONAL.search(body):
        return f"{body}\n\nARGUMENTS: {arguments}" if arguments else body
    try:
        words = shlex.split(arguments)
    except ValueError:  # an unbalanced quote: split on whitespace rather than refuse the command
        words = arguments.split()
    text = body.replace("$ARGUMENTS", arguments)
    return POSITIONAL.sub(lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", text)


def run_inline_commands(text: str, gate: Gate) -> str:
    """Each `` !`cmd` `` replaced by its output; a ConfigError (nothing sent) when one is refused."""
    runner = next(t for t in all_tools() if t.command is not None)
    # The user's command runs whether or not the model is offered the command tool.
    direct = Gate(gate.ctx, gate.approver, gate.mode, unattended=gate.unattended)

    def replace(match: re.Match[str]) -> str:
        command = match.group(1).strip()
        call = direct.prepare(runner.name, {runner.command or "": command})
        verdict = direct.check(call)
        if verdict is not None and verdict.refusal is not None:
            refusal = verdict.refusal
            how = f"\n{verdict.how_to_allow}" if verdict.how_to_allow else ""
            raise ConfigError(f"!`{command}` was not run, so the command was not sent: {refusal.error}{how}")
        result = direct.run(call)
        return result.content.strip() if result.success else result.render()

    return INLINE_COMMAND.sub(replace, text)


def attach_files(text: str, ctx: ToolContext, notices: list[str]) -> str:
    """The text with each file it mentions as `@path` attached after it; a mention that names no file is
    left as text (`@property` is not a path)."""
    attached: list[str] = []
    seen: set[str] = set()
    for match in FILE_MENTION.finditer(text):
        path = match.group(1).rstrip(".:")
        if path in seen:
            continue
        seen.add(path)
        try:
            content = ctx.workspace.read_text(path).text
        except ToolError as err:
            if err.code not in QUIET_MISSES:
                notices.append(f"@{path} was not attached: {err.error}")
            continue
        shown = ctx.workspace.display(ctx.workspace.resolve(path))
        rule = ctx.hidden(shown)
        if rule is not None:
            notices.append(f"@{path} was not attached: deny rule `{rule}` keeps it from the model")
            continue
        limit = ctx.output_limit
        if len(content) > limit:
            content = f"{content[:limit]}\n[cut at {limit} characters; read the file for the rest]"
        attached.append(f'<file path="{shown}">\n{content.rstrip()}\n</file>')
    return "\n\n".join([text, *attached]) if attached else text
