"""Hardening class 4: no race reaches outside the workspace.

A thread swaps the folder `sub/` for a symbolic link to a folder outside the workspace, and back, as fast as
it can, while the file tools run on `sub/...` many times: in process, through `sneakycode tool` and through
the agent. Whatever each call answers (done, or a coded error), nothing outside is ever written, replaced
or deleted, and no outside text is ever shown.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from sneakycode.agent.loop import Agent
from sneakycode.agent.protocol import AssistantTurn, ToolCall, Usage
from sneakycode.agent.roles import Binding, BoundModel
from sneakycode.agent.setup import Calls, Conversation, RunConfig
from sneakycode.errors import ErrorCode
from sneakycode.testing.scripted_model import ScriptedModel
from sneakycode.tools.base import ToolContext, ToolResult
from tests.conftest import call, run_cli

OUTSIDE_TEXT = "OUTSIDE SECRET\n"
ROUNDS = 150
TIME_LIMIT = 20.0  # seconds per test at most, however slow the machine: the rounds stop early then
# The answers a call may give while its folder is being swapped: done, or refused with one of these.
RACE_CODES = {
    ErrorCode.PATH_CHANGED,
    ErrorCode.SYMLINK_ESCAPE,
    ErrorCode.NOT_FOUND,
    ErrorCode.NOT_READ,
    ErrorCode.STALE_READ,
    ErrorCode.NOT_A_DIRECTORY,
    ErrorCode.NO_MATCH,
    ErrorCode.PATCH_FAILED,
    ErrorCode.IO_ERROR,
    ErrorCode.INVALID_PATH,
}


@dataclass
class Scene:
    ws: Path
    outside: Path
    sub_fd: int  # the real sub/ folder, wherever the swapping has moved it
    codes: set[str] = field(default_factory=set)

    def outside_untouched(self) -> None:
        assert sorted(os.listdir(self.outside)) == ["f.txt", "keep.txt"]
        assert (self.outside / "f.txt").read_text() == OUTSIDE_TEXT
        assert (self.outside / "keep.txt").read_text() == OUTSIDE_TEXT

    def put_inside(self, name: str, text: str) -> None:
        """Create a file in the real sub/ folder, wherever it is right now."""
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644, dir_fd=self.sub_fd)
        with os.fdopen(fd, "w") as fh:
            fh.write(text)

    def check(self, result: ToolResult) -> None:
        assert result.success or result.code in RACE_CODES, result.render()
        assert "OUTSIDE SECRET" not in result.render()
        if not result.success:
            self.codes.add(str(result.code))


@pytest.fixture
def scene(ws: Path, tmp_path: Path) -> Iterator[Scene]:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text(OUTSIDE_TEXT)
    (outside / "keep.txt").write_text(OUTSIDE_TEXT)
    (ws / "sub").mkdir()
    (ws / "sub" / "f.txt").write_text("inside\n")
    (ws / "sub" / "keep.txt").write_text("inside\n")
    sub_fd = os.open(ws / "sub", os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield Scene(ws, outside, sub_fd)
    finally:
        os.close(sub_fd)


# The swapping runs in its own process, so it races the tools in parallel rather than taking turns with
# them under the GIL.
SWAPPER = """
import os, sys, time
sub, aside, link = sys.argv[1:4]
strays = 0
print("swapping", flush=True)
while True:
    try:
        os.rename(sub, aside)
        try:
            os.rename(link, sub)
            time.sleep(0.0005)
            os.rename(sub, link)
        except OSError:
            pass
        while True:
            try:
                os.rename(aside, sub)
                break
            except OSError:
                strays += 1  # a tool created sub/ while it was missing: move that one out of the way
                os.rename(sub, f"{sub}.stray{strays}")
    except OSError:
        pass
"""


@contextmanager
def swapping(scene: Scene) -> Iterator[None]:
    """Swap sub/ for a link to outside/ and back in a loop until the block ends."""
    sub, aside, link = scene.ws / "sub", scene.ws / ".aside", scene.ws / ".link"
    link.symlink_to(scene.outside)
    proc = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(sub), str(aside), str(link)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "swapping"
        yield
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close() if proc.stdout else None


def journal_has_no_outside_text(ctx: ToolContext) -> None:
    """The undo journal records what the tool acted on, looked up in the folder it reached: never outside
    bytes, which undo would otherwise copy into the workspace."""
    for saved in (ctx.session_dir / "journal").glob("*.bin"):
        assert b"OUTSIDE SECRET" not in saved.read_bytes(), saved


def rounds() -> Iterator[int]:
    deadline = time.monotonic() + TIME_LIMIT
    for index in range(ROUNDS):
        if time.monotonic() > deadline:
            return
        yield index


def test_write_file_never_writes_outside_while_a_folder_is_swapped(scene: Scene, ctx: ToolContext) -> None:
    """Hardening class 4: write_file wrote outside when sub/ became a link to outside mid-call."""
    with swapping(scene):
        for index in rounds():
            scene.check(call(ctx, "write_file", file_path="sub/f.txt", content=f"mine {index}\n"))
            scene.check(call(ctx, "write_file", file_path=f"sub/new{index}.txt", content="new\n"))
            scene.check(call(ctx, "write_file", file_path=f"sub/deep{index}/x.txt", content="new\n"))
            scene.check(call(ctx, "read_file", file_path="sub/f.txt"))
    scene.outside_untouched()
    journal_has_no_outside_text(ctx)


def test_delete_file_never_deletes_outside_while_a_folder_is_swapped(scene: Scene, ctx: ToolContext) -> None:
    """Hardening class 4: delete_file deleted outside when sub/ became a link to outside mid-call."""
    with swapping(scene):
        for _ in rounds():
            scene.put_inside("f.txt", "inside\n")
            scene.check(call(ctx, "delete_file", file_path="sub/f.txt"))
            scene.check(call(ctx, "delete_file", file_path="sub/keep.txt"))
            scene.put_inside("keep.txt", "inside\n")
    scene.outside_untouched()
    journal_has_no_outside_text(ctx)


def test_make_dir_never_creates_outside_while_a_folder_is_swapped(scene: Scene, ctx: ToolContext) -> None:
    """Hardening class 4: make_dir created folders outside when sub/ became a link to outside mid-call."""
    with swapping(scene):
        for index in rounds():
            scene.check(call(ctx, "make_dir", directory_path=f"sub/made{index}/inner"))
    scene.outside_untouched()


def test_edits_never_write_outside_while_a_folder_is_swapped(scene: Scene, ctx: ToolContext) -> None:
    """Hardening class 4: str_replace and patch_apply (through Workspace.write_text) wrote outside."""
    with swapping(scene):
        for index in rounds():
            scene.put_inside("f.txt", "inside\n")
            scene.check(call(ctx, "read_file", file_path="sub/f.txt"))
            scene.check(call(ctx, "str_replace", file_path="sub/f.txt", old_str="inside", new_str=f"edit {index}"))
            scene.put_inside("g.txt", "one\ntwo\n")
            scene.check(call(ctx, "read_file", file_path="sub/g.txt"))
            patch = "@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"
            scene.check(call(ctx, "patch_apply", file_path="sub/g.txt", patch=patch))
    scene.outside_untouched()
    journal_has_no_outside_text(ctx)


def test_sneakycode_tool_never_reaches_outside_while_a_folder_is_swapped(scene: Scene) -> None:
    """Hardening class 4, through `sneakycode tool`: many writes and deletes in one run, while swapping."""
    argv: list[str] = []
    for index in range(60):
        argv += ["write_file", json.dumps({"file_path": f"sub/cli{index}.txt", "content": "x\n"})]
        argv += ["delete_file", json.dumps({"file_path": "sub/keep.txt"})]
        argv += ["make_dir", json.dumps({"directory_path": f"sub/dir{index}"})]
    with swapping(scene):
        result = run_cli("tool", *argv, "--json", "--workspace", str(scene.ws))
    assert "Traceback" not in result.stderr
    for line in result.stdout.splitlines():
        row = json.loads(line)
        assert row["success"] or row["code"] in RACE_CODES, row
    scene.outside_untouched()


def test_the_agent_never_reaches_outside_while_a_folder_is_swapped(scene: Scene, ctx: ToolContext) -> None:
    """Hardening class 4, through the agent: replies full of writes and deletes, while swapping."""
    ids = iter(range(1_000_000))

    def tc(name: str, **arguments: Any) -> ToolCall:
        return ToolCall(id=f"call_{next(ids)}", name=name, arguments=json.dumps(arguments))

    replies: list[AssistantTurn | Exception] = []
    for index in range(20):
        calls = [tc("write_file", file_path=f"sub/a{index}.txt", content="x\n"),
                 tc("delete_file", file_path="sub/keep.txt"),
                 tc("make_dir", directory_path=f"sub/d{index}"),
                 tc("read_file", file_path="sub/f.txt")]
        replies.append(AssistantTurn(content="", tool_calls=calls, usage=Usage(1, 1)))
    replies.append(AssistantTurn(content="", tool_calls=[tc("finish", message="done")], usage=Usage(1, 1)))

    class Sink:
        def emit(self, event: dict[str, Any]) -> None:
            pass

    agent = Agent(Binding(BoundModel(ScriptedModel(replies))), Calls(ctx, None), Conversation(),
                  RunConfig(Sink(), main=True, mode="yolo", max_turns=50))
    with swapping(scene):
        result = agent.run_turn("write and delete in sub/")
    assert result.status == "finished"
    for message in agent.history:
        if message["role"] == "tool":
            assert "OUTSIDE SECRET" not in message["content"]
            assert "internal_error" not in message["content"], message["content"]
    scene.outside_untouched()
