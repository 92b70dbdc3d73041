"""The workspace guard: containment on real paths, near misses, text formats, atomic writes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.workspace.files import Workspace
from sneakycode.workspace.textfiles import TextFormat, decode_text, encode_text


def code_of(exc: pytest.ExceptionInfo[ToolError]) -> ErrorCode:
    return exc.value.code


@pytest.fixture
def wsp(ws: Path) -> Workspace:
    return Workspace(ws)


def test_relative_and_absolute_inside_paths_resolve(wsp: Workspace, ws: Path) -> None:
    (ws / "a.txt").write_text("x")
    assert wsp.resolve("a.txt") == ws.resolve() / "a.txt"
    assert wsp.resolve(str(ws / "a.txt")) == ws.resolve() / "a.txt"
    assert wsp.resolve("sub/../a.txt") == ws.resolve() / "a.txt"


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("", ErrorCode.INVALID_PATH),
        ("   ", ErrorCode.INVALID_PATH),
        ("a\x00b", ErrorCode.INVALID_PATH),
        ("~/secrets", ErrorCode.INVALID_PATH),
        ("~", ErrorCode.INVALID_PATH),
        ("../outside.txt", ErrorCode.OUTSIDE_WORKSPACE),
        ("sub/../../outside.txt", ErrorCode.OUTSIDE_WORKSPACE),
        ("/etc/passwd", ErrorCode.OUTSIDE_WORKSPACE),
    ],
)
def test_bad_paths_are_rejected_with_specific_codes(wsp: Workspace, path: str, code: ErrorCode) -> None:
    with pytest.raises(ToolError) as exc:
        wsp.resolve(path)
    assert code_of(exc) == code


def test_sibling_with_common_prefix_is_outside(tmp_path: Path) -> None:
    """Regression: the peer's containment check was a string prefix, so /work/proj-other passed for /work/proj."""
    proj = tmp_path / "proj"
    other = tmp_path / "proj-other"
    proj.mkdir()
    other.mkdir()
    (other / "secret.txt").write_text("s")
    wsp = Workspace(proj)
    for path in ("../proj-other/secret.txt", str(other / "secret.txt")):
        with pytest.raises(ToolError) as exc:
            wsp.resolve(path)
        assert code_of(exc) == ErrorCode.OUTSIDE_WORKSPACE


def test_symlinked_file_and_parent_folder_escaping_are_rejected(wsp: Workspace, ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s")
    (ws / "link.txt").symlink_to(outside / "secret.txt")
    (ws / "linkdir").symlink_to(outside)
    for path in ("link.txt", "linkdir/secret.txt", "linkdir/new.txt"):
        with pytest.raises(ToolError) as exc:
            wsp.resolve(path)
        assert code_of(exc) == ErrorCode.SYMLINK_ESCAPE, path


def test_absolute_path_through_an_alias_of_the_root_is_inside(ws: Path, tmp_path: Path) -> None:
    """A workspace opened through a symlink (`~/code` -> `/data/code`) accepts absolute paths under either name."""
    alias = tmp_path / "alias"
    alias.symlink_to(ws)
    (ws / "a.txt").write_text("x")
    wsp = Workspace(alias)
    assert wsp.resolve(str(alias / "a.txt")) == ws.resolve() / "a.txt"
    with pytest.raises(ToolError) as exc:
        wsp.resolve(str(tmp_path / "elsewhere.txt"))
    assert code_of(exc) == ErrorCode.OUTSIDE_WORKSPACE


def test_symlink_inside_the_workspace_is_followed(wsp: Workspace, ws: Path) -> None:
    (ws / "real.txt").write_text("r")
    (ws / "alias.txt").symlink_to(ws / "real.txt")
    assert wsp.resolve("alias.txt") == ws.resolve() / "real.txt"


def test_a_link_swapped_in_after_checking_is_caught_at_read_time(wsp: Workspace, ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    (ws / "f.txt").write_text("fine")
    assert wsp.read_text("f.txt").text == "fine"
    (ws / "f.txt").unlink()
    (ws / "f.txt").symlink_to(outside)
    with pytest.raises(ToolError) as exc:
        wsp.read_text("f.txt")
    assert code_of(exc) == ErrorCode.SYMLINK_ESCAPE


def test_missing_path_lists_near_misses(wsp: Workspace, ws: Path) -> None:
    (ws / "src" / "pkg").mkdir(parents=True)
    (ws / "src" / "pkg" / "config.py").write_text("")
    (ws / "src" / "confg.py").write_text("")
    with pytest.raises(ToolError) as exc:
        wsp.resolve("src/config.py", must_exist=True)
    assert code_of(exc) == ErrorCode.NOT_FOUND
    assert "src/confg.py" in exc.value.detail
    assert "src/pkg/config.py" in exc.value.detail


def test_binary_and_oversized_files_say_their_size(ws: Path) -> None:
    (ws / "img.bin").write_bytes(b"\x89PNG\x00\x01\x02")
    (ws / "big.txt").write_text("x" * 2000)
    wsp = Workspace(ws, max_file_size_bytes=1000)
    with pytest.raises(ToolError) as exc:
        wsp.read_text("img.bin")
    assert code_of(exc) == ErrorCode.BINARY_FILE and "7 bytes" in exc.value.error
    with pytest.raises(ToolError) as exc:
        wsp.read_text("big.txt")
    assert code_of(exc) == ErrorCode.FILE_TOO_LARGE and "2000 bytes" in exc.value.error and "1000" in exc.value.error


def test_invalid_utf8_is_binary(wsp: Workspace, ws: Path) -> None:
    (ws / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(ToolError) as exc:
        wsp.read_text("latin1.txt")
    assert code_of(exc) == ErrorCode.BINARY_FILE


@pytest.mark.parametrize(
    "raw",
    [
        b"a\nb\n",
        b"a\r\nb\r\n",
        b"\xef\xbb\xbfa\r\nb",
        b"\xff\xfe" + "h\u00e9\r\n".encode("utf-16-le"),
        b"\xfe\xff" + "h\u00e9\nx".encode("utf-16-be"),
        b"mixed\r\nends\nhere\r",
    ],
)
def test_rewriting_unchanged_text_keeps_bytes_identical(wsp: Workspace, ws: Path, raw: bytes) -> None:
    (ws / "f.txt").write_bytes(raw)
    tf = wsp.read_text("f.txt")
    wsp.write_text("f.txt", tf.text, like=tf)
    assert (ws / "f.txt").read_bytes() == raw


def test_crlf_file_keeps_crlf_when_model_sends_lf(wsp: Workspace, ws: Path) -> None:
    (ws / "win.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    tf = wsp.read_text("win.txt")
    assert tf.text == "one\ntwo\n" and tf.newline == "\r\n" and tf.bom
    wsp.write_text("win.txt", "one\nTWO\nthree\n", like=tf)
    assert (ws / "win.txt").read_bytes() == b"\xef\xbb\xbfone\r\nTWO\r\nthree\r\n"


def test_write_keeps_permission_bits(wsp: Workspace, ws: Path) -> None:
    script = ws / "run.sh"
    script.write_text("echo hi\n")
    script.chmod(0o751)
    tf = wsp.read_text("run.sh")
    wsp.write_text("run.sh", "echo bye\n", like=tf)
    assert (script.stat().st_mode & 0o777) == 0o751


def test_write_leaves_no_temp_files(wsp: Workspace, ws: Path) -> None:
    wsp.write_text("a/b/c.txt", "hello\n")
    assert sorted(p.name for p in ws.rglob("*")) == ["a", "b", "c.txt"]


def test_failed_write_leaves_old_file_identical(wsp: Workspace, ws: Path) -> None:
    target = ws / "keep.txt"
    target.write_bytes(b"old\r\n")
    tf = wsp.read_text("keep.txt")
    with pytest.raises(ToolError) as exc:
        wsp.write_text("keep.txt", "x" * 2_000_000, like=tf)
    assert code_of(exc) == ErrorCode.FILE_TOO_LARGE
    assert target.read_bytes() == b"old\r\n"


def test_failed_rename_is_io_error_and_leaves_old_file_and_no_temp(
    wsp: Workspace, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (ws / "f.txt").write_text("old")
    tf = wsp.read_text("f.txt")

    def disk_full(src: str, dst: str, **dir_fds: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(ToolError) as exc:
        wsp.write_text("f.txt", "new", like=tf)
    assert code_of(exc) == ErrorCode.IO_ERROR and "No space left" in exc.value.error
    assert (ws / "f.txt").read_text() == "old"
    assert [p.name for p in ws.iterdir()] == ["f.txt"]


text_with_newlines = st.lists(
    st.tuples(st.text(alphabet=st.characters(blacklist_characters="\n\x00", blacklist_categories=("Cs",))),
              st.sampled_from(["\n", "\r\n"])),
    max_size=20,
)


@settings(max_examples=200, deadline=None)
@given(
    lines=text_with_newlines,
    uniform=st.booleans(),
    encoding=st.sampled_from(["utf-8", "utf-16-le", "utf-16-be"]),
    bom=st.booleans(),
)
def test_encode_then_decode_round_trips(lines: list[tuple[str, str]], uniform: bool, encoding: str, bom: bool) -> None:
    """Any text written in any supported format reads back as the same text, and re-encodes to the same bytes."""
    if encoding != "utf-8":
        bom = True
    newline = lines[0][1] if lines else "\n"
    text = "".join(body + (newline if uniform else end) for body, end in lines)
    fmt = TextFormat(encoding, bom, "\n")
    raw = encode_text(text, fmt)
    decoded, got = decode_text(raw)
    assert got.encoding == encoding and got.bom == bom
    restored = decoded.replace("\n", "\r\n") if got.newline == "\r\n" else decoded
    assert restored == text
    assert encode_text(decoded, got) == raw


WRITER = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    import sneakycode.workspace.files as w
    real_fsync = os.fsync
    def slow_fsync(fd):
        sys.stdout.write("writing\\n"); sys.stdout.flush()
        time.sleep(30)
        real_fsync(fd)
    os.fsync = slow_fsync
    ws = w.Workspace(Path(sys.argv[1]))
    tf = ws.read_text("data.txt")
    ws.write_text("data.txt", "NEW CONTENT\\n" * 50000, like=tf)
    """
)


def test_writer_killed_mid_write_leaves_old_file_whole(ws: Path) -> None:
    """SIGKILL a process while it is inside the write (data written, not yet renamed): the old file stays."""
    original = b"original line\n" * 1000
    (ws / "data.txt").write_bytes(original)
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(ws)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "writing"
    time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert (ws / "data.txt").read_bytes() == original


# ---- hardening ------------------------------------------------------------------------------------------


@pytest.fixture
def swapped_after_check(wsp: Workspace, ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every path is checked as it is, then `sub/` is swapped for a link to outside/ before it is used: the
    race of hardening class 4, made to happen every time."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("outside")
    (ws / "sub").mkdir()
    (ws / "sub" / "f.txt").write_text("inside")
    checked = Workspace.resolve

    def resolve_then_swap(self: Workspace, user_path: str, *, must_exist: bool = False) -> Path:
        real = checked(self, user_path, must_exist=must_exist)
        if (ws / "sub").is_dir() and not (ws / "sub").is_symlink():
            (ws / "sub").rename(ws / "sub.moved")
            (ws / "sub").symlink_to(outside)
        return real

    monkeypatch.setattr(Workspace, "resolve", resolve_then_swap)
    return outside


@pytest.mark.parametrize(
    "act",
    [
        lambda w: w.write_text("sub/f.txt", "mine"),
        lambda w: w.write_text("sub/new/deeper.txt", "mine"),
        lambda w: w.delete_file("sub/f.txt"),
        lambda w: w.make_dirs("sub/made"),
        lambda w: w.read_text("sub/f.txt"),
    ],
    ids=["replace", "create", "delete", "mkdir", "read"],
)
def test_a_folder_swapped_for_a_link_after_the_check_stops_the_tool(
    wsp: Workspace, swapped_after_check: Path, act: Any
) -> None:
    """Hardening class 4: only read_file re-checked the opened file; a write, delete or mkdir followed the
    swapped link outside. Now every one acts through folder descriptors and stops with path_changed."""
    with pytest.raises(ToolError) as exc:
        act(wsp)
    assert code_of(exc) == ErrorCode.PATH_CHANGED and "changed while in use" in exc.value.error
    assert sorted(os.listdir(swapped_after_check)) == ["f.txt"]
    assert (swapped_after_check / "f.txt").read_text() == "outside"


def test_reading_a_fifo_is_refused_at_once(wsp: Workspace, ws: Path) -> None:
    """Hardening class 5: the workspace opened a FIFO and waited for a writer."""
    os.mkfifo(ws / "pipe")
    with pytest.raises(ToolError) as exc:
        wsp.read_text("pipe")
    assert code_of(exc) == ErrorCode.NOT_REGULAR_FILE
    with pytest.raises(ToolError) as exc:
        wsp.write_text("pipe", "x")
    assert code_of(exc) == ErrorCode.NOT_REGULAR_FILE and "not replaced" in exc.value.error


def test_a_read_only_file_is_not_replaced(wsp: Workspace, ws: Path) -> None:
    """Hardening class 9: write_text renamed a new file over a 0444 one."""
    (ws / "ro.txt").write_text("keep")
    (ws / "ro.txt").chmod(0o444)
    with pytest.raises(ToolError) as exc:
        wsp.write_text("ro.txt", "new")
    assert code_of(exc) == ErrorCode.READ_ONLY_FILE and (ws / "ro.txt").read_text() == "keep"


def test_sneakycode_and_git_are_protected(wsp: Workspace, ws: Path) -> None:
    """Hardening class 3: `.sneakycode/` joins the root and `.git/` as paths tools never change."""
    for path in (".sneakycode/config.toml", ".sneakycode", ".git/hooks/pre-commit", "sub/.git/config"):
        with pytest.raises(ToolError) as exc:
            wsp.write_text(path, "x")
        assert code_of(exc) == ErrorCode.PROTECTED_PATH, path
    assert not (ws / ".sneakycode").exists() and not (ws / ".git").exists()
    assert wsp.is_protected(ws.resolve() / ".sneakycode" / "x") and not wsp.is_protected(ws.resolve() / "sneakycode")


def test_journal_sees_every_created_folder_and_file(ws: Path) -> None:
    """The descriptor-based writes keep the undo journal's hooks: each folder and the file, before and after."""
    seen: list[tuple[str, str]] = []

    class Recorder:
        def record_before(self, path: Path, action: str, folder: int | None = None) -> None:
            assert folder is not None
            seen.append((action, path.relative_to(ws.resolve()).as_posix()))

        def record_after(self, path: Path, folder: int | None = None) -> None:
            seen.append(("after", path.relative_to(ws.resolve()).as_posix()))

    wsp = Workspace(ws, journal=Recorder())
    wsp.write_text("a/b/c.txt", "x")
    wsp.delete_file("a/b/c.txt")
    assert seen == [
        ("mkdir", "a"), ("after", "a"), ("mkdir", "a/b"), ("after", "a/b"),
        ("write", "a/b/c.txt"), ("after", "a/b/c.txt"), ("delete", "a/b/c.txt"), ("after", "a/b/c.txt"),
    ]
