"""The undo journal and `sneakycode undo`: every tool mutation can be put back, never over someone else's work."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from sneakycode.config import load_settings
from sneakycode.session.journal import Journal
from sneakycode.session.undo import UndoReport, undo_session
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context
from tests.conftest import call, run_cli, run_main
from tests.faces.cli.test_rewind import OUTSIDE_TEXT, files_below, swapping


def undo(ctx: ToolContext, steps: int | None = None, force: bool = False) -> UndoReport:
    return undo_session(ctx.session_dir, ctx.session_id, ctx.workspace.root, steps=steps, force=force)


def read_and_replace(ctx: ToolContext, name: str, old: str, new: str) -> None:
    assert call(ctx, "read_file", file_path=name).success
    result = call(ctx, "str_replace", file_path=name, old_str=old, new_str=new)
    assert result.success, result.render()


def test_every_mutating_tool_is_journalled_before_and_after(ctx: ToolContext, ws: Path) -> None:
    (ws / "f.py").write_text("a = 1\n")
    read_and_replace(ctx, "f.py", "a = 1", "a = 2")
    assert call(ctx, "patch_apply", file_path="f.py", patch="@@ -1 +1 @@\n-a = 2\n+a = 3\n").success
    assert call(ctx, "write_file", file_path="new/g.py", content="g\n").success
    assert call(ctx, "make_dir", directory_path="empty").success
    assert call(ctx, "delete_file", file_path="f.py").success
    entries = Journal(ctx.session_dir).entries()
    assert [(e.action, e.path.name) for e in entries] == [
        ("write", "f.py"), ("write", "f.py"), ("mkdir", "new"), ("write", "g.py"), ("mkdir", "empty"),
        ("delete", "f.py"),
    ]
    assert entries[0].before.kind == "file" and entries[0].before_bytes() == b"a = 1\n"
    assert entries[0].after is not None and entries[0].after.kind == "file"
    assert entries[2].before.kind == "absent" and entries[2].after is not None and entries[2].after.kind == "dir"
    assert entries[5].after is not None and entries[5].after.kind == "absent"


def test_undo_restores_everything_newest_first(ctx: ToolContext, ws: Path) -> None:
    (ws / "f.py").write_bytes(b"a = 1\r\n")
    os.chmod(ws / "f.py", 0o754)
    (ws / "gone.txt").write_text("keep me\n")
    read_and_replace(ctx, "f.py", "a = 1", "a = 2")
    read_and_replace(ctx, "f.py", "a = 2", "a = 3")
    assert call(ctx, "write_file", file_path="pkg/sub/new.py", content="x\n").success
    assert call(ctx, "delete_file", file_path="gone.txt").success
    report = undo(ctx)
    assert report.ok and len(report.restored) == 6
    assert (ws / "f.py").read_bytes() == b"a = 1\r\n" and (ws / "f.py").stat().st_mode & 0o777 == 0o754
    assert (ws / "gone.txt").read_text() == "keep me\n"
    assert not (ws / "pkg").exists()
    assert [line.split(" (")[0].split(" as it was")[0] for line in report.restored] == [
        "recreated gone.txt", "removed pkg/sub/new.py", "removed folder pkg/sub/", "removed folder pkg/",
        "restored f.py", "restored f.py",
    ]


def test_a_second_undo_goes_further_back_instead_of_redoing(ctx: ToolContext, ws: Path) -> None:
    (ws / "f.py").write_text("v1\n")
    read_and_replace(ctx, "f.py", "v1", "v2")
    read_and_replace(ctx, "f.py", "v2", "v3")
    first = undo(ctx, steps=1)
    assert (ws / "f.py").read_text() == "v2\n" and first.remaining == 1
    second = undo(ctx, steps=1)
    assert second.ok and (ws / "f.py").read_text() == "v1\n"
    third = undo(ctx)
    assert third.lines() == [f"Nothing left to undo in session {ctx.session_id}."]
    assert (ws / "f.py").read_text() == "v1\n"


def test_edits_after_an_undo_are_undone_on_their_own(ctx: ToolContext, ws: Path) -> None:
    """/undo in the REPL runs mid-session: later edits join the same journal and undo cleanly again."""
    (ws / "f.py").write_text("v1\n")
    read_and_replace(ctx, "f.py", "v1", "v2")
    assert undo(ctx).ok
    read_and_replace(ctx, "f.py", "v1", "v3")
    assert undo(ctx).ok
    assert (ws / "f.py").read_text() == "v1\n"


def test_a_file_changed_since_the_edit_is_refused_unless_forced(ctx: ToolContext, ws: Path) -> None:
    (ws / "f.py").write_text("a = 1\n")
    (ws / "other.py").write_text("b = 1\n")
    read_and_replace(ctx, "other.py", "b = 1", "b = 2")
    read_and_replace(ctx, "f.py", "a = 1", "a = 2")
    (ws / "f.py").write_text("a = 2\n# the user's own line\n")
    refused = undo(ctx)
    assert not refused.ok and refused.restored == []
    assert any(line.startswith("f.py: its content changed after SneakyCode's change at") for line in refused.refused)
    text = "\n".join(refused.lines())
    assert "Nothing was undone" in text and "--force" in text
    assert (ws / "other.py").read_text() == "b = 2\n", "a refusal restores nothing"
    forced = undo(ctx, force=True)
    assert forced.ok
    assert (ws / "f.py").read_text() == "a = 1\n" and (ws / "other.py").read_text() == "b = 1\n"


def test_a_created_file_that_was_edited_later_is_refused(ctx: ToolContext, ws: Path) -> None:
    assert call(ctx, "write_file", file_path="new.py", content="x\n").success
    (ws / "new.py").write_text("x\nmore work by the user\n")
    report = undo(ctx)
    assert not report.ok and (ws / "new.py").exists()
    written_mode = (ws / "new.py").stat().st_mode & 0o777
    os.chmod(ws / "new.py", 0o700)
    (ws / "new.py").write_text("x\n")
    assert f"new.py: its permissions changed (from {written_mode:o} to 700)" in undo(ctx).refused[0]
    os.chmod(ws / "new.py", written_mode)
    (ws / "new.py").unlink()
    (ws / "new.py").mkdir()
    assert "new.py: became a folder (SneakyCode left a file)" in undo(ctx).refused[0]
    (ws / "new.py").rmdir()
    gone = undo(ctx)
    assert gone.ok and "new.py: already as it was before the change" in gone.restored[0]


def test_a_created_folder_that_gained_other_files_is_kept(ctx: ToolContext, ws: Path) -> None:
    assert call(ctx, "make_dir", directory_path="out").success
    (ws / "out" / "user.txt").write_text("mine\n")
    report = undo(ctx)
    assert report.ok and (ws / "out" / "user.txt").exists()
    assert "kept folder out/" in report.restored[0]


def test_a_deleted_symbolic_link_comes_back_as_a_link(ctx: ToolContext, ws: Path) -> None:
    (ws / "target.txt").write_text("t\n")
    os.symlink("target.txt", ws / "link.txt")
    assert call(ctx, "delete_file", file_path="link.txt").success
    assert undo(ctx).ok
    assert os.readlink(ws / "link.txt") == "target.txt"


def test_undo_never_writes_through_a_folder_that_now_leads_outside(ctx: ToolContext, ws: Path, tmp_path: Path) -> None:
    (ws / "pkg").mkdir()
    (ws / "pkg" / "f.py").write_text("a\n")
    read_and_replace(ctx, "pkg/f.py", "a", "b")
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "pkg" / "f.py").unlink()
    (ws / "pkg").rmdir()
    os.symlink(outside, ws / "pkg")
    report = undo(ctx, force=True)
    assert not report.ok and "outside the workspace" in report.failed[0]
    assert list(outside.iterdir()) == []


# ---- the command -------------------------------------------------------------------------------------


def test_cli_undo_restores_the_bytes_of_a_real_edit(ws: Path) -> None:
    original = b"def greet():\r\n    return 'hi'\r\n"
    (ws / "app.py").write_bytes(original)
    edited = run_main(
        "tool", "read_file", json.dumps({"file_path": "app.py"}),
        "str_replace", json.dumps({"file_path": "app.py", "old_str": "return 'hi'", "new_str": "return 'hello'"}),
        "--workspace", str(ws), cwd=ws,
    )
    assert edited.code == 0, edited.stdout + edited.stderr
    assert (ws / "app.py").read_bytes() == b"def greet():\r\n    return 'hello'\r\n"
    undone = run_main("undo", "--workspace", str(ws), cwd=ws)
    assert undone.code == 0, undone.stderr
    assert "restored app.py" in undone.stdout and "Undid 1 change(s)" in undone.stdout
    assert (ws / "app.py").read_bytes() == original
    again = run_main("undo", "--workspace", str(ws), cwd=ws)
    assert again.code == 0 and "Nothing left to undo" in again.stdout


def test_cli_undo_refuses_with_the_reason_and_forces(ws: Path) -> None:
    (ws / "app.py").write_text("x = 1\n")
    run_main("tool", "read_file", '{"file_path": "app.py"}', "str_replace",
             '{"file_path": "app.py", "old_str": "x = 1", "new_str": "x = 2"}', cwd=ws)
    (ws / "app.py").write_text("x = 2\ny = 3\n")
    refused = run_main("undo", cwd=ws)
    assert refused.code == 1
    assert "app.py: its content changed after SneakyCode's change" in refused.stderr
    assert (ws / "app.py").read_text() == "x = 2\ny = 3\n"
    forced = run_main("undo", "--force", cwd=ws)
    assert forced.code == 0 and (ws / "app.py").read_text() == "x = 1\n"


def test_cli_undo_steps_session_and_usage_errors(ws: Path, tmp_path: Path) -> None:
    (ws / "a.txt").write_text("1\n")
    first = open_tool_context(load_settings(ws))
    read_and_replace(first, "a.txt", "1", "2")
    read_and_replace(first, "a.txt", "2", "3")
    later = open_tool_context(load_settings(ws))
    assert call(later, "write_file", file_path="b.txt", content="b\n").success
    by_id = run_main("undo", "--session", first.session_id, "--steps", "1", cwd=ws)
    assert by_id.code == 0 and (ws / "a.txt").read_text() == "2\n" and (ws / "b.txt").exists()
    other = run_main("undo", "--session", later.session_id, cwd=ws)
    assert other.code == 0 and not (ws / "b.txt").exists() and (ws / "a.txt").read_text() == "2\n"
    assert run_main("undo", "--steps", "0", cwd=ws).code == 2
    assert run_main("undo", "--session", "no-such-session", cwd=ws).code == 1
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    wrong_place = run_main("undo", "--session", first.session_id, "--workspace", str(elsewhere), cwd=ws)
    assert wrong_place.code == 1 and "run it with --workspace" in wrong_place.stderr
    nothing = run_main("undo", cwd=elsewhere)
    assert nothing.code == 0 and "Nothing to undo" in nothing.stdout


def test_cli_undo_never_writes_or_removes_outside_while_a_folder_is_swapped(ws: Path, tmp_path: Path) -> None:
    """Hardening round two, class 2 (undo is rewind's sibling): `sneakycode undo --force` checked that a
    path lay inside, then wrote, linked or removed it by path; sub/ swapped for a link to outside in between
    got the journal's files written and the tool's files removed there."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "sub").mkdir()
    argv: list[str] = []
    for index in range(30):
        for name in (f"gone{index}.txt", f"made{index}.txt", f"dir{index}", f"edited{index}.txt"):
            (outside / name).write_bytes(OUTSIDE_TEXT)
        (ws / "sub" / f"gone{index}.txt").write_text("inside\n")
        (ws / "sub" / f"edited{index}.txt").write_text("inside\n")
        argv += ["delete_file", json.dumps({"file_path": f"sub/gone{index}.txt"})]
        argv += ["write_file", json.dumps({"file_path": f"sub/made{index}.txt", "content": "made\n"})]
        argv += ["make_dir", json.dumps({"directory_path": f"sub/dir{index}"})]
        argv += ["read_file", json.dumps({"file_path": f"sub/edited{index}.txt"})]
        argv += ["write_file", json.dumps({"file_path": f"sub/edited{index}.txt", "content": "edited\n"})]
    assert run_main("tool", *argv, "--workspace", str(ws)).code == 0
    outside_before = files_below(outside)

    rounds = 0
    with swapping(ws, outside):
        deadline = time.monotonic() + 8.0
        while rounds < 2 or time.monotonic() < deadline:
            # A process of its own: in this one, the undo and the swapping thread would take turns on the GIL.
            result = run_cli("undo", "--force", "--steps", "10", "--workspace", str(ws))
            rounds += 1
            assert "Traceback" not in result.stderr + result.stdout
            assert files_below(outside) == outside_before, f"round {rounds} reached outside"
            if "Nothing left to undo" in result.stdout:
                break
    assert files_below(outside) == outside_before
    print(f"{rounds} undo runs raced")
