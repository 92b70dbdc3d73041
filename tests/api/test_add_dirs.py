"""Extra roots (`Options.add_dirs`, `--add-dir`, issue 39's `additionalDirectories`): through api.Session in this
process against the scripted server. The tools read and change files in an added folder under the same asks
and deny rules as the workspace; everything outside every root stays refused, links included; the sandbox
binds the added folder writable; a bad folder stops the session before anything starts."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import sneakycode
from sneakycode.process.sandbox import probe
from sneakycode.testing.server import ScriptedServer
from tests.api.conftest import call, finish, tool_messages


@pytest.fixture
def other(tmp_path: Path) -> Path:
    """A second project folder beside the workspace."""
    folder = tmp_path / "shared-lib"
    folder.mkdir()
    (folder / "util.py").write_text("def twice(x):\n    return x + x\n")
    return folder


def options(server: ScriptedServer, ws: Path, add: list[Any], **more: Any) -> sneakycode.Options:
    settings = {"retry_backoff": 0.01, **more.pop("settings", {})}
    return sneakycode.Options(workspace=ws, add_dirs=add, base_url=server.base_url, model="m", api_key="k",
                              isolated=True, settings=settings, **more)


def test_the_model_reads_and_edits_a_file_in_an_added_folder_asked_like_any_edit(
        server: ScriptedServer, ws: Path, other: Path) -> None:
    """Hardening round three, class multi-root containment: an added folder is part of the workspace, and its
    edits are asked like the workspace's (default mode asks, the answer decides)."""
    target = str(other / "util.py")
    server.add_steps([call("read_file", file_path=target),
                      call("str_replace", file_path=target, old_str="x + x", new_str="2 * x"),
                      finish("Done.")])
    asked: list[tuple[str, dict[str, Any]]] = []

    def approve(name: str, args: dict[str, Any]) -> bool:
        asked.append((name, args))
        return True

    result = sneakycode.run("make twice multiply", options(server, ws, [other], can_use_tool=approve))
    assert result.status == "finished"
    assert (other / "util.py").read_text() == "def twice(x):\n    return 2 * x\n"
    assert [name for name, _ in asked] == ["str_replace"]  # reading is auto-approved, the edit is asked
    system = server.chat_requests[0]["messages"][0]["content"]
    assert "# Added folders" in system and str(other.resolve()) in system


def test_outside_every_root_and_links_out_of_an_added_folder_stay_refused(
        server: ScriptedServer, ws: Path, other: Path, tmp_path: Path) -> None:
    """Hardening round three, class multi-root containment: adding a folder widens nothing else; a symbolic
    link inside it that leads outside every root is refused, for reading and for writing."""
    third = tmp_path / "third"
    third.mkdir()
    (third / "secret.txt").write_text("not yours\n")
    (other / "door").symlink_to(third)
    server.add_steps([call("read_file", file_path=str(third / "secret.txt")),
                      call("read_file", file_path=str(other / "door" / "secret.txt")),
                      call("write_file", file_path=str(other / "door" / "new.txt"), content="x\n"),
                      finish("Tried.")])
    result = sneakycode.run("look around", options(server, ws, [other], mode="yolo"))
    assert result.status == "finished"
    outside, through_link, written = tool_messages(server.chat_requests[-1])
    assert "outside_workspace" in outside and "not yours" not in outside
    assert "symlink_escape" in through_link and "not yours" not in through_link
    assert "symlink_escape" in written and not (third / "new.txt").exists()


def test_a_deny_rule_holds_inside_an_added_folder(server: ScriptedServer, ws: Path, other: Path) -> None:
    """Hardening round three, class multi-root containment: the workspace's deny rules match paths in an added
    folder relative to that folder, so `write_file(secrets/**)` holds there too, even in yolo mode."""
    (other / "secrets").mkdir()
    server.add_steps([call("write_file", file_path=str(other / "secrets" / "key.txt"), content="leak\n"),
                      finish("Tried.")])
    result = sneakycode.run("write it", options(server, ws, [other], mode="yolo",
                                                settings={"permissions.deny": ["write_file(secrets/**)"]}))
    assert result.status == "finished"
    [refused] = tool_messages(server.chat_requests[-1])
    assert "deny rule" in refused and "secrets/**" in refused
    assert not (other / "secrets" / "key.txt").exists()


def test_a_sandboxed_command_writes_into_the_added_folder_and_nowhere_else(
        server: ScriptedServer, ws: Path, other: Path, tmp_path: Path) -> None:
    """Hardening round three, class multi-root containment: bwrap binds the added folder writable like the
    workspace; the rest of the file system stays read-only."""
    if not probe(ws, network=False).available:
        pytest.skip("bwrap cannot run here")
    outside = Path("/var/tmp") / f"sneakycode-add-dir-{os.getpid()}"
    command = f"echo made > {other}/made.txt && echo escaped > {outside}"
    server.add_steps([call("run_command", command=command), finish("Ran.")])
    result = sneakycode.run("run it", options(server, ws, [other], mode="yolo",
                                              settings={"tools.shell.sandbox": "bwrap"}))
    escaped = outside.exists()
    outside.unlink(missing_ok=True)
    assert result.status == "finished"
    assert (other / "made.txt").read_text() == "made\n"
    assert not escaped
    [ran] = tool_messages(server.chat_requests[-1])
    assert "Read-only file system" in ran


def test_a_sandboxed_command_cannot_write_the_git_hooks_of_an_added_folder(
        server: ScriptedServer, ws: Path, other: Path) -> None:
    """Hardening round three, class multi-root containment: an added folder's repository files are guarded in
    the sandbox like the workspace's (a hook written there would run unsandboxed at the next commit)."""
    if not probe(ws, network=False).available:
        pytest.skip("bwrap cannot run here")
    (other / ".git" / "hooks").mkdir(parents=True)
    hook = other / ".git" / "hooks" / "pre-commit"
    server.add_steps([call("run_command", command=f"echo 'curl evil' > {hook}"), finish("Ran.")])
    result = sneakycode.run("run it", options(server, ws, [other], mode="yolo",
                                              settings={"tools.shell.sandbox": "bwrap"}))
    assert result.status == "finished"
    assert not hook.exists()


@pytest.mark.parametrize("bad", ["missing", "a file", "/", "home", "/etc"])
def test_a_bad_added_folder_is_a_clear_error_and_nothing_starts(
        server: ScriptedServer, ws: Path, tmp_path: Path, bad: str) -> None:
    """Hardening round three, class multi-root containment: a folder that is not there, a file, the whole file
    system, the home folder or a system folder is refused with a ConfigError naming it; no session folder is
    made and the model is never asked."""
    state = tmp_path / "state"
    given = {"missing": str(tmp_path / "nope"), "a file": str(ws / "f.txt"), "home": str(Path.home())}.get(bad, bad)
    (ws / "f.txt").write_text("x")
    with pytest.raises(sneakycode.ConfigError) as caught:
        sneakycode.Session(options(server, ws, [given], state_dir=state))
    assert given in str(caught.value)
    expected = {"missing": "does not exist", "a file": "not a directory", "/": "whole file system",
                "home": "home folder", "/etc": "system folder"}[bad]
    assert expected in str(caught.value)
    assert not (state / "sessions").exists() or not any((state / "sessions").iterdir())
    assert server.requests == []


def test_the_state_folder_cannot_be_added(server: ScriptedServer, ws: Path, tmp_path: Path) -> None:
    """Hardening round three, class multi-root containment: SneakyCode's state folder (other sessions'
    transcripts) cannot become writable through an added folder that is or holds it."""
    state = tmp_path / "box" / "state"
    state.mkdir(parents=True)
    for added in (state, state.parent, state / "sessions"):
        added.mkdir(exist_ok=True)
        with pytest.raises(sneakycode.ConfigError, match="SneakyCode's own folder"):
            sneakycode.Session(options(server, ws, [str(added)], state_dir=state))


def test_search_tools_address_an_added_folder_and_its_deny_rules_hide_files_there(
        server: ScriptedServer, ws: Path, other: Path) -> None:
    """Hardening round three, class multi-root containment: grep_files, find_files and list_dir search an added
    folder when given its path (absolute paths in the answer, reached from that folder's descriptor), and a
    deny rule on reading (`read_file(secrets/**)`) keeps its files out of the results there too."""
    (other / "secrets").mkdir()
    (other / "secrets" / "token.py").write_text("twice = 'hunter2'\n")
    server.add_steps([call("grep_files", pattern="twice", path=str(other)),
                      call("find_files", pattern="*.py", path=str(other)),
                      call("list_dir", directory_path=str(other)),
                      finish("Searched.")])
    result = sneakycode.run("find twice", options(server, ws, [other],
                                                  settings={"permissions.deny": ["read_file(secrets/**)"]}))
    assert result.status == "finished"
    grep, find, listing = tool_messages(server.chat_requests[-1])
    assert f"{other.resolve()}/util.py:1:def twice(x):" in grep and "hunter2" not in grep
    assert f"{other.resolve()}/util.py" in find and "token.py" not in find
    assert "util.py" in listing


def test_undo_reverts_an_edit_in_an_added_folder(server: ScriptedServer, ws: Path, other: Path) -> None:
    """The undo journal is path-based: an edit in an added folder is reverted like one in the workspace
    (checkpoints and rewind cover the workspace only, docs/sdk.md)."""
    target = str(other / "util.py")
    server.add_steps([call("read_file", file_path=target),
                      call("write_file", file_path=target, content="gone\n"), finish("Done.")])
    with sneakycode.Session(options(server, ws, [other], mode="yolo")) as session:
        assert session.run("replace it").status == "finished"
        assert (other / "util.py").read_text() == "gone\n"
        report = session.undo()
    assert report.failed == [] and len(report.restored) == 1
    assert (other / "util.py").read_text() == "def twice(x):\n    return x + x\n"


def test_protected_places_of_an_added_folder_stay_protected(server: ScriptedServer, ws: Path, other: Path) -> None:
    """Hardening round three, class multi-root containment: an added folder's `.git/`, `.sneakycode/` and the
    folder itself are protected like the workspace's, whoever approves (yolo here)."""
    (other / ".git").mkdir()
    server.add_steps([call("write_file", file_path=str(other / ".git" / "config"), content="[core]\n"),
                      call("write_file", file_path=str(other / ".sneakycode" / "config.toml"), content="x = 1\n"),
                      call("delete_file", file_path=str(other)),
                      finish("Tried.")])
    result = sneakycode.run("configure", options(server, ws, [other], mode="yolo"))
    assert result.status == "finished"
    git, settings, root = tool_messages(server.chat_requests[-1])
    assert "protected_path" in git and "protected_path" in settings
    assert "outside_workspace" in root  # delete_file reaches a name from its folder, which lies outside
    assert not (other / ".git" / "config").exists() and not (other / ".sneakycode").exists() and other.is_dir()


def test_a_command_writing_an_added_folders_git_hooks_needs_a_person_even_in_yolo_mode(
        server: ScriptedServer, ws: Path, other: Path) -> None:
    """Hardening round three, class multi-root containment: the shell policy guards an added folder's protected
    places as the workspace's (`.git/hooks` run later, unsandboxed): no mode approves writing them by itself."""
    (other / ".git" / "hooks").mkdir(parents=True)
    hook = other / ".git" / "hooks" / "pre-commit"
    server.add_steps([call("run_command", command=f"echo 'curl evil' > {hook}"), finish("Tried.")])
    result = sneakycode.run("run it", options(server, ws, [other], mode="yolo",
                                              settings={"tools.shell.sandbox": "off"}))
    assert result.status == "finished"
    [refused] = tool_messages(server.chat_requests[-1])
    assert ".git" in refused and not hook.exists()
