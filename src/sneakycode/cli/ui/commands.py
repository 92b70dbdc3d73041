"""Slash commands of the interactive session; each returns False only when the session should end."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console

from sneakycode.agent.loop import Agent
from sneakycode.cli.text import markup_safe
from sneakycode.config import LoadedSettings, PermissionMode


@dataclass
class SlashContext:
    agent: Agent
    loaded: LoadedSettings
    console: Console
    model_line: str


def _help(sc: SlashContext, _arg: str) -> bool:
    for name, (_, text) in COMMANDS.items():
        sc.console.print(f"  [bold]/{name}[/] {markup_safe(text)}")
    sc.console.print("  Ctrl-C stops the running turn; Ctrl-D (or /exit) leaves.")
    return True


def _exit(_sc: SlashContext, _arg: str) -> bool:
    return False


def _undo(sc: SlashContext, arg: str) -> bool:
    from sneakycode.session.undo import undo_session

    if arg and not arg.isdigit():
        sc.console.print("[red]usage: /undo [N]  (N: how many changes to revert; default all of this session)[/]")
        return True
    ctx = sc.agent.ctx
    report = undo_session(ctx.session_dir, ctx.session_id, ctx.workspace.root, steps=int(arg) if arg else None,
                          force=False)
    for line in report.lines():
        sc.console.print(markup_safe(line), style=None if report.ok else "red")
    return True


def _permissions(sc: SlashContext, _arg: str) -> bool:
    from sneakycode.cli.permissions_command import rules_report

    sc.console.print(f"mode: {sc.agent.mode}")
    sc.console.print(markup_safe(rules_report(sc.loaded)))
    return True


def _mode(sc: SlashContext, arg: str) -> bool:
    if arg not in list(PermissionMode):
        sc.console.print(f"mode: {sc.agent.mode}  (choose with /mode {' | '.join(PermissionMode)})")
        return True
    sc.agent.set_mode(arg)
    sc.console.print(f"mode set to {arg}")
    return True


def _tasks(sc: SlashContext, _arg: str) -> bool:
    tasks = sc.agent.ctx.tasks
    if not tasks:
        sc.console.print("No tasks yet.")
    for task in tasks:
        sc.console.print(f"  {task.get('status', '?'):<12} {markup_safe(str(task.get('content', '')))}")
    return True


def _clear(sc: SlashContext, _arg: str) -> bool:
    sc.agent.clear()
    sc.console.print("Conversation cleared; files must be read again before they are edited.")
    return True


def _jobs(sc: SlashContext, arg: str) -> bool:
    """List the session's jobs; `/jobs kill N` ends one (the person at the terminal needs no approval)."""
    table = sc.agent.ctx.jobs
    action, _, number = arg.partition(" ")
    if action == "kill":
        found = table.get(int(number)) if number.strip().isdigit() else None
        if found is None:
            sc.console.print("[red]usage: /jobs kill N  (N: a job id from /jobs)[/]")
            return True
        table.kill(found)
        sc.console.print(f"job {found.id} {found.status}")
        return True
    if not table.jobs:
        sc.console.print("No jobs yet: the model starts one with run_command background=true.")
    for job in table.jobs.values():
        info = job.summary()
        ended = "" if job.running else f" exit {job.exit_code}" if job.signal is None else f" {job.signal}"
        sc.console.print(f"  [{job.id}] {job.status}{ended}  {info['seconds']} s  {info['output_bytes']} bytes  "
                         f"{markup_safe(job.command)}")
        if job.log_path:
            sc.console.print(f"      [dim]log {markup_safe(str(job.log_path))}[/]")
    return True


def _stats(sc: SlashContext, _arg: str) -> bool:
    spent = sc.agent.spending
    cost = "unknown (no price for this model: see docs/headless.md, pricing)" if spent.price is None else (
        f"${spent.cost:.4f} ({markup_safe(spent.price.source)})")
    sc.console.print(f"tokens: {spent.prompt_tokens:,} in ({spent.cached_tokens:,} cached), "
                     f"{spent.completion_tokens:,} out")
    sc.console.print(f"cost: {cost}")
    sc.console.print(f"jobs: {len(sc.agent.ctx.jobs.running())} running, {len(sc.agent.ctx.jobs.jobs)} started")
    return True


def _model(sc: SlashContext, _arg: str) -> bool:
    sc.console.print(markup_safe(sc.model_line))
    return True


COMMANDS: dict[str, tuple[Callable[[SlashContext, str], bool], str]] = {
    "help": (_help, "show this list"),
    "undo": (_undo, "[N] revert this session's last N changes (default all)"),
    "permissions": (_permissions, "show the mode and the effective rules with their sources"),
    "mode": (_mode, "[MODE] show or set the permission mode: default, auto-edit, plan, yolo"),
    "tasks": (_tasks, "show the task list"),
    "clear": (_clear, "start a fresh conversation in the same session"),
    "model": (_model, "show the provider and model in use"),
    "jobs": (_jobs, "list background jobs; /jobs kill N ends one"),
    "stats": (_stats, "tokens and cost of this session"),
    "exit": (_exit, "leave SneakyCode"),
    "quit": (_exit, "leave SneakyCode"),
}


def run_slash(sc: SlashContext, line: str) -> bool:
    name, _, arg = line[1:].strip().partition(" ")
    found = COMMANDS.get(name)
    if found is None:
        sc.console.print(f"[red]Unknown command /{markup_safe(name)}.[/] Type /help for the list.")
        return True
    return found[0](sc, arg.strip())
