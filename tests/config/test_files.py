"""Hardening class 5: only regular files are read, and only as much as allowed.

A FIFO made a plain open() wait forever for a writer; `/dev/zero` never ends. `regular_files` opens
without blocking, checks the kind with fstat and reads at most the caller's limit.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from sneakycode.config.files import NotRegularFile, OverLimit, kind_of, open_regular, read_head, read_regular


def test_a_regular_file_is_read_whole_within_its_limit(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"hello\n")
    assert read_regular(tmp_path / "f.txt", 6) == b"hello\n"
    with pytest.raises(OverLimit):
        read_regular(tmp_path / "f.txt", 5)


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    """Hardening class 5: opening a FIFO blocked until a writer came, which a hostile repository never sends."""
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(NotRegularFile) as exc:
        read_regular(tmp_path / "pipe", 100)
    assert exc.value.kind == "a FIFO (named pipe)"


def test_a_link_to_a_device_is_refused_not_read_forever(tmp_path: Path) -> None:
    """Hardening class 5: `.gitignore -> /dev/zero` exhausted memory."""
    (tmp_path / ".gitignore").symlink_to("/dev/zero")
    with pytest.raises(NotRegularFile) as exc:
        read_regular(tmp_path / ".gitignore", 1 << 20)
    assert exc.value.kind == "a character device"


def test_folders_sockets_and_unfollowed_links_are_not_regular(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "s"))
    (tmp_path / "link").symlink_to(tmp_path / "d")
    try:
        kinds = []
        for name, follow in (("d", True), ("s", True), ("link", False)):
            with pytest.raises(NotRegularFile) as exc:
                open_regular(tmp_path / name, follow_symlinks=follow)
            kinds.append(exc.value.kind)
    finally:
        server.close()
    assert kinds == ["a folder", "a socket", "a symbolic link"]


def test_a_path_relative_to_a_folder_descriptor(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"x")
    folder = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fh, info = open_regular("f.txt", dir_fd=folder, follow_symlinks=False)
        with fh:
            assert fh.read() == b"x" and info.st_size == 1
    finally:
        os.close(folder)


def test_kind_of_names_every_kind() -> None:
    assert kind_of(0o100644) == "a regular file"
    assert kind_of(0o020666) == "a character device"
    assert kind_of(0o060660) == "a block device"


def test_read_head_gives_the_first_bytes_of_a_regular_file_only(tmp_path: Path) -> None:
    """Hardening round two, class 4: `.git` and `commondir` are read for their first line only, through the
    same reader: a FIFO or a link to /dev/zero is refused at once, a huge file is not read past the head."""
    (tmp_path / ".git").write_bytes(b"gitdir: ../real\n" + b"x" * 100_000)
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "zero").symlink_to("/dev/zero")
    assert read_head(tmp_path / ".git", 16) == b"gitdir: ../real\n"
    for name, kind in (("pipe", "a FIFO (named pipe)"), ("zero", "a character device")):
        with pytest.raises(NotRegularFile) as exc:
            read_head(tmp_path / name, 4096)
        assert exc.value.kind == kind
