"""Where skills and custom commands are found: folders in the workspace (which come with the repository)
and in the user's config folder, in the order that decides which of two files of the same name wins."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sneakycode.config import user_config_path
from sneakycode.extensions.frontmatter import read_project_file, read_user_file
from sneakycode.workspace.files import Workspace

MAX_FILES_PER_PLACE = 500  # a repository with more is a mistake (or hostile); scanning it would stall start-up
MAX_FOLDER_DEPTH = 4


@dataclass(frozen=True)
class Place:
    """One folder to look in. `project`: it comes with the repository (its path is workspace-relative)."""

    folder: Path
    project: bool

    def shown(self, path: Path, workspace: Workspace) -> str:
        """How a file here is named to the user and the model: workspace-relative for project files."""
        return path.relative_to(workspace.root).as_posix() if self.project else str(path)

    def read(self, path: Path, workspace: Workspace) -> str:
        if self.project:
            return read_project_file(workspace, path.relative_to(workspace.root).as_posix())
        return read_user_file(path)


def places(workspace: Workspace, kind: str, project_folders: tuple[str, ...]) -> list[Place]:
    """`kind` ("skills", "commands") under each project folder, then under the user's config folder."""
    found = [Place(workspace.root / folder / kind, True) for folder in project_folders]
    found.append(Place(user_config_path().parent / kind, False))
    return found


def markdown_files(folder: Path, *, depth: int = MAX_FOLDER_DEPTH) -> Iterator[Path]:
    """`*.md` files under `folder`, sorted, hidden entries skipped; links to folders are not descended (a
    link may point anywhere, even back up the tree)."""
    yield from _walk(folder, depth, [0])


def _walk(folder: Path, depth: int, count: list[int]) -> Iterator[Path]:
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(".") or count[0] >= MAX_FILES_PER_PLACE:
            continue
        if entry.is_dir(follow_symlinks=False):
            if depth > 1:
                yield from _walk(Path(entry.path), depth - 1, count)
        elif entry.name.endswith(".md"):
            count[0] += 1
            yield Path(entry.path)


def skill_files(folder: Path) -> Iterator[Path]:
    """`*/SKILL.md` under `folder`, sorted by folder name."""
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries[:MAX_FILES_PER_PLACE]:
        if not entry.name.startswith(".") and entry.is_dir():
            candidate = Path(entry.path) / "SKILL.md"
            if candidate.is_file():
                yield candidate
