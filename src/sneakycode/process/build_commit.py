"""Which commit this copy of SneakyCode was built from, for `sneakycode --version` and bug reports.

A wheel or sdist carries it in `sneakycode/_build_commit.txt`, written by the build hook (hatch_build.py); a
clone (an editable install, `make test`) has no such file, so git is asked, neutrally, in the clone the
package was loaded from. None when neither knows (a wheel built without git, git missing).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sneakycode.process.neutral_git import neutral_git_argv, neutral_git_environment
from sneakycode.process.supervise import run_process

BUILD_COMMIT_FILE = "_build_commit.txt"
_PACKAGE = Path(__file__).resolve().parent.parent
_TIMEOUT = 5.0


def build_commit() -> str | None:
    """The commit (`git describe --always --dirty`: a short hash, `-dirty` when the clone had changes)."""
    try:
        written = (_PACKAGE / BUILD_COMMIT_FILE).read_text(encoding="utf-8").strip()
    except OSError:
        written = ""
    if written:
        return written
    clone = _PACKAGE.parent.parent  # src/sneakycode -> the clone's root
    git = shutil.which("git")
    if git is None or not (clone / ".git").exists() or not (clone / "pyproject.toml").is_file():
        return None
    try:
        result = run_process(neutral_git_argv(git, ["describe", "--always", "--dirty", "--abbrev=12"]), cwd=clone,
                             env=neutral_git_environment(), timeout=_TIMEOUT, capture_limit=4096)  # fmt: skip
    except OSError:
        return None
    found = result.stdout.decode("utf-8", errors="replace").strip()
    return found if result.ending.exit_code == 0 and found else None
