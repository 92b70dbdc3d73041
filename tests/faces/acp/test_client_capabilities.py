"""What the editor offers besides the conversation: its files (reads see unsaved buffers, edits are handed to
it after our own anchored write) and its terminals (commands stay under SneakyCode's process control; their
progress streams into the tool call). Used when offered, and not otherwise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp import schema, text_block

from sneakycode.testing.server import ScriptedServer
from tests.faces.acp.conftest import Editor, EditorWithFiles, call, finish, initialized, run, run_cli_in, running_agent


def session(editor: Editor, server: ScriptedServer, ws: Path, *prompts: str, fs: bool = False,
            terminal: bool = False) -> list[Any]:
    async def go() -> list[Any]:
        async with running_agent(editor, server) as (conn, _process):
            await initialized(conn, fs=fs, terminal=terminal)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            return [await conn.prompt(session_id=new.session_id, prompt=[text_block(p)]) for p in prompts]

    answers: list[Any] = run(go)
    return answers


def tool_messages(server: ScriptedServer) -> list[str]:
    return [m["content"] for m in server.requests[-1].body["messages"] if m["role"] == "tool"]


def methods(editor: Editor) -> set[str]:
    return {m["method"] for m in editor.wire if m["direction"] == "incoming" and "method" in m}


def test_reads_see_the_unsaved_buffer_and_edits_reach_the_editor_after_our_own_write(
        ws: Path, server: ScriptedServer) -> None:
    source = ws / "config.py"
    source.write_text("PORT = 80\n")
    server.add_steps([
        call("read_file", file_path="config.py"),
        call("str_replace", file_path="config.py", old_str="PORT = 8080", new_str="PORT = 9090"),
        call("str_replace", file_path="config.py", old_str="PORT = 9090", new_str="PORT = 9091"),
        finish("Moved the port."),
    ])
    editor = EditorWithFiles(["allow_always"])
    editor.buffers[str(source.resolve())] = "PORT = 8080\n"  # typed in the editor, not saved
    session(editor, server, ws, "change the port", fs=True)

    told = tool_messages(server)
    assert "PORT = 8080" in told[0]  # the model read what the user sees
    assert "Error" not in told[1] and "Error" not in told[2]  # edited on the buffer's text, then again: not stale
    assert source.read_text() == "PORT = 9091\n"
    assert editor.written[-1] == (str(source.resolve()), "PORT = 9091\n")
    assert editor.buffers[str(source.resolve())] == "PORT = 9091\n"
    assert {"fs/read_text_file", "fs/write_text_file"} <= methods(editor)
    # The approval showed the edit against the buffer, as saying yes would write it.
    [asked] = editor.asked
    [diff] = asked.tool_call.content or []
    assert isinstance(diff, schema.FileEditToolCallContent) and diff.old_text == "PORT = 8080\n"
    # The undo journal recorded our write: undo puts the disk back as it was before the session.
    undone = run_cli_in(ws, "undo", "--force")
    assert undone.code == 0, undone.stderr
    assert source.read_text() == "PORT = 80\n"


def test_a_buffer_changed_after_the_read_makes_the_edit_stale_instead_of_overwriting_it(
        ws: Path, server: ScriptedServer) -> None:
    source = ws / "notes.md"
    source.write_text("draft\n")
    server.add_steps([
        call("read_file", file_path="notes.md"),
        call("write_file", file_path="notes.md", content="model's version\n"),
        finish("Tried."),
    ])

    class TypingEditor(EditorWithFiles):
        async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
            await super().session_update(session_id, update, **kwargs)
            done = isinstance(update, schema.ToolCallProgress) and update.status == "completed"
            if done and update.tool_call_id == "call_0_0":  # the user types while the model thinks
                self.buffers[str(source.resolve())] = "draft, and the user's new line\n"

    editor = TypingEditor(["allow_once"])
    session(editor, server, ws, "rewrite notes", fs=True)
    told = tool_messages(server)
    assert "stale_read" in told[1] or "changed" in told[1]
    assert source.read_text() == "draft\n" and editor.written == []


def test_files_are_not_asked_of_a_client_that_does_not_offer_them(ws: Path, server: ScriptedServer) -> None:
    (ws / "a.txt").write_text("disk\n")
    server.add_steps([call("read_file", file_path="a.txt"),
                      call("write_file", file_path="a.txt", content="new\n"), finish("Done.")])
    editor = EditorWithFiles(["allow_once"])
    editor.buffers[str((ws / "a.txt").resolve())] = "buffer\n"
    session(editor, server, ws, "go", fs=False)
    assert "disk" in tool_messages(server)[0]
    assert editor.read_paths == [] and editor.written == []
    assert not {"fs/read_text_file", "fs/write_text_file"} & methods(editor)
    assert (ws / "a.txt").read_text() == "new\n"


def test_commands_stay_under_our_process_control_when_terminals_are_offered_and_show_their_progress(
        ws: Path, server: ScriptedServer) -> None:
    command = 'echo "key=${OPENAI_API_KEY:-none}"; sleep 4; echo done'
    server.add_steps([call("run_command", command=command), finish("Ran it.")])
    editor = EditorWithFiles(["allow_once"])
    session(editor, server, ws, "run it", terminal=True)
    assert editor.terminals == [] and "terminal/create" not in methods(editor)
    output = tool_messages(server)[0]
    assert "key=none" in output and "done" in output  # the model key never reached the command
    beats = [u for u in editor.of(schema.ToolCallProgress) if u.status == "in_progress" and u.content]
    assert any("key=none" in c.content.text for u in beats for c in u.content or [])
