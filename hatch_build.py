"""Build hook: writes the commit the wheel or sdist is built from into the package, so `sneakycode --version`
of an installed copy names it (src/sneakycode/process/build_commit.py reads it). A build from an sdist has no
git: the file the sdist carries is kept."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

TARGET = "sneakycode/_build_commit.txt"


class BuildCommitHook(BuildHookInterface):  # type: ignore[misc]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        try:
            commit = subprocess.run(
                ["git", "describe", "--always", "--dirty", "--abbrev=12"], cwd=self.root, capture_output=True,
                text=True, timeout=10, check=True,
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return  # no git or not a clone (a build from the sdist): the sdist's own file stays
        if not commit:
            return
        written = Path(tempfile.mkdtemp()) / "_build_commit.txt"
        written.write_text(commit + "\n", encoding="utf-8")
        inside = TARGET if self.target_name == "wheel" else f"src/{TARGET}"
        build_data["force_include"][str(written)] = inside
