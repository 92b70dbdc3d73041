"""The slash commands an editor lists (`available_commands_update`): the editor face's own (/clear,
/compact), then the session's custom commands, skills and MCP prompts, which `Session.run` expands itself."""

from __future__ import annotations

from collections.abc import Callable

from acp import schema

from sneakycode.api.session import Session

OWN = {
    "clear": "Start the conversation afresh (files must be read again before they are edited)",
    "compact": "Replace the conversation so far with a summary (optional: what to keep in detail)",
}


def available(session: Session) -> list[schema.AvailableCommand]:
    listed = [schema.AvailableCommand(name=name, description=text) for name, text in OWN.items()]
    taken = set(OWN)
    for name, help_text in session.extensions.slash_entries():
        if name in taken:
            continue
        taken.add(name)
        listed.append(schema.AvailableCommand(name=name, description=help_text or name,
                                              input=schema.UnstructuredCommandInput(hint="arguments")))
    return listed


def own_command(text: str) -> tuple[str, str] | None:
    """(`clear` or `compact`, its argument) when the prompt is one of the face's own commands."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, argument = stripped[1:].partition(" ")
    return (name, argument.strip()) if name in OWN else None


def run_own(session: Session, name: str, argument: str, say: Callable[[str], None]) -> None:
    """Run /clear or /compact in the session (on the worker thread) through the session's verbs, as the terminal
    does (so /clear runs the SessionStart hooks in both); `say` tells the user what happened."""
    if name == "clear":
        session.clear()
        say("Conversation cleared.")
        return
    from sneakycode.api.vocabulary import SneakyError

    try:
        done = session.compact(argument)
    except SneakyError as exc:
        say(f"Not compacted: {exc}")
        return
    say(done.describe() if done is not None else "Nothing to compact yet.")
