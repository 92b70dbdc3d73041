"""Slash commands about the model and the settings: /model [NAME] (list the server's models, switch
mid-session), /model small NAME (switch the small model, which runs the chores) and /config (the effective
settings and where each came from)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sneakycode.api.vocabulary import ConfigError
from sneakycode.faces.shared.text import markup_safe

if TYPE_CHECKING:
    from sneakycode.api.session import Session
    from sneakycode.faces.terminal.commands import SlashContext

LIST_TIMEOUT = 5.0


def model_line(run: Session) -> str:
    config = run.config
    return f"{config.model} via {config.provider} ({config.base_url})"


def small_line(run: Session) -> str:
    config = run.small_config
    if config is None:
        return "none (the main model runs the chores)"
    return f"{config.model} via {config.provider} ({config.base_url})"


def model(sc: SlashContext, arg: str) -> bool:
    """`/model`: the model in use and the ones the server lists; `/model NAME` switches to NAME;
    `/model small NAME` switches the small model (compaction summaries, explore)."""
    run = sc.run
    role, _, rest = arg.partition(" ")
    if role == "small":
        if not rest.strip():
            sc.console.print(f"small model: {markup_safe(small_line(run))}")
            sc.console.print("[dim]/model small NAME switches it for the rest of this session.[/]")
            return True
        try:
            run.set_model(rest.strip(), role="small")
        except ConfigError as exc:
            sc.console.print(f"[red]Not switched: {markup_safe(str(exc))}[/]")
            return True
        window = run.small_config.context_window if run.small_config is not None else 0
        sc.console.print(f"small model set to {markup_safe(rest.strip())} (context window {window:,} tokens)")
        return True
    try:
        offered: list[str] | None = run.offered_models(LIST_TIMEOUT)
    except (OSError, ValueError) as exc:
        offered = None
        problem = f"{run.config.base_url}/models did not answer ({exc})"
    if not arg:
        sc.console.print(f"model: {markup_safe(model_line(run))}")
        sc.console.print(f"small model: {markup_safe(small_line(run))}")
        if offered is None:
            sc.console.print(f"[yellow]{markup_safe(problem)}[/]")
        for name in offered or []:
            mark = "*" if name == run.config.model else " "
            sc.console.print(f"  {mark} {markup_safe(name)}")
        sc.console.print("[dim]/model NAME switches for the rest of this session.[/]")
        return True
    if offered is not None and arg not in offered:
        close = [name for name in offered if arg.lower() in name.lower()]
        hint = f"; did you mean {', '.join(close[:5])}?" if close else "; /model lists them"
        sc.console.print(f"[red]{markup_safe(arg)} is not among the server's models{markup_safe(hint)}[/]")
        return True
    try:
        run.set_model(arg)
    except ConfigError as exc:  # e.g. a model without a price while --max-cost is set
        sc.console.print(f"[red]Not switched: {markup_safe(str(exc))}[/]")
        return True
    sc.model_line = model_line(run)
    sc.console.print(f"model set to {markup_safe(arg)} (context window {run.config.context_window:,} tokens)")
    return True


def config(sc: SlashContext, arg: str) -> bool:
    """`/config`: every setting that some layer set, with the layer; `/config all` adds the defaults."""
    shown = sc.run.settings_report(defaults=arg == "all")
    for setting in shown:
        sc.console.print(f"  {markup_safe(setting.key)} = {markup_safe(repr(setting.value))}  "
                         f"[dim]({markup_safe(setting.origin)})[/]")
    if not shown:
        sc.console.print("Every setting has its default.")
    sc.console.print("[dim]/config all lists the defaults too; docs/config.md describes every key.[/]")
    return True
