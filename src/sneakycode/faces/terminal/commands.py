"""Slash commands of the interactive session; each returns False only when the session should end."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console

from sneakycode.api.vocabulary import CheckpointError, ConfigError, PermissionMode
from sneakycode.faces.shared.text import markup_safe, printable
from sneakycode.faces.terminal import model_commands, session_commands
from sneakycode.faces.terminal.status import cache_summary

if TYPE_CHECKING:
    from sneakycode.api.session import Session


@dataclass
class SlashContext:
    """`run` is the session: every command calls its verbs. `invoke` runs an extension command line; `send`
    runs one plain request the way a typed task runs."""

    run: Session
    console: Console
    model_line: str
    invoke: Callable[[str], None] | None = None
    last_result: Callable[[], str | None] | None = None  # the last tool result, whole (for /expand)
    send: Callable[[str], None] | None = None


def _help(sc: SlashContext, _arg: str) -> bool:
    from rich.table import Table
    from rich.text import Text

    # Two columns (name, what it does), the descriptions aligned and wrapped in their own column; Text, not
    # markup, as a description may hold brackets (`[all]`) and an extension's comes from a file.
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True)
    table.add_column()
    entries = [(name, text) for name, (_, text) in COMMANDS.items()]
    entries += [(name, text) for name, text in sc.run.commands() if name not in COMMANDS]
    for name, text in entries:
        table.add_row(Text.assemble("  ", (f"/{printable(name)}", "bold")), Text(printable(text)))
    sc.console.print(table)
    sc.console.print("  Esc or Ctrl-C stops the running turn; Shift+Tab cycles the mode; Ctrl-D (or /exit) leaves.")
    sc.console.print("  @PATH attaches a file or folder listing; !COMMAND runs a command and shares its output.")
    return True


def _skills(sc: SlashContext, _arg: str) -> bool:
    skills = sc.run.skills()
    if not skills:
        sc.console.print("No skills. A skill is a folder with a SKILL.md in .sneakycode/skills/ (docs/extending.md).")
    for found in skills:
        sc.console.print(f"  [bold]{markup_safe(found.name)}[/] {markup_safe(found.description)}")
        sc.console.print(f"    [dim]{markup_safe(found.folder)}[/]")
    return True


def _exit(_sc: SlashContext, _arg: str) -> bool:
    return False


def _undo(sc: SlashContext, arg: str) -> bool:
    if arg and not arg.isdigit():
        sc.console.print("[red]usage: /undo [N]  (N: how many changes to revert; default all of this session)[/]")
        return True
    report = sc.run.undo(int(arg) if arg else None)
    for line in report.lines():
        sc.console.print(markup_safe(line), style=None if report.ok else "red")
    return True


def _rewind(sc: SlashContext, arg: str) -> bool:
    if arg and not arg.isdigit():
        sc.console.print("[red]usage: /rewind [TURN]  (files and conversation to before TURN; default: the last)[/]")
        return True
    try:  # the session's verb: files and conversation together, as the editor's rewind does
        report = sc.run.rewind(int(arg) if arg else None)
    except CheckpointError as exc:
        sc.console.print(f"[red]Nothing rewound: {markup_safe(str(exc))}[/]")
        return True
    for line in report.lines():
        sc.console.print(markup_safe(line), style=None if report.ok else "red")
    return True


def _permissions(sc: SlashContext, _arg: str) -> bool:
    from sneakycode.api.permissions import rules_report

    sc.console.print(f"mode: {sc.run.mode}")
    sc.console.print(markup_safe(rules_report(sc.run.loaded)))
    return True


def _mode(sc: SlashContext, arg: str) -> bool:
    if arg not in list(PermissionMode):
        sc.console.print(f"mode: {sc.run.mode}  (choose with /mode {' | '.join(PermissionMode)})")
        return True
    sc.run.set_mode(arg)
    sc.console.print(f"mode set to {arg}")
    return True


def _tasks(sc: SlashContext, _arg: str) -> bool:
    tasks = sc.run.tasks
    if not tasks:
        sc.console.print("No tasks yet.")
    for task in tasks:
        sc.console.print(f"  {task.get('status', '?'):<12} {markup_safe(str(task.get('content', '')))}")
    return True


def _agents(sc: SlashContext, _arg: str) -> bool:
    for definition in sc.run.subagents():
        tools = "all tools" if definition.tools is None else ", ".join(definition.tools)
        model = f"; model {definition.model}" if definition.model else ""
        sc.console.print(f"  [bold]{markup_safe(definition.name)}[/] ({markup_safe(definition.source)}): "
                         f"{markup_safe(definition.description)} [dim]({markup_safe(tools)}{markup_safe(model)})[/]")
    sc.console.print("[dim]Define more in .sneakycode/agents/NAME.md or .claude/agents/NAME.md (docs/extending.md).[/]")
    return True


def _clear(sc: SlashContext, _arg: str) -> bool:
    sc.run.clear()  # the session's verb: the editor's /clear does the same (SessionStart hooks run again)
    sc.console.print("Conversation cleared; files must be read again before they are edited.")
    return True


def _goal(sc: SlashContext, arg: str) -> bool:
    """`/goal CMD`: from the next task on, work until CMD passes (docs/goals.md); `/goal off` drops it."""
    current = sc.run.options.until
    if not arg:
        shown = f"`{markup_safe(current)}`" if current else "none"
        sc.console.print(f"goal: {shown}  (set with /goal CMD, drop with /goal off)")
        return True
    try:
        sc.run.set_goal(None if arg == "off" else arg)
    except ConfigError as exc:
        sc.console.print(f"[red]{markup_safe(str(exc))}[/]")
        return True
    if arg == "off":
        sc.console.print("Goal dropped: tasks end when the model says they are done.")
    else:
        sc.console.print(f"Goal set: each task runs until `{markup_safe(arg)}` passes or a budget ends it; the "
                         "files it names are read-only for the model meanwhile.")
    return True


def _attempts(sc: SlashContext, arg: str) -> bool:
    """`/attempts N TASK`: N attempts of TASK in their own worktrees (with the /goal check, when one is set);
    the chosen change is applied only when the person says yes (docs/goals.md)."""
    from dataclasses import replace

    from sneakycode.batch.attempts import Attempts, run_attempts

    count, _, task = arg.partition(" ")
    if not count.isdigit() or not task.strip():
        sc.console.print("usage: /attempts N TASK  (with /goal CMD set first, the passing attempt is kept)")
        return True

    def confirm(found: Attempts) -> bool:
        chosen = found.chosen or {}
        answer = sc.console.input(f"Apply attempt {chosen.get('attempt')}'s change "
                                  f"({chosen.get('diff_lines')} changed lines) to the workspace? [y/N] ")
        return answer.strip().lower() in ("y", "yes")

    sc.console.print(f"Running {count} attempt(s) in their own worktrees; Ctrl-C cancels them all.")
    try:
        result = run_attempts(replace(sc.run.options, attempts=int(count)), task, confirm=confirm)
    except ConfigError as exc:
        sc.console.print(f"[red]{markup_safe(str(exc))}[/]")
        return True
    for row in result.attempts:
        check = {True: "passed", False: "failed", None: "no check"}[row["check_passed"]]
        sc.console.print(f"  attempt {row['attempt']}: {row['status']}, check {check}, {row['turns']} turns, "
                         f"{row['tokens']} tokens, {row['diff_lines']} changed lines")
    sc.console.print(markup_safe(result.message))
    return True


def _jobs(sc: SlashContext, arg: str) -> bool:
    """List the session's jobs; `/jobs kill N` ends one (the person at the terminal needs no approval)."""
    action, _, number = arg.partition(" ")
    if action == "kill":
        ended = sc.run.kill_job(int(number)) if number.strip().isdigit() else None
        if ended is None:
            sc.console.print("[red]usage: /jobs kill N  (N: a job id from /jobs)[/]")
            return True
        sc.console.print(f"job {ended['id']} {ended['status']}")
        return True
    jobs = sc.run.jobs()
    if not jobs:
        sc.console.print("No jobs yet: the model starts one with run_command background=true.")
    for info in jobs:
        running = info["status"] == "running"
        ended_as = "" if running else f" exit {info['exit_code']}" if info["signal"] is None else f" {info['signal']}"
        sc.console.print(f"  [{info['id']}] {info['status']}{ended_as}  {info['seconds']} s  "
                         f"{info['output_bytes']} bytes  {markup_safe(str(info['command']))}")
        if info["log_path"]:
            sc.console.print(f"      [dim]log {markup_safe(str(info['log_path']))}[/]")
    return True


def _stats(sc: SlashContext, _arg: str) -> bool:
    spent = sc.run.usage()
    cost = "unknown (no price for this model: see docs/headless.md, pricing)" if spent.cost is None else (
        f"${spent.cost:.4f} ({markup_safe(spent.price_source or '')})")
    sc.console.print(f"tokens: {spent.prompt_tokens:,} in ({spent.cached_tokens:,} cached), "
                     f"{spent.completion_tokens:,} out")
    sc.console.print(f"prompt cache: {cache_summary(spent.cached_tokens, spent.prompt_tokens, spent.cache_reported)}"
                     + (f"; prefill {spent.prefill_seconds:.1f} s" if spent.prefill_seconds is not None else ""))
    sc.console.print(f"cost: {cost}")
    sc.console.print(f"jobs: {len(spent.running_jobs)} running, {spent.jobs_started} started")
    return True


def _mcp(sc: SlashContext, _arg: str) -> bool:
    from sneakycode.api.mcp_config import servers_report

    sc.console.print(markup_safe(servers_report(sc.run.mcp_servers())))
    return True


def _expand(sc: SlashContext, _arg: str) -> bool:
    """The last tool result in full: the terminal shows results folded to a few lines."""
    shown = sc.last_result() if sc.last_result is not None else None
    if shown is None:
        sc.console.print("No tool result yet.")
        return True
    sc.console.print(markup_safe(shown), highlight=False)
    return True


COMMANDS: dict[str, tuple[Callable[[SlashContext, str], bool], str]] = {
    "help": (_help, "show this list"),
    "undo": (_undo, "[N] revert this session's last N changes (default all)"),
    "rewind": (_rewind, "[TURN] files (commands' changes too) and conversation back to before TURN (default: last)"),
    "permissions": (_permissions, "show the mode and the effective rules with their sources"),
    "mode": (_mode, "[MODE] show or set the permission mode: default, auto-edit, plan, yolo"),
    "tasks": (_tasks, "show the task list"),
    "clear": (_clear, "start a fresh conversation in the same session"),
    "agents": (_agents, "list the subagents the task tool can run"),
    "model": (model_commands.model, "[small] [NAME] list the server's models, or switch (the small model) to NAME"),
    "config": (model_commands.config, "[all] the effective settings and where each came from"),
    "compact": (session_commands.compact, "[FOCUS] summarise the conversation so far (keeping FOCUS in detail)"),
    "diff": (session_commands.diff, "everything this session changed, as a diff"),
    "init": (session_commands.init, "have the model write or update AGENTS.md for this repository"),
    "resume": (session_commands.resume, "[N] list recent sessions, or continue session N's conversation here"),
    "export": (session_commands.export, "[FILE] save the conversation as Markdown"),
    "skills": (_skills, "list the skills the model may load (/NAME runs one directly)"),
    "mcp": (_mcp, "show the MCP servers: status, tool count, where each was configured"),
    "jobs": (_jobs, "list background jobs; /jobs kill N ends one"),
    "attempts": (_attempts, "N TASK run TASK N times in worktrees, keep the passing attempt (asks to apply)"),
    "goal": (_goal, "[CMD|off] work on each task until CMD passes (a goal); show or drop it"),
    "stats": (_stats, "tokens and cost of this session"),
    "expand": (_expand, "show the last tool result whole (results are folded to a few lines)"),
    "exit": (_exit, "leave SneakyCode"),
    "quit": (_exit, "leave SneakyCode"),
}


def run_slash(sc: SlashContext, line: str) -> bool:
    name, _, arg = line[1:].strip().partition(" ")
    found = COMMANDS.get(name)
    if found is None and sc.invoke is not None and sc.run.has_command(name):
        sc.invoke(line)
        return True
    if found is None:
        sc.console.print(f"[red]Unknown command /{markup_safe(name)}.[/] Type /help for the list.")
        return True
    return found[0](sc, arg.strip())
