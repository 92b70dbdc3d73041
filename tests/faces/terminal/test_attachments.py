"""Images attached at the interactive prompt: `@path` tokens and pasted paths of existing image files."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

from PIL import Image

from sneakycode.faces.terminal.attachments import find_attachments
from sneakycode.testing.server import ScriptedServer
from tests.faces.terminal.test_app import call, spawn
from tests.faces.terminal.test_input import leave, started, user_texts, wait_for_prompt


def test_an_at_token_attaches_an_image_in_the_workspace(ws: Path) -> None:
    Image.new("RGB", (40, 20)).save(ws / "shot.png")
    found = find_attachments("what is wrong in @shot.png ?", ws)
    assert found.names == ["shot.png"] and (found.images[0].width, found.images[0].height) == (40, 20)


def test_a_pasted_path_with_escaped_spaces_attaches_the_image(ws: Path, tmp_path: Path) -> None:
    Image.new("RGB", (8, 8)).save(tmp_path / "Screen Shot 1.png")
    pasted = str(tmp_path / "Screen Shot 1.png").replace(" ", "\\ ")
    found = find_attachments(f"{pasted} the button is misaligned", ws)
    assert found.names == [str(tmp_path / "Screen Shot 1.png")] and len(found.images) == 1


def test_other_tokens_stay_text(ws: Path) -> None:
    (ws / "notes.png").write_text("not an image")
    (ws / "src").mkdir()
    found = find_attachments("fix @notes.png and src/ and @missing.png, don't touch shot.png", ws)
    assert found.images == [] and found.problems == []


def special_files(folder: Path) -> dict[str, Path]:
    """A FIFO, a link to /dev/zero and a folder, each named like an image, as a repository could ship them."""
    os.mkfifo(folder / "fifo.png")
    (folder / "zero.png").symlink_to("/dev/zero")
    (folder / "shots.png").mkdir()
    return {name: folder / name for name in ("fifo.png", "zero.png", "shots.png")}


def test_special_files_named_like_images_are_coded_problems_at_once(ws: Path) -> None:
    """Hardening round two, class 4: `@fifo.png` used to wait for a writer forever and `@zero.png` (a link to
    /dev/zero) to read without end; both are now a not_regular_file line at once, and the folder is words."""
    special_files(ws)
    started = time.monotonic()
    found = find_attachments("look at @fifo.png and @zero.png and shots.png/ please", ws)
    assert time.monotonic() - started < 2
    assert found.images == [] and found.names == []
    assert len(found.problems) == 2 and all(p.startswith("[not_regular_file]") for p in found.problems)
    assert "FIFO" in found.problems[0] and "character device" in found.problems[1]


def test_a_pasted_absolute_path_of_a_fifo_is_not_waited_on(ws: Path, tmp_path: Path) -> None:
    """Hardening round two, class 4: a pasted path goes through the same regular-file reader."""
    paths = special_files(tmp_path)
    found = find_attachments(f"{paths['fifo.png']} {tmp_path / 'plain-fifo'}", ws)
    assert found.problems == [f"[not_regular_file] {paths['fifo.png']} is a FIFO (named pipe), not a regular file, "
                              "so it is not read"]


def test_at_mentions_of_special_files_in_the_terminal_say_so_and_the_request_goes_on(ws: Path) -> None:
    """Hardening round two, class 4, through the real terminal: `@fifo.png`, `@zero.png` and `@pipe` (a FIFO
    without an image name, which the @file mention reads) each print a coded line immediately, and the
    request still reaches the model."""
    special_files(ws)
    os.mkfifo(ws / "pipe")
    with ScriptedServer({"steps": [call("finish", message="Nothing to see.")], "models": ["gpt-4o"]}) as server:
        child = spawn(ws, server, model="gpt-4o")
        child.timeout = 20  # the old code never got here: it waited on the FIFO for good
        started(child)
        child.logfile_read = io.StringIO()
        child.sendline("look at @fifo.png @zero.png and @pipe")
        child.expect("Nothing to see.")
        shown = " ".join(child.logfile_read.getvalue().split())
        wait_for_prompt(child)
        leave(child)
        request = user_texts(server.chat_requests[0])[-1]
    assert request.startswith("look at @fifo.png @zero.png and @pipe")
    flat = "".join(shown.split())  # the terminal wraps long paths anywhere, so compare without white space
    assert "notattached:@pipe:[not_regular_file]'pipe'isaFIFO(namedpipe)" in flat
    assert "notattached:[not_regular_file]" in flat and "fifo.pngisaFIFO(namedpipe)" in flat
    assert "zero.pngisacharacterdevice,notaregularfile" in flat
