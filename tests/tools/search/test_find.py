"""find_files called as the model calls it, on real folders."""

from __future__ import annotations

import os
from pathlib import Path

from sneakycode.config import load_settings
from sneakycode.errors import ErrorCode
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context
from tests.conftest import call
from tests.tools.search.test_grep import repo, write

TREE: dict[str, str | bytes] = {
    "setup.py": "",
    "src/app/main.py": "",
    "src/app/test_main.py": "",
    "src/app/config.yaml": "",
    "tests/test_cli.py": "",
    "config.yaml": "",
    "README.md": "",
    "logo.png": b"\x89PNG\x00",
}


def found(ctx: ToolContext, pattern: str, **args: object) -> list[str]:
    result = call(ctx, "find_files", pattern=pattern, **args)
    assert result.success, result.render()
    return result.content.splitlines()


def test_a_name_glob_matches_at_any_depth_sorted_by_path(ctx: ToolContext, ws: Path) -> None:
    write(ws, TREE)
    assert found(ctx, "*.py") == ["setup.py", "src/app/main.py", "src/app/test_main.py", "tests/test_cli.py"]
    assert found(ctx, "config.yaml") == ["config.yaml", "src/app/config.yaml"]
    assert call(ctx, "find_files", pattern="*.py").message == "4 files."


def test_a_glob_with_a_folder_is_anchored_at_path(ctx: ToolContext, ws: Path) -> None:
    write(ws, TREE)
    assert found(ctx, "src/**/test_*.py") == ["src/app/test_main.py"]
    assert found(ctx, "**/test_*.py") == ["src/app/test_main.py", "tests/test_cli.py"]
    assert found(ctx, "app/*.yaml", path="src") == ["src/app/config.yaml"]
    assert found(ctx, "*.py !test_*") == ["setup.py", "src/app/main.py"]


def test_binary_files_are_found_by_name(ctx: ToolContext, ws: Path) -> None:
    write(ws, TREE)
    assert found(ctx, "*.png") == ["logo.png"]


def test_sort_by_mtime_lists_the_newest_first(ctx: ToolContext, ws: Path) -> None:
    write(ws, {"old.txt": "", "new.txt": "", "mid.txt": ""})
    for age, name in enumerate(["new.txt", "mid.txt", "old.txt"]):
        os.utime(ws / name, (1_700_000_000 - age * 60, 1_700_000_000 - age * 60))
    assert found(ctx, "*.txt", sort="mtime") == ["new.txt", "mid.txt", "old.txt"]


def test_results_are_capped_with_a_more_line(ctx: ToolContext, ws: Path) -> None:
    write(ws, {f"f{i:02}.txt": "" for i in range(12)})
    result = call(ctx, "find_files", pattern="*.txt", max_results=5)
    assert result.content.splitlines() == ["f00.txt", "f01.txt", "f02.txt", "f03.txt", "f04.txt"]
    assert result.message == "[Showing 5 of 12 files; 7 more left out. Narrow the pattern or the path.]"


def test_a_file_as_path_is_not_a_folder(ctx: ToolContext, ws: Path) -> None:
    write(ws, TREE)
    result = call(ctx, "find_files", pattern="*", path="setup.py")
    assert result.code == ErrorCode.NOT_A_DIRECTORY


def test_a_project_inside_build_or_dist_folders_lists_its_files(tmp_path: Path) -> None:
    """Regression: the peer hid every path containing `build` or `dist`, so such a project listed as empty."""
    root = tmp_path / "dist" / "build-tools"
    write(root, {"builder/make.py": "", "distance.py": ""})
    ctx = open_tool_context(load_settings(root))
    assert found(ctx, "*.py") == ["builder/make.py", "distance.py"]


def test_gitignore_and_hidden_files_are_listed(ctx: ToolContext, ws: Path) -> None:
    """Regression: the peer's `.git` substring rule hid `.gitignore`; hidden files count as files."""
    repo(ws, {".gitignore": "*.log\n.cache/\n", ".env": "", "a.log": "", ".cache/x": "", ".git/HEAD": ""})
    assert found(ctx, "*") == [".env", ".gitignore"]
    assert found(ctx, "*", include_ignored=True) == [".cache/x", ".env", ".gitignore", "a.log"]


def test_no_match_names_the_pattern_and_folder(ctx: ToolContext, ws: Path) -> None:
    write(ws, TREE)
    result = call(ctx, "find_files", pattern="*.rs", path="src")
    assert result.success
    assert result.message.startswith("No files match '*.rs' in src.")


def test_a_folder_prefix_that_does_not_exist_matches_nothing(ctx: ToolContext, ws: Path) -> None:
    write(ws, TREE)
    assert call(ctx, "find_files", pattern="lib/**/*.py").content == ""


def test_symbolic_links_are_not_followed(ctx: ToolContext, ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write(outside, {"secret.py": ""})
    write(ws, {"a.py": ""})
    (ws / "link").symlink_to(outside, target_is_directory=True)
    (ws / "b.py").symlink_to(ws / "a.py")
    assert found(ctx, "*.py") == ["a.py"]
    assert found(ctx, "link/*.py") == []


def test_an_invalid_glob_is_refused(ctx: ToolContext) -> None:
    result = call(ctx, "find_files", pattern="src/[abc")
    assert result.code == ErrorCode.INVALID_PATTERN
    assert "unclosed '['" in (result.error or "")
