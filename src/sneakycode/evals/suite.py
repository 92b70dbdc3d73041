"""An eval suite: a folder of tasks, each a tiny repository, a prompt, a hidden test and a reference solution.

    SUITE/suite.toml            name = "core", version = "1.0.0", description = "..."
    SUITE/tasks/ID/task.toml    prompt, test, language, kind; optional timeout, max_turns
    SUITE/tasks/ID/repo/        what the model gets: the task's repository at its start
    SUITE/tasks/ID/hidden/      the hidden test: copied into the task's copy only after the agent finished
    SUITE/tasks/ID/solution/    the reference solution: files that replace or add to repo/ (for the check)

The bundled suites live beside this module (`suites/NAME`); `--suite DIR` names a folder of the same shape.
Everything is read and checked before anything runs, so a bad task stops the eval with every problem named.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

from sneakycode.errors import ConfigError

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
KINDS = ("bug", "feature", "refactor", "test", "config", "docs")
TASK_KEYS = {"prompt", "test", "language", "kind", "timeout", "max_turns"}
# The hidden files travel inside the test command (see materialise.py), which is one argv string: Linux
# refuses a single argument over 128 KiB, so the hidden test of a task is kept well under it.
MAX_HIDDEN_BYTES = 96 * 1024
DEFAULT_TIMEOUT = 600.0
DEFAULT_MAX_TURNS = 40


@dataclass(frozen=True)
class EvalTask:
    id: str
    prompt: str
    test: str
    language: str
    kind: str
    folder: Path
    timeout: float = DEFAULT_TIMEOUT
    max_turns: int = DEFAULT_MAX_TURNS
    hidden: dict[str, str] = field(default_factory=dict)
    """Relative path -> text of each hidden file."""

    @property
    def repo_dir(self) -> Path:
        return self.folder / "repo"

    @property
    def solution_dir(self) -> Path:
        return self.folder / "solution"

    @property
    def files(self) -> list[str]:
        """The repository's files as the model first sees them."""
        return sorted(str(p.relative_to(self.repo_dir)) for p in task_files(self.repo_dir))


@dataclass(frozen=True)
class Suite:
    name: str
    version: str
    description: str
    folder: Path
    tasks: list[EvalTask]

    def select(self, ids: list[str] | None) -> list[EvalTask]:
        """The tasks named by --tasks (in the suite's order), or all; a ConfigError names unknown ids."""
        if not ids:
            return list(self.tasks)
        known = {task.id for task in self.tasks}
        unknown = [task_id for task_id in ids if task_id not in known]
        if unknown:
            raise ConfigError(f"--tasks: no task {', '.join(map(repr, unknown))} in suite {self.name!r} "
                              f"(it has {len(known)}: see {self.folder / 'tasks'})")  # fmt: skip
        wanted = set(ids)
        return [task for task in self.tasks if task.id in wanted]


def bundled_suites() -> dict[str, Path]:
    root = Path(str(files("sneakycode.evals").joinpath("suites")))
    return {path.name: path for path in sorted(root.iterdir()) if (path / "suite.toml").is_file()}


def resolve_suite(name_or_dir: str) -> Path:
    """`--suite`: a bundled suite's name, or a folder holding suite.toml."""
    bundled = bundled_suites()
    if name_or_dir in bundled:
        return bundled[name_or_dir]
    path = Path(name_or_dir)
    if (path / "suite.toml").is_file():
        return path.resolve()
    raise ConfigError(f"--suite {name_or_dir!r} is neither a bundled suite ({', '.join(bundled)}) nor a folder "
                      "holding suite.toml (see docs/models.md#eval)")  # fmt: skip


def _read_toml(path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None


BYTECODE = ("__pycache__", "*.pyc")
"""What Python leaves beside a suite's files: pip byte-compiles an installed package, the suite included, so
an installed suite's folders hold it; it is never part of a task."""


def task_files(folder: Path) -> list[Path]:
    """The files of a task's folder (repo/, hidden/, solution/), without Python's bytecode."""
    return sorted(p for p in folder.rglob("*")
                  if p.is_file() and "__pycache__" not in p.relative_to(folder).parts and p.suffix != ".pyc")


def _hidden_files(folder: Path, problems: list[str]) -> dict[str, str]:
    hidden: dict[str, str] = {}
    total = 0
    for path in task_files(folder):
        relative = str(path.relative_to(folder))
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(f"{path}: a hidden file must be UTF-8 text ({exc})")
            continue
        total += len(text.encode())
        hidden[relative] = text if text.endswith("\n") else text + "\n"
    if total > MAX_HIDDEN_BYTES:
        problems.append(f"{folder}: the hidden files hold {total} bytes; at most {MAX_HIDDEN_BYTES}")
    return hidden


def _load_task(folder: Path, problems: list[str]) -> EvalTask | None:
    where = folder / "task.toml"
    before = len(problems)
    if not ID_PATTERN.match(folder.name):
        problems.append(f"{folder}: a task folder's name is its id: letters, digits, '.', '_', '-'")
    data = _read_toml(where) if where.is_file() else None
    if data is None:
        problems.append(f"{where}: missing")
        return None
    unknown = sorted(set(data) - TASK_KEYS)
    if unknown:
        problems.append(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(TASK_KEYS))}")
    for key in ("prompt", "test", "language"):
        if not isinstance(data.get(key), str) or not str(data[key]).strip():
            problems.append(f"{where}: {key} must be a non-empty string")
    if data.get("kind") not in KINDS:
        problems.append(f"{where}: kind must be one of {', '.join(KINDS)}")
    timeout, max_turns = data.get("timeout", DEFAULT_TIMEOUT), data.get("max_turns", DEFAULT_MAX_TURNS)
    if not isinstance(timeout, int | float) or timeout <= 0:
        problems.append(f"{where}: timeout must be a positive number of seconds")
        timeout = DEFAULT_TIMEOUT
    if not isinstance(max_turns, int) or max_turns < 1:
        problems.append(f"{where}: max_turns must be a positive integer")
        max_turns = DEFAULT_MAX_TURNS
    for sub in ("repo", "hidden"):
        if not (folder / sub).is_dir():
            problems.append(f"{folder / sub}: missing (see docs/models.md#eval)")
    hidden = _hidden_files(folder / "hidden", problems) if (folder / "hidden").is_dir() else {}
    if (folder / "hidden").is_dir() and not hidden:
        problems.append(f"{folder / 'hidden'}: holds no file; the hidden test is what decides a task")
    if len(problems) > before:
        return None
    return EvalTask(id=folder.name, prompt=str(data["prompt"]).strip(), test=str(data["test"]),
                    language=str(data["language"]), kind=str(data["kind"]), folder=folder,
                    timeout=float(timeout), max_turns=max_turns, hidden=hidden)  # fmt: skip


def load_suite(name_or_dir: str) -> Suite:
    """The suite with every task read and checked; a ConfigError lists every problem at once."""
    folder = resolve_suite(name_or_dir)
    meta = _read_toml(folder / "suite.toml")
    problems: list[str] = []
    for key in ("name", "version"):
        if not isinstance(meta.get(key), str) or not str(meta[key]).strip():
            problems.append(f"{folder / 'suite.toml'}: {key} must be a non-empty string")
    tasks_dir = folder / "tasks"
    folders = sorted(p for p in tasks_dir.iterdir() if p.is_dir()) if tasks_dir.is_dir() else []
    tasks = [task for path in folders if (task := _load_task(path, problems)) is not None]
    if not folders:
        problems.append(f"{tasks_dir}: holds no task folder")
    if problems:
        raise ConfigError(f"suite {folder}: {len(problems)} problem(s), nothing was run:\n" + "\n".join(problems))
    return Suite(str(meta["name"]), str(meta["version"]), str(meta.get("description", "")), folder, tasks)
