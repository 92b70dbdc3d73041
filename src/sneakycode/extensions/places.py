"""Where skills, custom commands and subagent definitions are found: one discovery for all three.

The places, in order: each project folder of the kind (`.sneakycode/KIND`, `.claude/KIND`, ... in the workspace,
they come with the repository), then the user's config folder (`~/.config/sneakycode/KIND`), unless `user` is
off (an embedding program's isolated run: then nothing outside the workspace is looked at).

Precedence: the first file of a name wins. Places are taken in the order above, so a project file beats the
user's file of the same name and `.sneakycode` beats `.claude`; within one place, files come in name order
(folders depth-first), so of two files that declare the same name the one first by path wins.

Bounds, the same for every kind: at most MAX_FILES_PER_PLACE files per place (a notice says when more were
left unread), folders at most MAX_FOLDER_DEPTH deep, links to folders inside a place not descended; a project
folder is listed only when the workspace guard resolves it inside the workspace, a project file is read
through the guard (`read_project_file`), a user file as a bounded regular file (`read_user_file`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sneakycode.config import user_config_path
from sneakycode.errors import ErrorCode, ToolError
from sneakycode.extensions.frontmatter import Problem, read_project_file, read_user_file
from sneakycode.workspace.files import Workspace

MAX_FILES_PER_PLACE = 500  # a repository with more is a mistake (or hostile); scanning it would stall start-up
MAX_FOLDER_DEPTH = 4
ESCAPES = frozenset({ErrorCode.OUTSIDE_WORKSPACE, ErrorCode.SYMLINK_ESCAPE})


@dataclass(frozen=True)
class Place:
    """One folder to look in. `project`: it comes with the repository (its path is under the workspace root)."""

    folder: Path
    project: bool

    def shown(self, path: Path, workspace: Workspace) -> str:
        """How a file here is named to the user and the model: workspace-relative for project files."""
        return path.relative_to(workspace.root).as_posix() if self.project else str(path)

    def read(self, path: Path, workspace: Workspace) -> str:
        """The file's text, bounded; a FrontMatterError (line 1) says why it cannot be read."""
        if self.project:
            return read_project_file(workspace, path.relative_to(workspace.root).as_posix())
        return read_user_file(path)


@dataclass(frozen=True)
class Found:
    """One file found: `path` under its place's folder, `relative` to that folder, `shown` as users see it."""

    place: Place
    path: Path
    relative: Path
    shown: str

    def read(self, workspace: Workspace) -> str:
        return self.place.read(self.path, workspace)


@dataclass(frozen=True)
class Discovery:
    """The files, in precedence order (the first of a name wins), and the places that were not fully read."""

    files: tuple[Found, ...] = ()
    problems: tuple[Problem, ...] = ()


def places(workspace: Workspace, kind: str, project_folders: tuple[str, ...], *, user: bool = True) -> list[Place]:
    """`kind` ("skills", "commands", "agents") under each project folder, then under the user's config folder
    (unless `user` is off)."""
    found = [Place(workspace.root / folder / kind, True) for folder in project_folders]
    if user:
        found.append(Place(user_config_path().parent / kind, False))
    return found


def discover(
    workspace: Workspace, kind: str, project_folders: tuple[str, ...], *, skill_folders: bool = False,
    user: bool = True,
) -> Discovery:
    """Every file of `kind`: `*.md` files (nested up to MAX_FOLDER_DEPTH), or with `skill_folders` one
    `NAME/SKILL.md` per folder; `user` off leaves the user's config folder unread."""
    files: list[Found] = []
    problems: list[Problem] = []
    for place in places(workspace, kind, project_folders, user=user):
        real = _listable(place, workspace, problems)
        if real is None:
            continue
        capped = [False]
        walk = _skill_files(real, capped) if skill_folders else _markdown_files(real, MAX_FOLDER_DEPTH, [0], capped)
        for relative in walk:
            path = place.folder / relative
            files.append(Found(place, path, relative, place.shown(path, workspace)))
        if capped[0]:
            shown = place.shown(place.folder, workspace)
            problems.append(Problem(shown, 0, f"the folder has more than {MAX_FILES_PER_PLACE} files; only the "
                                              f"first {MAX_FILES_PER_PLACE} by name were read"))
    return Discovery(tuple(files), tuple(problems))


def _listable(place: Place, workspace: Workspace, problems: list[Problem]) -> Path | None:
    """The folder to list: a project folder only as the workspace guard resolves it (a `.claude` linked out of
    the workspace is not listed, and says so); the user's folder as it is."""
    if not place.project:
        return place.folder
    shown = place.shown(place.folder, workspace)
    try:
        return workspace.resolve(shown)
    except ToolError as err:
        if err.code in ESCAPES:
            problems.append(Problem(shown, 0, f"the folder was not read: {err.error}"))
        return None


def _sorted_entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as listing:
            return sorted(listing, key=lambda entry: entry.name)
    except OSError:
        return []


def _markdown_files(folder: Path, depth: int, count: list[int], capped: list[bool]) -> Iterator[Path]:
    """`*.md` files under `folder` (relative to it), sorted, hidden entries skipped; links to folders are not
    descended (a link may point anywhere, even back up the tree). Stops after MAX_FILES_PER_PLACE, setting
    `capped` when one more was there."""
    for entry in _sorted_entries(folder):
        if capped[0]:
            return
        if entry.name.startswith("."):
            continue
        if entry.is_dir(follow_symlinks=False):
            if depth > 1:
                for inner in _markdown_files(Path(entry.path), depth - 1, count, capped):
                    yield Path(entry.name) / inner
        elif entry.name.endswith(".md"):
            if count[0] >= MAX_FILES_PER_PLACE:
                capped[0] = True
                return
            count[0] += 1
            yield Path(entry.name)


def _skill_files(folder: Path, capped: list[bool]) -> Iterator[Path]:
    """`NAME/SKILL.md` under `folder` (relative to it), sorted by folder name; at most MAX_FILES_PER_PLACE
    folders are looked into. A link to a folder is followed here, so its SKILL.md is found and then refused
    by the reader with a notice, rather than silently missing."""
    looked = 0
    for entry in _sorted_entries(folder):
        if entry.name.startswith(".") or not entry.is_dir():
            continue
        if looked >= MAX_FILES_PER_PLACE:
            capped[0] = True
            return
        looked += 1
        if (Path(entry.path) / "SKILL.md").is_file():
            yield Path(entry.name) / "SKILL.md"
