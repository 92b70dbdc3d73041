"""grep_files called as the model calls it, on real folders, with ripgrep (and once with the fallback)."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.errors import ErrorCode
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context
from sneakycode.tools.registry import tools_by_name
from sneakycode.tools.search import ripgrep
from tests.conftest import call, run_cli


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for relative, content in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")


def repo(root: Path, files: dict[str, str | bytes]) -> None:
    """A git repository (ripgrep applies .gitignore inside one, as git does)."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    write(root, files)


def test_matches_print_path_line_text_sorted_by_path(ctx: ToolContext, ws: Path) -> None:
    write(ws, {"b.py": "x = 1\nneedle = 2\n", "a/z.py": "needle\n", "a.py": "# needle\n"})
    result = call(ctx, "grep_files", pattern="needle")
    assert result.success
    assert result.content == "a/z.py:1:needle\na.py:1:# needle\nb.py:2:needle = 2"
    assert result.message == "3 matching lines in 3 files."
    assert result.data["backend"] == "ripgrep"


def test_paths_are_relative_to_the_workspace_and_work_with_read_file(ctx: ToolContext, ws: Path) -> None:
    write(ws, {"src/app/main.py": "def main():\n    pass\n", "other/main.py": "def main(): ...\n"})
    result = call(ctx, "grep_files", pattern="def main", path="src")
    assert result.content == "src/app/main.py:1:def main():"
    path = result.content.split(":", 1)[0]
    assert call(ctx, "read_file", file_path=path).success


def test_a_file_can_be_searched_by_naming_it(ctx: ToolContext, ws: Path) -> None:
    write(ws, {"notes.txt": "alpha\nbeta\nalphabet\n", "other.txt": "alpha\n"})
    result = call(ctx, "grep_files", pattern="^alpha", path="notes.txt")
    assert result.content == "notes.txt:1:alpha\nnotes.txt:3:alphabet"


def test_file_pattern_with_a_folder_segment_matches(ctx: ToolContext, ws: Path) -> None:
    """Regression: the peer matched file_pattern against the base name only, so `src/*.ts` matched nothing."""
    write(
        ws,
        {
            "src/index.ts": "needle\n",
            "src/deep/util.ts": "needle\n",
            "src/view.tsx": "needle\n",
            "lib/index.ts": "needle\n",
            "src/server.go": "needle\n",
            "src/server_test.go": "needle\n",
        },
    )

    def files(file_pattern: str) -> list[str]:
        result = call(ctx, "grep_files", pattern="needle", file_pattern=file_pattern, output_mode="files_with_matches")
        assert result.success, result.render()
        return result.content.splitlines()

    assert files("src/*.ts") == ["src/index.ts"]
    assert files("src/**/*.ts") == ["src/deep/util.ts", "src/index.ts"]
    assert files("*.ts") == ["lib/index.ts", "src/deep/util.ts", "src/index.ts"]
    assert files("src/*.{ts,tsx}") == ["src/index.ts", "src/view.tsx"]
    assert files("*.go !*_test.go") == ["src/server.go"]


def test_a_project_inside_build_or_dist_folders_is_searched(tmp_path: Path) -> None:
    """Regression: the peer hid every path containing `build` or `dist`, so such a project looked empty."""
    root = tmp_path / "build" / "dist-app"
    repo(root, {"builder/make.py": "needle\n", "distance.py": "needle\n", ".gitignore": "dist/\n"})
    write(root, {"dist/bundle.js": "needle\n"})
    ctx = open_tool_context(load_settings(root))
    result = call(ctx, "grep_files", pattern="needle", output_mode="files_with_matches")
    assert result.content.splitlines() == ["builder/make.py", "distance.py"]


def test_gitignore_itself_is_searched(ctx: ToolContext, ws: Path) -> None:
    """Regression: the peer's `.git` substring rule hid `.gitignore` from every listing and search."""
    repo(ws, {".gitignore": "*.log\n", "app.log": "x\n"})
    result = call(ctx, "grep_files", pattern=r"\*\.log")
    assert result.content == ".gitignore:1:*.log"


def test_hidden_files_are_searched_unless_ignored(ctx: ToolContext, ws: Path) -> None:
    repo(ws, {".env.example": "TOKEN=needle\n", ".secret": "needle\n", ".gitignore": ".secret\n"})
    assert call(ctx, "grep_files", pattern="needle").content == ".env.example:1:TOKEN=needle"
    everything = call(ctx, "grep_files", pattern="needle", include_ignored=True)
    assert everything.content == ".env.example:1:TOKEN=needle\n.secret:1:needle"


def test_nested_ignore_files_and_negation(ctx: ToolContext, ws: Path) -> None:
    repo(
        ws,
        {
            ".gitignore": "*.gen.py\n",
            "pkg/.gitignore": "!keep.gen.py\nlocal/\n",
            "pkg/a.gen.py": "needle\n",
            "pkg/keep.gen.py": "needle\n",
            "pkg/local/x.py": "needle\n",
            ".ignore": "scratch/\n",
            "scratch/y.py": "needle\n",
            "main.py": "needle\n",
        },
    )
    result = call(ctx, "grep_files", pattern="needle", output_mode="files_with_matches")
    assert result.content.splitlines() == ["main.py", "pkg/keep.gen.py"]


def test_the_git_folder_is_never_searched(ctx: ToolContext, ws: Path) -> None:
    repo(ws, {".git/config": "needle\n", "a.txt": "needle\n"})
    for include_ignored in (False, True):
        result = call(ctx, "grep_files", pattern="needle", include_ignored=include_ignored)
        assert result.content == "a.txt:1:needle"


def test_binary_and_oversized_files_are_skipped(ctx: ToolContext, ws: Path) -> None:
    ctx.loaded.settings = ctx.settings.model_copy(update={"max_file_size_bytes": 1000})
    write(ws, {"image.bin": b"needle\x00\x01", "huge.txt": "needle\n" + "x" * 2000, "small.txt": "needle\n"})
    assert call(ctx, "grep_files", pattern="needle").content == "small.txt:1:needle"


def test_an_oversized_file_named_as_path_is_still_searched(ctx: ToolContext, ws: Path) -> None:
    """read_file tells the model to grep a file too large to read, so naming it must work."""
    ctx.loaded.settings = ctx.settings.model_copy(update={"max_file_size_bytes": 1000})
    write(ws, {"huge.log": "x\n" * 600 + "needle\n"})
    assert call(ctx, "grep_files", pattern="needle", path="huge.log").content == "huge.log:601:needle"


def test_long_lines_are_cut_around_the_match(ctx: ToolContext, ws: Path) -> None:
    write(ws, {"min.js": "a" * 3000 + "needle" + "b" * 3000 + "\n"})
    line = call(ctx, "grep_files", pattern="needle").content
    assert "needle" in line
    assert line.startswith("min.js:1:...")
    assert line.endswith("[line cut: 5506 of 6006 characters not shown]")
    assert len(line) < 600


def test_max_results_cut_says_what_was_left_out_and_how_to_narrow(ctx: ToolContext, ws: Path) -> None:
    write(ws, {f"f{i}.txt": "needle\n" * 3 for i in range(10)})
    result = call(ctx, "grep_files", pattern="needle", max_results=5)
    assert len(result.content.splitlines()) == 5
    assert result.content.splitlines()[-1] == "f1.txt:2:needle"
    assert result.message.startswith(
        "[Showing 5 of 30 matching lines from 2 of 10 files; 25 more left out, 8 files not shown."
    )
    assert "Narrow the search" in result.message
    assert result.render().splitlines()[-1] == result.message


def test_output_stays_under_max_output_bytes(ctx: ToolContext, ws: Path) -> None:
    ctx.loaded.settings = ctx.settings.model_copy(update={"max_output_bytes": 2048})
    write(ws, {"wide.txt": ("needle " + "w" * 400 + "\n") * 50})
    result = call(ctx, "grep_files", pattern="needle")
    assert len(result.render().encode()) <= 2048
    assert "(output size limit reached)" in result.message


def test_context_lines_use_grep_separators(ctx: ToolContext, ws: Path) -> None:
    write(ws, {"f.txt": "one\nneedle\nthree\nfour\nfive\nsix\nneedle\n"})
    result = call(ctx, "grep_files", pattern="needle", context_lines=1)
    assert result.content == "f.txt-1-one\nf.txt:2:needle\nf.txt-3-three\n--\nf.txt-6-six\nf.txt:7:needle"


def test_case_insensitive_and_fixed_strings(ctx: ToolContext, ws: Path) -> None:
    write(ws, {"f.txt": "Call(a.b)\ncall(axb)\n"})
    assert call(ctx, "grep_files", pattern="CALL", case_insensitive=True).data["matches"] == 2
    assert call(ctx, "grep_files", pattern="call(a.b)", fixed_strings=True, case_insensitive=True).content == (
        "f.txt:1:Call(a.b)"
    )


def test_count_and_files_with_matches_modes(ctx: ToolContext, ws: Path) -> None:
    write(ws, {"a.txt": "x\nx\n", "b/c.txt": "x\n", "d.txt": "y\n"})
    count = call(ctx, "grep_files", pattern="x", output_mode="count")
    assert (count.content, count.message) == ("a.txt:2\nb/c.txt:1", "3 matching lines in 2 files.")
    listed = call(ctx, "grep_files", pattern="x", output_mode="files_with_matches")
    assert (listed.content, listed.message) == ("a.txt\nb/c.txt", "2 files match.")


def test_no_matches_is_a_success_that_says_what_was_searched(ctx: ToolContext, ws: Path) -> None:
    write(ws, {"a.py": "x\n", "b.py": "y\n", "c.md": "z\n"})
    result = call(ctx, "grep_files", pattern="needle", file_pattern="*.py")
    assert result.success
    assert result.message.startswith("No matches for 'needle' in . matching file_pattern '*.py' (2 files searched).")


# What a no-match grep must count: 9 files searched by default (hidden, empty and binary ones included).
SEARCHED_TREE: dict[str, str | bytes] = {
    ".gitignore": "build/\n*.log\n",
    ".ignore": "scratch/\n",
    ".env": "KEY=1\n",
    "a.py": "x\n",
    "src/b.py": "x\n",
    "src/c.md": "x\n",
    "src/deep/d.py": "x\n",
    "src/deep/e.txt": "",
    "image.bin": b"\x00\x01x",
    "build/out.py": "x\n",  # ignored from here on: 4 files that include_ignored adds
    "build/lib/more.py": "x\n",
    "app.log": "x\n",
    "scratch/tmp.py": "x\n",
    "huge.py": "x\n" * 600,  # over max_file_size_bytes: never searched unless named as path
    ".git/config": "x\n",  # never searched
}


@pytest.mark.parametrize(
    ("args", "searched"),
    [
        ({}, "9 files"),
        ({"include_ignored": True}, "13 files"),
        ({"output_mode": "files_with_matches"}, "9 files"),
        ({"file_pattern": "*.py"}, "3 files"),
        ({"file_pattern": "*.py", "include_ignored": True}, "6 files"),
        ({"file_pattern": "* !*.py", "output_mode": "count"}, "6 files"),
        ({"file_pattern": "src/*.py"}, "1 file"),
        ({"file_pattern": "src/**/*.py"}, "2 files"),
        ({"file_pattern": "src/"}, "4 files"),
        ({"file_pattern": "*.py !src/"}, "1 file"),
        ({"file_pattern": "**/deep/*"}, "2 files"),
        ({"file_pattern": "nowhere/*.py"}, "0 files"),
        ({"path": "src"}, "4 files"),
        ({"path": "src/c.md"}, "1 file"),
        ({"path": "huge.py"}, "1 file"),
        ({"path": "src/c.md", "file_pattern": "*.py"}, "0 files"),
    ],
    ids=lambda value: " ".join(f"{k}={v}" for k, v in value.items()) if isinstance(value, dict) else value,
)
def test_no_match_counts_exactly_the_files_searched(
    ws: Path, monkeypatch: pytest.MonkeyPatch, args: dict[str, object], searched: str
) -> None:
    """Regression: a no-match answer listed every file a second time to count them (1.5x the cost of rg).
    The count now comes from the search itself; it must stay exact, leave out ignored, oversized and .git
    files, and read the same with the fallback."""
    repo(ws, SEARCHED_TREE)
    ctx = open_tool_context(load_settings(ws))
    ctx.loaded.settings = ctx.settings.model_copy(update={"max_file_size_bytes": 1000})
    with_rg = call(ctx, "grep_files", pattern="needle", **args)
    assert with_rg.data["backend"] == "ripgrep"
    assert f"({searched} searched)." in with_rg.message, with_rg.message
    monkeypatch.setattr(ripgrep, "locate_rg", lambda: None)
    with_python = call(ctx, "grep_files", pattern="needle", **args)
    assert (with_python.data["backend"], with_python.message) == ("python", with_rg.message)


def test_a_file_named_as_path_keeps_exact_counts_past_max_results(ctx: ToolContext, ws: Path) -> None:
    """A named file's lines come first; the count pass runs only when max_results cut them."""
    write(ws, {"many.txt": "needle\n" * 30, "few.txt": "needle\nx\n"})
    cut = call(ctx, "grep_files", pattern="needle", path="many.txt", max_results=5)
    assert cut.message.startswith("[Showing 5 of 30 matching lines from 1 of 1 files; 25 more left out.")
    assert call(ctx, "grep_files", pattern="needle", path="many.txt", output_mode="count").content == "many.txt:30"
    whole = call(ctx, "grep_files", pattern="needle", path="few.txt")
    assert (whole.content, whole.message) == ("few.txt:1:needle", "1 matching line in 1 file.")


def test_invalid_regex_gives_the_engine_message_and_position(ctx: ToolContext, ws: Path) -> None:
    write(ws, {"a.txt": "x\n"})
    result = call(ctx, "grep_files", pattern="foo(?=bar)")
    assert result.code == ErrorCode.INVALID_PATTERN
    assert result.error == (
        "the pattern 'foo(?=bar)' is not a valid regex: "
        "look-around, including look-ahead and look-behind, is not supported (at position 3)"
    )
    assert result.content == "  foo(?=bar)\n     ^"
    assert "fixed_strings" in result.message


def test_a_pattern_with_a_line_break_is_refused(ctx: ToolContext) -> None:
    result = call(ctx, "grep_files", pattern="first\nsecond")
    assert result.code == ErrorCode.INVALID_PATTERN
    assert "single lines" in (result.error or "")


def test_invalid_file_pattern_is_refused(ctx: ToolContext) -> None:
    result = call(ctx, "grep_files", pattern="x", file_pattern="../secrets/*")
    assert result.code == ErrorCode.INVALID_PATTERN
    assert "'..'" in (result.error or "")


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("../elsewhere", ErrorCode.OUTSIDE_WORKSPACE),
        ("nope", ErrorCode.NOT_FOUND),
        ("/etc", ErrorCode.OUTSIDE_WORKSPACE),
    ],
)
def test_paths_outside_or_missing_get_workspace_errors(ctx: ToolContext, path: str, code: ErrorCode) -> None:
    assert call(ctx, "grep_files", pattern="x", path=path).code == code


def test_a_cancelled_search_says_so(ctx: ToolContext, ws: Path) -> None:
    write(ws, {"a.txt": "x\n"})
    ctx.cancel.set()
    assert call(ctx, "grep_files", pattern="x").code == ErrorCode.CANCELLED


def test_ripgrep_comes_from_the_wheel_next_to_the_interpreter() -> None:
    found = ripgrep.locate_rg()
    assert found is not None
    assert Path(found).parent == Path(sysconfig.get_path("scripts"))


def test_without_ripgrep_the_fallback_answers(ctx: ToolContext, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(ws, {"src/a.py": "needle\n"})
    monkeypatch.setattr(ripgrep, "locate_rg", lambda: None)
    result = call(ctx, "grep_files", pattern="needle")
    assert (result.content, result.data["backend"]) == ("src/a.py:1:needle", "python")


def test_descriptions_stay_short() -> None:
    """Both descriptions go to the model on every request."""
    for name in ("grep_files", "find_files"):
        assert len(tools_by_name()[name].description) < 600, name


def test_sneakycode_tool_runs_grep_files(ws: Path) -> None:
    write(ws, {"a.py": "def main():\n"})
    result = run_cli("tool", "--workspace", str(ws), "grep_files", '{"pattern": "def main"}')
    assert result.code == 0, result.stderr
    assert result.stdout == "a.py:1:def main():\n\n1 matching line in 1 file.\n"
