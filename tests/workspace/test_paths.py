"""Hardening class 7: `locate` and `path_forms` (what the permission gate asks) never raise, whatever the path.

A NUL byte, a 256-byte name, a path over PATH_MAX, a loop of links or a folder that cannot be searched made
the gate raise a traceback, so the call got no result and a headless run died. Now such a path comes back
with its problem, is decided on its written form, and the tool refuses it with a coded error.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sneakycode.errors import ErrorCode
from sneakycode.workspace.paths import escaped, locate, path_forms

LONG_PATH = "/".join(["abcdefgh"] * 600)


@pytest.fixture
def root(ws: Path) -> Path:
    (ws / "loop1").symlink_to("loop2")
    (ws / "loop2").symlink_to("loop1")
    (ws / "src").mkdir()
    return ws.resolve()


@pytest.mark.parametrize(
    ("value", "code", "words"),
    [
        ("a\x00b", ErrorCode.INVALID_PATH, "NUL"),
        ("a" * 256, ErrorCode.INVALID_PATH, "256 bytes"),
        (LONG_PATH, ErrorCode.INVALID_PATH, "over the limit"),
        ("loop1/x.txt", ErrorCode.INVALID_PATH, "loop"),
        ("loop1", ErrorCode.INVALID_PATH, "loop"),
        ("bad\ud800.txt", ErrorCode.INVALID_PATH, "not valid text"),
    ],
)
def test_an_unusable_path_is_located_with_its_problem(root: Path, value: str, code: ErrorCode, words: str) -> None:
    """Hardening class 7: each of these raised from the gate (ValueError, OSError) instead of a result."""
    located = locate(root, value)
    assert located.problem is not None and located.problem.code == code and words in located.problem.text


@pytest.mark.parametrize("value", ["a\x00b", "a" * 256, LONG_PATH, "loop1/x.txt", "src/../bad\ud800"])
def test_path_forms_decides_an_unusable_path_on_its_written_form(root: Path, value: str) -> None:
    """Hardening class 7: the permission decision still gets forms, so a deny rule on the folder holds."""
    forms = path_forms(root, value, directory=False)
    assert forms == {os.path.relpath(os.path.normpath(root / value), root)}
    assert path_forms(root, "src/a\x00b", directory=True) == {"src/a\x00b/"}


def test_usable_paths_keep_both_forms(root: Path) -> None:
    (root / "alias").symlink_to(root / "src")
    assert path_forms(root, "alias", directory=False) == {"alias/", "src/"}
    assert locate(root, "src/new.py").problem is None


def test_names_that_are_not_utf8_are_shown_escaped() -> None:
    """Hardening class 7: a file named `bad\\xff.txt` crashed the listing when its name was encoded."""
    assert escaped(os.fsdecode(b"bad\xff.txt")) == "bad\\xff.txt"
    assert escaped("bad\ud800.txt") == "bad\\ud800.txt"
    assert escaped("caf\u00e9.txt") == "caf\u00e9.txt"
