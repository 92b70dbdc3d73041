"""The slash commands an editor lists (`available_commands_update`): the editor face's own (/clear,
/compact, /goal), then the session's custom commands, skills and MCP prompts, which `Session.run` expands itself."""

from __future__ import annotations

from collections.abc import Callable

from acp import schema

from sneakycode.api.session import Session

OWN = {
    "clear": "Start the conversation afresh (files must be read again before they are edited)",
    "compact": "Replace the conversation so far with a summary (optional: what to keep in detail)",
    "goal": "Work on each request until a check command passes: /goal CMD (/goal off drops it; docs/goals.md)",
}
# The commands whose argument the editor should prompt for (ACP's `input`), with its hint.
HINTS = {"goal": "the check command, e.g. pytest -q tests/test_x.py (or off)"}


def available(session: Session) -> list[schema.AvailableCommand]:
    listed = [schema.AvailableCommand(name=name, description=text, input=schema.UnstructuredCommandInput(
        hint=HINTS[name]) if name in HINTS else None) for name, text in OWN.items()]
    taken = set(OWN)
    for name, help_text in session.commands():
        if name in taken:
            continue
        taken.add(name)
        listed.append(schema.AvailableCommand(name=name, description=help_text or name,
                                              input=schema.UnstructuredCommandInput(hint="arguments")))
    return listed


def own_command(text: str) -> tuple[str, str] | None:
    """(`clear`, `compact` or `goal`, its argument) when the prompt is one of the face's own commands."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, argument = stripped[1:].partition(" ")
    return (name, argument.strip()) if name in OWN else None


def run_own(session: Session, name: str, argument: str, say: Callable[[str], None]) -> None:
    """Run /clear, /compact or /goal in the session (on the worker thread) through the session's verbs, as the
    terminal does (so /clear runs the SessionStart hooks in both); `say` tells the user what happened."""
    from sneakycode.api.vocabulary import SneakyError

    if name == "clear":
        session.clear()
        say("Conversation cleared.")
        return
    if name == "goal":
        say(set_goal(session, argument))
        return
    try:
        done = session.compact(argument)
    except SneakyError as exc:
        say(f"Not compacted: {exc}")
        return
    say(done.describe() if done is not None else "Nothing to compact yet.")


def set_goal(session: Session, argument: str) -> str:
    """`/goal CMD`, `/goal off`, or `/goal` alone (what is set): the editor's way to set a goal, since ACP's config
    options are pickers and a check command is free text. What to tell the user."""
    from sneakycode.api.vocabulary import SneakyError

    if not argument:
        current = session.options.until
        return f"Goal: `{current}`." if current else "No goal set: /goal CMD sets one (docs/goals.md)."
    try:
        session.set_goal(None if argument == "off" else argument)
    except SneakyError as exc:
        return f"Goal not set: {exc}"
    if argument == "off":
        return "Goal dropped: requests end when the model says they are done."
    return (f"Goal set: each request runs until `{argument}` passes or a budget ends it; the files it names are "
            "read-only for the model meanwhile.")
