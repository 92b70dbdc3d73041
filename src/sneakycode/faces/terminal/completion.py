"""Tab completion at the prompt: `/NAME` at the start of the line (the built-in commands, custom commands,
skills and MCP prompts, each with its one line of help beside it) and `@PATH` anywhere (the workspace's files
and folders, hiding what .gitignore and the other ignore files hide, as the search tools do)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from sneakycode.tools.search.walk import Chain

MAX_PATH_COMPLETIONS = 200


class SlashCompleter(Completer):
    def __init__(self, entries: list[tuple[str, str]], workspace: Path | None = None) -> None:
        """`entries`: (name, help) pairs, in the order they should be offered; `workspace`: where `@PATH`
        completes (None: no path completion)."""
        self.entries = entries
        self.workspace = workspace

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        word = document.get_word_before_cursor(WORD=True)
        if word.startswith("@") and self.workspace is not None:
            yield from path_completions(self.workspace, word[1:])
            return
        if not text.startswith("/") or " " in text:
            return
        typed = text[1:]
        for name, help_text in self.entries:
            if name.startswith(typed):
                yield Completion(f"/{name}", start_position=-len(text), display_meta=help_text)


def path_completions(workspace: Path, typed: str) -> Iterable[Completion]:
    """The entries of the folder `typed` points into whose names start with what follows its last slash;
    folders end in `/` so Tab goes on into them."""
    folder_part, _, prefix = typed.rpartition("/")
    folder = (workspace / folder_part) if folder_part else workspace
    try:
        real = folder.resolve()
        real.relative_to(workspace.resolve())  # completion never lists outside the workspace
        entries = sorted(os.scandir(real), key=lambda entry: entry.name)
    except (OSError, ValueError):
        return
    chain = Chain.above(str(real))
    shown = 0
    for entry in entries:
        if entry.name == ".git" or not entry.name.startswith(prefix):
            continue
        if not prefix.startswith(".") and entry.name.startswith("."):
            continue  # dot files only when asked for, as a shell does
        is_dir = entry.is_dir()
        if chain.levels and chain.ignored(entry.path, is_dir):
            continue
        name = f"{folder_part}/{entry.name}" if folder_part else entry.name
        name += "/" if is_dir else ""
        yield Completion(f"@{name}", start_position=-len(typed) - 1, display=name)
        shown += 1
        if shown >= MAX_PATH_COMPLETIONS:
            return
