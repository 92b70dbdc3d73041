"""Unit tests of the input side's logic: the status line, Shift+Tab's cycle, @path completion (ignore rules
respected), @mentions, and the Markdown export."""

from __future__ import annotations

import subprocess
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from sneakycode.api.history import conversation_markdown
from sneakycode.api.mentions import expand_mentions, mentioned_paths, path_completions
from sneakycode.api.vocabulary import Usage
from sneakycode.config import PermissionMode
from sneakycode.faces.terminal.completion import SlashCompleter
from sneakycode.faces.terminal.keys import next_mode
from sneakycode.faces.terminal.status import status_text
from sneakycode.permissions.gate import Gate
from sneakycode.tools.base import ToolContext


def usage(model: str, mode: str, context: int, window: int, *, prompt: int = 0, completion: int = 0,
          cached: int | None = None, prefill: float | None = None, cost: float | None = None,
          jobs: tuple[tuple[int, str], ...] = ()) -> Usage:
    """A session's usage snapshot, as `Session.usage()` gives the status line."""
    return Usage(model=model, mode=mode, context_tokens=context, context_window=window, prompt_tokens=prompt,
                 completion_tokens=completion, cached_tokens=cached or 0, cache_reported=cached is not None,
                 prefill_seconds=prefill, cost=cost, price_source=None, running_jobs=jobs, jobs_started=len(jobs))


def test_status_line_names_model_mode_context_tokens_cost_and_jobs() -> None:
    facts = usage("gpt-x", "plan", 8_192, 32_768, prompt=12_000, completion=345, cost=0.01234,
                  jobs=((2, "npm run dev"),))
    expected = " gpt-x · plan · context 25% of 32k · 12,345 tokens · $0.0123 · jobs: [2] npm run dev (/jobs)"
    assert status_text(facts) == expected
    assert "$" not in status_text(usage("m", "default", 0, 8_192))


def test_shift_tab_cycles_default_auto_edit_plan_and_leaves_yolo_for_default() -> None:
    assert [next_mode(m) for m in (PermissionMode.DEFAULT, PermissionMode.AUTO_EDIT, PermissionMode.PLAN)] == [
        PermissionMode.AUTO_EDIT, PermissionMode.PLAN, PermissionMode.DEFAULT]
    assert next_mode(PermissionMode.YOLO) is PermissionMode.DEFAULT


def _complete(ws: Path, text: str) -> list[str]:
    completer = SlashCompleter([("help", "show"), ("review", "Review a file")],
                               lambda typed: path_completions(ws, typed))
    return [c.text for c in completer.get_completions(Document(text), CompleteEvent(completion_requested=True))]


def test_at_paths_complete_folders_first_level_and_respect_gitignore(ws: Path) -> None:
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (ws / ".gitignore").write_text("build/\n*.log\n")
    (ws / "src").mkdir()
    (ws / "src" / "main.py").write_text("")
    (ws / "build").mkdir()
    (ws / "setup.log").write_text("")
    (ws / "setup.py").write_text("")
    assert _complete(ws, "look at @s") == ["@setup.py", "@src/"]
    assert _complete(ws, "look at @src/m") == ["@src/main.py"]
    assert _complete(ws, "@b") == []
    assert _complete(ws, "@../") == []  # never outside the workspace
    assert _complete(ws, "/re") == ["/review"]


def test_mentions_attach_files_numbered_and_folders_as_listings(ctx: ToolContext) -> None:
    root = ctx.workspace.root
    (root / "pkg").mkdir()
    (root / "pkg" / "a.py").write_text("print(1)\n")
    assert mentioned_paths("see @pkg/a.py, and @pkg/ and @nothing.", root) == ["pkg/a.py", "pkg/"]
    found = expand_mentions("see @pkg/a.py, and @pkg/", Gate(ctx))
    assert found.names == ["pkg/a.py", "pkg/"]
    assert "1\tprint(1)" in found.blocks[0] and "a.py" in found.blocks[1]
    assert ctx.workspace.ledger.has_read((root / "pkg" / "a.py").resolve())


def test_export_renders_requests_replies_calls_and_results_without_the_system_prompt() -> None:
    history = [
        {"role": "system", "content": "secret system prompt"},
        {"role": "user", "content": "fix it"},
        {"role": "assistant", "content": "Looking.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "grep_files", "arguments": '{"pattern":"x"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "a.py:1: ```x```"},
    ]
    text = conversation_markdown(history, "Session s1")
    assert "secret" not in text
    assert text.startswith("# Session s1\n\n## User\n\nfix it\n\n## Assistant\n\nLooking.")
    assert '```json\n{\n  "pattern": "x"\n}\n```' in text
    assert "**Result** of `grep_files`\n\n````\na.py:1: ```x```\n````" in text
