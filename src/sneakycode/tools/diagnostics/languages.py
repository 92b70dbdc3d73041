"""Which language a file is, from its name or, for a file without an extension, its shebang line.

Hand-written: tree-sitter-language-pack 0.13 has no detection, and this table also decides which files get
checked at all (prose and data formats without a grammar worth trusting are left alone).
"""

from __future__ import annotations

import re
from pathlib import PurePath

# Names are tree-sitter-language-pack's; `jsonc` (JSON with comments) is parsed as JSON without the loader.
EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".json": "json", ".jsonc": "jsonc", ".toml": "toml", ".yaml": "yaml", ".yml": "yaml",
    ".go": "go", ".rs": "rust", ".java": "java", ".kt": "kotlin", ".kts": "kotlin", ".scala": "scala",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
    ".cs": "csharp", ".rb": "ruby", ".php": "php", ".lua": "lua", ".swift": "swift",
    ".sh": "bash", ".bash": "bash", ".css": "css", ".scss": "scss", ".html": "html", ".htm": "html",
}  # fmt: skip
# Files whose JSON allows comments and trailing commas by convention (the loader would flag them).
JSONC_NAMES = re.compile(r"^(tsconfig|jsconfig)(\..*)?\.json$|^\.?(eslintrc|babelrc)\.json$|^devcontainer\.json$")
INTERPRETERS: dict[str, str] = {
    "python": "python", "pypy": "python", "bash": "bash", "sh": "bash", "dash": "bash", "node": "javascript",
    "deno": "typescript", "ruby": "ruby", "php": "php", "lua": "lua",
}  # fmt: skip
_VERSION_SUFFIX = re.compile(r"[\d.]+$")


def language_of(path: str, text: str) -> str | None:
    """The language to check `path` as, or None when it is not one we check."""
    pure = PurePath(path)
    suffix = pure.suffix.lower()
    if suffix == ".json" and (JSONC_NAMES.match(pure.name) or pure.parent.name == ".vscode"):
        return "jsonc"
    if suffix:
        return EXTENSIONS.get(suffix)
    return _shebang_language(text)


def _shebang_language(text: str) -> str | None:
    if not text.startswith("#!"):
        return None
    words = text[2 : text.find("\n") if "\n" in text else len(text)].split()
    if words and PurePath(words[0]).name == "env":
        # `#!/usr/bin/env -S python3 -u`: the program is the first word that is not an option of env.
        words = [word for word in words[1:] if not word.startswith("-")]
    if not words:
        return None
    program = _VERSION_SUFFIX.sub("", PurePath(words[0]).name)
    return INTERPRETERS.get(program)
