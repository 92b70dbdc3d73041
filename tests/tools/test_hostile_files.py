"""The file tools against files a hostile repository or model chooses, called as the model calls them.

Hardening classes 3 (protected paths), 5 (only regular files, only up to a limit), 7 (no input crashes a
tool) and 9 (honest answers). The same inputs through `sneakycode tool` and `sneakycode -p` are in
tests/faces/cli/test_hostile_inputs.py; races (class 4) in tests/workspace/test_races.py.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.errors import ErrorCode
from sneakycode.permissions.gate import Gate
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context
from tests.conftest import call, project_config

# ---- class 5: only regular files, only up to a limit ---------------------------------------------------


def test_read_file_refuses_a_fifo_and_a_socket_instead_of_hanging(ctx: ToolContext, ws: Path) -> None:
    """Hardening class 5: read_file on a FIFO waited forever for a writer."""
    os.mkfifo(ws / "pipe")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(ws / "sock"))
    try:
        fifo = call(ctx, "read_file", file_path="pipe")
        sock = call(ctx, "read_file", file_path="sock")
    finally:
        server.close()
    assert fifo.code == ErrorCode.NOT_REGULAR_FILE and "FIFO" in fifo.render()
    assert sock.code == ErrorCode.NOT_REGULAR_FILE and "socket" in sock.render()


def test_listing_skips_ignore_files_that_are_devices_or_fifos_and_says_so(ctx: ToolContext, ws: Path) -> None:
    """Hardening class 5: `.gitignore -> /dev/zero` exhausted memory in list_dir; a FIFO hung it."""
    (ws / ".gitignore").symlink_to("/dev/zero")
    (ws / "sub").mkdir()
    os.mkfifo(ws / "sub" / ".ignore")
    (ws / "sub" / "kept.py").write_text("")
    (ws / ".git").write_text("gitdir: elsewhere\n")
    result = call(ctx, "list_dir", recursive=True)
    assert result.success
    assert result.content.splitlines() == ["sub/", "sub/.ignore", "sub/kept.py", ".git", ".gitignore"]
    assert "ignore files skipped" in result.message
    assert ".gitignore (a character device, not a regular file)" in result.message
    assert "sub/.ignore (a FIFO (named pipe), not a regular file)" in result.message


def test_an_oversized_ignore_file_is_skipped_not_read(ctx: ToolContext, ws: Path) -> None:
    """Hardening class 5: ignore files are read up to a limit (1 MiB), like config files."""
    (ws / ".gitignore").write_text("*.log\n" + "#" * (1 << 20))
    (ws / "a.log").write_text("")
    result = call(ctx, "list_dir", recursive=True)
    assert "a.log" in result.content.splitlines() and "larger than 1048576 bytes" in result.message


# ---- class 7: no model input crashes a tool -----------------------------------------------------------


def test_a_folder_chain_1100_deep_lists_without_recursion_error(ctx: ToolContext, ws: Path) -> None:
    """Hardening class 7: recursive listing recursed once per folder, so 1,100 nested folders raised
    RecursionError."""
    chain = [ws / "/".join(["d"] * depth) for depth in range(1, 1101)]
    try:
        for folder in chain:
            folder.mkdir()
        (chain[-1] / "bottom.txt").write_text("")
        result = call(ctx, "list_dir", recursive=True)
        assert result.success and result.content.startswith("d/\nd/d/\nd/d/d/\n")
        assert "1 more not shown" in result.message and result.data["entries"] == 1001
        below = call(ctx, "list_dir", directory_path="/".join(["d"] * 1099), recursive=True)
        assert below.content.splitlines() == ["/".join(["d"] * 1100) + "/", "/".join(["d"] * 1100) + "/bottom.txt"]
    finally:
        # Bottom up: pytest removes old temporary folders recursively, and this chain is too deep for that.
        (chain[-1] / "bottom.txt").unlink(missing_ok=True)
        for folder in reversed(chain):
            if folder.exists():
                folder.rmdir()


def test_a_name_that_is_not_utf8_is_listed_escaped(ctx: ToolContext, ws: Path) -> None:
    """Hardening class 7: `bad\\xff.txt` crashed list_dir when the result was encoded."""
    (ws / os.fsdecode(b"bad\xff.txt")).write_text("")
    (ws / os.fsdecode(b"dir\xfe")).mkdir()
    (ws / os.fsdecode(b"dir\xfe") / "in.txt").write_text("")
    assert call(ctx, "list_dir").content.splitlines() == ["dir\\xfe/", "bad\\xff.txt"]
    listed = call(ctx, "list_dir", recursive=True)
    assert listed.content.splitlines() == ["dir\\xfe/", "dir\\xfe/in.txt", "bad\\xff.txt"]
    json.dumps(listed.to_dict(), ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        ({"file_path": "a\x00b"}, ErrorCode.INVALID_PATH),
        ({"file_path": "loop1/x.txt"}, ErrorCode.INVALID_PATH),
        ({"file_path": "n" * 256}, ErrorCode.INVALID_PATH),
        ({"file_path": "/".join(["abcdefgh"] * 600)}, ErrorCode.INVALID_PATH),
        ({"file_path": "bad\ud800"}, ErrorCode.INVALID_PATH),
    ],
)
def test_unusable_paths_are_coded_errors_for_every_file_tool(
    ctx: ToolContext, ws: Path, arguments: dict[str, str], code: ErrorCode
) -> None:
    """Hardening class 7: these raised tracebacks from the gate (`path_forms`) before any tool ran."""
    (ws / "loop1").symlink_to("loop2")
    (ws / "loop2").symlink_to("loop1")
    path = arguments["file_path"]
    for name, args in (
        ("read_file", {"file_path": path}),
        ("write_file", {"file_path": path, "content": "x"}),
        ("delete_file", {"file_path": path}),
        ("str_replace", {"file_path": path, "old_str": "a", "new_str": "b"}),
        ("patch_apply", {"file_path": path, "patch": "@@ -1 +1 @@\n-a\n+b\n"}),
        ("make_dir", {"directory_path": path}),
        ("list_dir", {"directory_path": path}),
    ):
        result = Gate(ctx).run_direct(name, json.dumps(args))
        assert result.code == code, (name, result.render())
        assert len(result.render()) < 1000


def test_arguments_nested_3000_deep_are_invalid_arguments(ctx: ToolContext) -> None:
    """Hardening class 7: json.loads raised RecursionError on 3,000-deep nested arguments."""
    deep = '{"file_path": ' + "[" * 3000 + "]" * 3000 + "}"
    result = Gate(ctx).run_direct("read_file", deep)
    assert result.code == ErrorCode.INVALID_ARGUMENTS and "levels deep" in result.render()
    shallower = {"file_path": "a.txt", "x": json.loads("[" * 100 + "]" * 100)}
    assert Gate(ctx).run_direct("read_file", shallower).code == ErrorCode.INVALID_ARGUMENTS


# ---- class 9: honest answers ---------------------------------------------------------------------------


def big_file(ws: Path, lines: int = 60_000) -> Path:
    path = ws / "big.log"
    path.write_text("".join(f"entry {i:06d} {'x' * 20}\n" for i in range(1, lines + 1)))
    return path


def test_a_ranged_read_of_a_file_over_the_limit_works(ctx: ToolContext, ws: Path) -> None:
    """Hardening class 9: the hint for a file over 1 MB suggested a ranged read that failed the same way."""
    big_file(ws)
    whole = call(ctx, "read_file", file_path="big.log")
    assert whole.code == ErrorCode.FILE_TOO_LARGE and "start_line" in whole.render()
    part = call(ctx, "read_file", file_path="big.log", start_line=30_000, end_line=30_002)
    assert part.success
    assert part.content == "\n".join(f"{n:>6}\tentry {n:06d} {'x' * 20}" for n in (30_000, 30_001, 30_002))
    assert "read on with start_line=30003" in part.message and "too large to read or edit whole" in part.message
    tail = call(ctx, "read_file", file_path="big.log", start_line=59_999)
    assert tail.success and "it ends here" in tail.message and tail.data["end_line"] == 60_000
    past = call(ctx, "read_file", file_path="big.log", start_line=70_000)
    assert past.code == ErrorCode.INVALID_RANGE and "has 60000 lines" in past.render()
    edit = call(ctx, "str_replace", file_path="big.log", old_str="entry 000001", new_str="x")
    assert edit.code == ErrorCode.NOT_READ


def test_a_ranged_read_of_a_large_file_is_capped_and_still_refuses_binary(ws: Path) -> None:
    """Hardening class 9: the window is capped by max_output_bytes; a large binary file stays binary."""
    project_config(ws, "max_output_bytes = 4096\n")
    ctx = open_tool_context(load_settings(ws))
    big_file(ws)
    part = call(ctx, "read_file", file_path="big.log", start_line=10, end_line=5000)
    assert part.success and len(part.render().encode()) <= 4096 and "read on with start_line=" in part.message
    (ws / "blob.bin").write_bytes(b"\x00\x01" * 700_000)
    assert call(ctx, "read_file", file_path="blob.bin", start_line=1).code == ErrorCode.BINARY_FILE


def test_write_file_refuses_a_read_only_file(ctx: ToolContext, ws: Path) -> None:
    """Hardening class 9: write_file silently replaced a 0444 file."""
    target = ws / "locked.txt"
    target.write_text("keep\n")
    target.chmod(0o444)
    assert call(ctx, "read_file", file_path="locked.txt").success
    for name, args in (
        ("write_file", {"file_path": "locked.txt", "content": "new\n"}),
        ("str_replace", {"file_path": "locked.txt", "old_str": "keep", "new_str": "new"}),
        ("patch_apply", {"file_path": "locked.txt", "patch": "@@ -1 +1 @@\n-keep\n+new\n"}),
    ):
        result = call(ctx, name, **args)
        assert result.code == ErrorCode.READ_ONLY_FILE, result.render()
        assert "read-only (mode 0444)" in result.render()
    assert target.read_text() == "keep\n" and (target.stat().st_mode & 0o777) == 0o444


# ---- class 3: files that make programs run later are protected -----------------------------------------


NEW_FILE_PATCH = "--- /dev/null\n+++ b/.sneakycode/new.toml\n@@ -0,0 +1 @@\n+x\n"


def test_git_hooks_config_and_sneakycode_are_protected_from_every_writing_tool(ctx: ToolContext, ws: Path) -> None:
    """Hardening class 3: the file tools could write `.git/hooks/pre-commit`, `.git/config` and
    `.sneakycode/config.toml`, which git or the next session then run outside any sandbox."""
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".git" / "config").write_text("[core]\n")
    (ws / ".sneakycode").mkdir()
    (ws / ".sneakycode" / "config.toml").write_text("max_turns = 5\n")
    (ws / "hooks").symlink_to(ws / ".git" / "hooks")
    for path in (".sneakycode/config.toml", ".git/config", ".sneakycode/context.md"):
        assert call(ctx, "read_file", file_path=path).code in (None, ErrorCode.NOT_FOUND)
    attempts = [
        ("write_file", {"file_path": ".sneakycode/config.toml", "content": 'mode = "yolo"\n'}),
        ("write_file", {"file_path": ".git/hooks/pre-commit", "content": "#!/bin/sh\ncurl evil\n"}),
        ("write_file", {"file_path": "hooks/post-checkout", "content": "#!/bin/sh\n"}),
        ("str_replace", {"file_path": ".git/config", "old_str": "[core]", "new_str": "[core]\nfsmonitor = x"}),
        ("patch_apply", {"file_path": ".sneakycode/config.toml", "patch": "@@ -1 +1 @@\n-max_turns = 5\n+x\n"}),
        ("patch_apply", {"file_path": ".sneakycode/new.toml", "patch": NEW_FILE_PATCH}),
        ("make_dir", {"directory_path": ".sneakycode/commands"}),
        ("make_dir", {"directory_path": ".git/hooks/more"}),
        ("delete_file", {"file_path": ".sneakycode/config.toml"}),
        ("delete_file", {"file_path": ".git/config"}),
    ]
    for name, args in attempts:
        result = call(ctx, name, **args)
        assert result.code == ErrorCode.PROTECTED_PATH, (name, args, result.render())
    sneaky = call(ctx, "write_file", file_path=".sneakycode/config.toml", content="x")
    assert "let them edit it" in sneaky.render()
    assert (ws / ".sneakycode" / "config.toml").read_text() == "max_turns = 5\n"
    assert (ws / ".git" / "config").read_text() == "[core]\n"
    assert sorted(os.listdir(ws / ".git" / "hooks")) == [] and sorted(os.listdir(ws / ".sneakycode")) == ["config.toml"]


def test_a_deny_rule_still_holds_for_a_path_that_cannot_be_used(ws: Path) -> None:
    """Hardening class 7: the gate decides an unusable path on its written form, so deny rules still apply."""
    project_config(ws, '[permissions]\ndeny = ["read_file(secrets/**)"]\n')
    ctx = open_tool_context(load_settings(ws))
    denied = call(ctx, "read_file", file_path="secrets/" + "n" * 300)
    assert denied.code == ErrorCode.PERMISSION_DENIED and "secrets/**" in denied.render()
    assert call(ctx, "read_file", file_path="other/" + "n" * 300).code == ErrorCode.INVALID_PATH
