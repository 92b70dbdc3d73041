"""The pure-Python fallback gives exactly ripgrep's answers: same files, same lines, same counts, same text.

One tree holds the hard cases (nested and negated ignore rules, the `*` / `!*/` idiom, .ignore and
.git/info/exclude, hidden files, binary, UTF-16, BOM, CRLF, long lines, symlinks, oversized files); every
call runs once with ripgrep and once with the fallback and the two results must be identical.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from sneakycode.config import load_settings
from sneakycode.errors import ErrorCode
from sneakycode.tools.base import ToolContext, ToolResult
from sneakycode.tools.context import open_tool_context
from sneakycode.tools.search import ripgrep
from tests.conftest import call

MAX_FILE_SIZE = 4096

TREE: dict[str, bytes | str] = {
    ".gitignore": "*.log\n!keep.log\nbuild/\n/top_only.txt\nnode_modules/\ndocs/**/*.tmp\n# comment\n\\#hash.txt\n",
    ".ignore": "private/\n",
    ".git/info/exclude": "excluded_by_info.txt\n",
    ".git/config": "needle in git config\n",
    ".env.example": "NEEDLE_TOKEN=needle\n",
    ".config/settings.toml": "key = 'needle'\n",
    "app.log": "needle in a log\n",
    "keep.log": "needle kept\n",
    "top_only.txt": "needle at the top\n",
    "nested/top_only.txt": "needle nested, not anchored\n",
    "#hash.txt": "needle hash\n",
    "excluded_by_info.txt": "needle excluded\n",
    "private/secret.txt": "needle secret\n",
    "build/out.py": "needle built\n",
    "tools/build-scripts/make.py": "def needle(): pass\n",
    "dist-info/meta.py": "needle = 1\n",
    "node_modules/pkg/index.js": "needle()\n",
    "docs/guide/page.tmp": "needle tmp\n",
    "docs/guide/page.md": "# needle docs\n",
    "src/.gitignore": "generated_*.py\n!generated_keep.py\n",
    "src/generated_a.py": "needle generated\n",
    "src/generated_keep.py": "needle generated but kept\n",
    "src/index.ts": "export const needle = 123;\nconst aab = 'a.b';\n",
    "src/components/Button.tsx": "// needle button\nexport function Button() {}\n",
    "src/components/Button.test.tsx": "test('needle', () => {});\n",
    "src/utils/helper.go": "func needle() {} // 456\n",
    "src/utils/helper_test.go": "func TestNeedle() {}\n",
    "whitelisted/.gitignore": "*\n!*/\n!*.py\n",
    "whitelisted/a.py": "needle a\n",
    "whitelisted/b.txt": "needle b\n",
    "whitelisted/sub/c.py": "needle c\n",
    "whitelisted/sub/d.md": "needle d\n",
    "a/b/c/d/deep.py": "needle deep\n",
    "crlf.txt": b"needle\r\nneedle end\r\nplain\r\n",
    "bom.txt": b"\xef\xbb\xbfneedle after bom\n",
    "utf16.txt": "needle in utf16\n".encode("utf-16"),
    "latin1.txt": b"caf\xe9 needle\n",
    "binary.bin": b"needle\x00\x01\x02",
    "unicode.txt": "naïve needle café\nΣΊΣΥΦΟΣ rolls\n",
    "long.txt": "x" * 700 + " needle " + "y" * 700 + "\n",
    "big.txt": "needle\n" + "z" * MAX_FILE_SIZE,
    "many.txt": "".join(f"needle {i}\n" if i % 3 else f"other {i}\n" for i in range(180)),
    "no_newline.txt": "last needle",
    "empty.txt": "",
    "config.yaml": "needle: true\n",
    "sub/config.yaml": "needle: false\n",
    "tests/test_search.py": "def test_needle(): pass\n",
}

GREP_CALLS: list[dict[str, Any]] = [
    {"pattern": "needle"},
    {"pattern": "needle", "output_mode": "count"},
    {"pattern": "needle", "output_mode": "files_with_matches"},
    {"pattern": "needle", "output_mode": "files_with_matches", "max_results": 4},
    {"pattern": "needle$"},
    {"pattern": "^needle"},
    {"pattern": "end.$"},
    {"pattern": "NEEDLE", "case_insensitive": True},
    {"pattern": "σίσυφος", "case_insensitive": True},
    {"pattern": "need.e", "context_lines": 2},
    {"pattern": "needle", "max_results": 5},
    {"pattern": "needle", "max_results": 130, "context_lines": 1},
    {"pattern": "needle|other", "path": "many.txt", "max_results": 20, "context_lines": 3},
    {"pattern": "n(ee)+dle\\b"},
    {"pattern": "\\bneedle\\b", "file_pattern": "*.py"},
    {"pattern": "needle", "file_pattern": "src/**/*.tsx !*.test.tsx"},
    {"pattern": "needle", "file_pattern": "src/*.ts"},
    {"pattern": "needle", "file_pattern": "*.{go,ts}"},
    {"pattern": "needle", "file_pattern": "**/utils/*"},
    {"pattern": "needle", "file_pattern": "nothere/*.py"},
    {"pattern": "needle", "include_ignored": True},
    {"pattern": "needle", "path": "src"},
    {"pattern": "needle", "path": "src", "file_pattern": "components/"},
    {"pattern": "needle", "path": "src/index.ts"},
    {"pattern": "needle", "path": "build"},
    {"pattern": "needle", "path": "whitelisted"},
    {"pattern": "a.b", "fixed_strings": True},
    {"pattern": "[[:digit:]]{3}"},
    {"pattern": "(?i)Needle|café"},
    {"pattern": "\\x{63}af"},
    {"pattern": "\\<needle\\>", "output_mode": "count"},
    {"pattern": "a*+b", "path": "src"},
    {"pattern": "\\Aneedle\\z"},
    {"pattern": "x{3}(?i) NEEDLE"},
    {"pattern": "[[:^alpha:][:space:]]{3}"},
    {"pattern": "\\d+$|^plain", "path": "crlf.txt"},
    {"pattern": "(?U)\\w+\\s\\d", "output_mode": "count"},
    {"pattern": "(a+)+$"},
    {"pattern": "nothing matches this"},
    {"pattern": "nothing matches this", "file_pattern": "*.py"},
    {"pattern": "nothing matches this", "include_ignored": True},
    {"pattern": "nothing matches this", "output_mode": "files_with_matches", "path": "whitelisted"},
    {"pattern": "nothing matches this", "file_pattern": "src/**/*.ts* !*.test.tsx"},
    {"pattern": "nothing matches this", "file_pattern": "linked_dir/*.ts"},
    {"pattern": "nothing matches this", "path": "big.txt"},
]

FIND_CALLS: list[dict[str, Any]] = [
    {"pattern": "*"},
    {"pattern": "*.py"},
    {"pattern": "src/**/*.ts*"},
    {"pattern": "**/test_*.py"},
    {"pattern": "config.yaml"},
    {"pattern": "* !*.py !*.txt"},
    {"pattern": "*.py !whitelisted/"},
    {"pattern": "*", "include_ignored": True},
    {"pattern": "*.tsx", "path": "src"},
    {"pattern": "*", "path": "build"},
    {"pattern": "*", "sort": "mtime", "max_results": 7},
]

INVALID_PATTERNS = ["(?=x)", "foo(", "a{,3}", "\\1", "a{", "\\Z", "\\n", "\\r", "\\x0D"]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("search") / "project"
    for relative, content in TREE.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    (root / "linked.txt").symlink_to(root / "keep.log")
    (root / "linked_dir").symlink_to(root / "src", target_is_directory=True)
    for index, path in enumerate(sorted(root.rglob("*"))):
        os.utime(path, (1_700_000_000 + index, 1_700_000_000 + index), follow_symlinks=False)
    return root


def tool_context(root: Path) -> ToolContext:
    ctx = open_tool_context(load_settings(root))
    ctx.loaded.settings = ctx.settings.model_copy(update={"max_file_size_bytes": MAX_FILE_SIZE})
    return ctx


def both(root: Path, monkeypatch: pytest.MonkeyPatch, name: str, args: dict[str, Any]) -> tuple[ToolResult, ...]:
    assert ripgrep.locate_rg() is not None, "the ripgrep wheel is a dependency; rg must be installed"
    with_rg = call(tool_context(root), name, **args)
    with monkeypatch.context() as patch:
        patch.setattr(ripgrep, "locate_rg", lambda: None)
        with_python = call(tool_context(root), name, **args)
    assert with_rg.data.get("backend") in ("ripgrep", "none", None)
    assert with_python.data.get("backend") in ("python", "none", None)
    return with_rg, with_python


def comparable(result: ToolResult) -> tuple[object, ...]:
    return result.success, result.code, result.content, result.message, result.error


@pytest.mark.parametrize("args", GREP_CALLS, ids=lambda args: " ".join(f"{k}={v}" for k, v in args.items()))
def test_grep_files_fallback_equals_ripgrep(tree: Path, monkeypatch: pytest.MonkeyPatch, args: dict[str, Any]) -> None:
    with_rg, with_python = both(tree, monkeypatch, "grep_files", args)
    assert with_rg.success, with_rg.render()
    assert comparable(with_python) == comparable(with_rg)


@pytest.mark.parametrize("args", FIND_CALLS, ids=lambda args: " ".join(f"{k}={v}" for k, v in args.items()))
def test_find_files_fallback_equals_ripgrep(tree: Path, monkeypatch: pytest.MonkeyPatch, args: dict[str, Any]) -> None:
    with_rg, with_python = both(tree, monkeypatch, "find_files", args)
    assert with_rg.success, with_rg.render()
    assert comparable(with_python) == comparable(with_rg)


@pytest.mark.parametrize("pattern", INVALID_PATTERNS)
def test_both_backends_reject_what_ripgrep_rejects(
    tree: Path, monkeypatch: pytest.MonkeyPatch, pattern: str
) -> None:
    with_rg, with_python = both(tree, monkeypatch, "grep_files", {"pattern": pattern})
    assert with_rg.code == with_python.code == ErrorCode.INVALID_PATTERN, (with_rg.render(), with_python.render())


def test_fallback_explains_unicode_classes_it_cannot_run(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ripgrep runs \\p{Greek}; the fallback does not translate Unicode classes, so it says so instead of guessing."""
    with_rg, with_python = both(tree, monkeypatch, "grep_files", {"pattern": "\\p{Greek}+"})
    assert with_rg.success and "unicode.txt:2:" in with_rg.content
    assert with_python.code == ErrorCode.INVALID_PATTERN
    assert "\\p{...} are not supported by the Python fallback" in (with_python.error or "")
