"""Git-style ignore rules for walking a tree: nested `.gitignore` and `.ignore` files, deepest file wins.

pathspec does the pattern matching; this module only applies git's precedence across files, which pathspec
leaves to the caller: a file's own folder rules are consulted first, and only when none of its patterns
match does the parent folder's file decide.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec

IGNORE_FILES = (".gitignore", ".ignore")


def _load_spec(folder: Path) -> GitIgnoreSpec | None:
    lines: list[str] = []
    for name in IGNORE_FILES:
        try:
            lines.extend((folder / name).read_text(encoding="utf-8", errors="replace").splitlines())
        except OSError:
            continue
    return GitIgnoreSpec.from_lines(lines) if lines else None


@dataclass(frozen=True)
class IgnoreRules:
    """The ignore specs that apply inside one folder, outermost first, each with the folder it came from."""

    specs: tuple[tuple[Path, GitIgnoreSpec], ...] = ()

    @classmethod
    def for_tree(cls, root: Path, start: Path) -> IgnoreRules:
        """Rules for walking from `start`: every ignore file from the workspace root down to `start`."""
        rules = cls()
        folders = [start, *start.parents]
        for folder in reversed(folders):
            if folder == root or root in folder.parents:
                rules = rules.descend(folder)
        return rules

    def descend(self, folder: Path) -> IgnoreRules:
        spec = _load_spec(folder)
        return IgnoreRules((*self.specs, (folder, spec))) if spec else self

    def ignored(self, path: Path, *, is_dir: bool) -> bool:
        for base, spec in reversed(self.specs):
            rel = path.relative_to(base).as_posix() + ("/" if is_dir else "")
            verdict = spec.check_file(rel).include
            if verdict is not None:
                return bool(verdict)
        return False
