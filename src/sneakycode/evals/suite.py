"""An eval suite: a folder of tasks, each a tiny repository, a prompt, a hidden test and a reference solution.

    SUITE/suite.toml            name = "core", version = "1.0.0", description = "..."
    SUITE/tasks/ID/task.toml    prompt, test, language, kind; optional timeout, max_turns
    SUITE/tasks/ID/repo/        what the model gets: the task's repository at its start
    SUITE/tasks/ID/hidden/      the hidden test: copied into the task's copy only after the agent finished
    SUITE/tasks/ID/solution/    the reference solution: files that replace or add to repo/ (for the check)

The bundled suites live beside this module (`suites/NAME`); `--suite DIR` names a folder of the same shape.
Everything is read and checked before anything runs, so a bad task stops the eval with every problem named.
A suite is untrusted input: its files are walked and read only through content.py (regular files inside
the suite folder, bounded), its TOML files through the bounded reader, and a linked task folder is refused.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

from sneakycode.config.files import NotRegularFile, OverLimit, read_regular
from sneakycode.errors import ConfigError
from sneakycode.evals.content import SuiteFile, read_suite_file, suite_folder_files

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
KINDS = ("bug", "feature", "refactor", "test", "config", "docs")
TASK_KEYS = {"prompt", "test", "language", "kind", "timeout", "max_turns"}
# The hidden files travel inside the test command (see materialise.py), which is one argv string: Linux
# refuses a single argument over 128 KiB, so the hidden test of a task is kept well under it.
MAX_HIDDEN_BYTES = 96 * 1024
DEFAULT_TIMEOUT = 600.0
DEFAULT_MAX_TURNS = 40
TOML_LIMIT = 256 * 1024


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
    def suite_folder(self) -> Path:
        """The suite folder the task's files must lie in (SUITE/tasks/ID -> SUITE)."""
        return self.folder.parent.parent

    @property
    def files(self) -> list[str]:
        """The repository's files as the model first sees them."""
        return [file.relative for file in task_files(self.repo_dir, self.suite_folder)]


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

    @property
    def sandbox_hide(self) -> list[Path]:
        """What the tasks' sandboxed commands must not see: this suite's folder (its hidden tests and
        solutions) and the bundled suites, wherever the package is installed."""
        return list(dict.fromkeys([self.folder.resolve(), bundled_root().resolve()]))


def bundled_root() -> Path:
    """Where the bundled suites are installed (in site-packages, or the source tree of an editable install)."""
    return Path(str(files("sneakycode.evals").joinpath("suites")))


def bundled_suites() -> dict[str, Path]:
    root = bundled_root()
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
    """A suite's TOML file: a regular file (never a link) of at most TOML_LIMIT bytes."""
    try:
        return tomllib.loads(read_regular(path, TOML_LIMIT, follow_symlinks=False).decode("utf-8"))
    except NotRegularFile as exc:
        raise ConfigError(f"{path}: {exc.kind}, not a regular file, so it is not read") from None
    except OverLimit:
        raise ConfigError(f"{path}: larger than {TOML_LIMIT} bytes, so it is not read") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None


def task_files(folder: Path, suite_folder: Path) -> list[SuiteFile]:
    """The files of a task's folder (repo/, hidden/, solution/), without Python's bytecode; a ConfigError
    names every entry that is not a regular file inside the suite folder."""
    problems: list[str] = []
    files = suite_folder_files(folder, suite_folder, problems)
    if problems:
        raise ConfigError(f"{folder}: {len(problems)} problem(s):\n" + "\n".join(problems))
    return files


def _hidden_files(folder: Path, suite_folder: Path, problems: list[str]) -> dict[str, str]:
    hidden: dict[str, str] = {}
    total = 0
    for file in suite_folder_files(folder, suite_folder, problems):
        relative, path = file.relative, folder / file.relative
        try:
            text = read_suite_file(file).decode("utf-8")
        except (ConfigError, UnicodeDecodeError) as exc:
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
    if not where.exists() and not where.is_symlink():
        problems.append(f"{where}: missing")
        return None
    try:
        data = _read_toml(where)
    except ConfigError as exc:
        problems.append(str(exc))
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
    suite_folder = folder.parent.parent
    for sub in ("repo", "hidden"):
        if not (folder / sub).is_dir() and not (folder / sub).is_symlink():
            problems.append(f"{folder / sub}: missing (see docs/models.md#eval)")
    for sub in ("repo", "solution"):  # walked now, so a bad entry stops the eval before anything runs
        if (folder / sub).is_dir() or (folder / sub).is_symlink():
            suite_folder_files(folder / sub, suite_folder, problems)
    has_hidden = (folder / "hidden").is_dir() or (folder / "hidden").is_symlink()
    walked = len(problems)
    hidden = _hidden_files(folder / "hidden", suite_folder, problems) if has_hidden else {}
    if (folder / "hidden").is_dir() and not hidden and len(problems) == walked:
        problems.append(f"{folder / 'hidden'}: holds no file; the hidden test is what decides a task")
    if len(problems) > before:
        return None
    return EvalTask(id=folder.name, prompt=str(data["prompt"]).strip(), test=str(data["test"]),
                    language=str(data["language"]), kind=str(data["kind"]), folder=folder,
                    timeout=float(timeout), max_turns=max_turns, hidden=hidden)  # fmt: skip


def _task_folders(tasks_dir: Path, problems: list[str]) -> list[Path]:
    """The folders in SUITE/tasks; a link there is a problem (a task's files never come from elsewhere), a
    regular file (a README) is not a task."""
    if not tasks_dir.is_dir() or tasks_dir.is_symlink():
        return []
    folders = []
    for path in sorted(tasks_dir.iterdir()):
        mode = os.lstat(path).st_mode
        if stat.S_ISDIR(mode):
            folders.append(path)
        elif stat.S_ISLNK(mode):
            problems.append(f"{path}: a link; a task folder is a folder inside the suite")
    return folders


def load_suite(name_or_dir: str) -> Suite:
    """The suite with every task read and checked; a ConfigError lists every problem at once."""
    folder = resolve_suite(name_or_dir)
    meta = _read_toml(folder / "suite.toml")
    problems: list[str] = []
    for key in ("name", "version"):
        if not isinstance(meta.get(key), str) or not str(meta[key]).strip():
            problems.append(f"{folder / 'suite.toml'}: {key} must be a non-empty string")
    tasks_dir = folder / "tasks"
    folders = _task_folders(tasks_dir, problems)
    tasks = [task for path in folders if (task := _load_task(path, problems)) is not None]
    if not folders:
        problems.append(f"{tasks_dir}: holds no task folder")
    if problems:
        raise ConfigError(f"suite {folder}: {len(problems)} problem(s), nothing was run:\n" + "\n".join(problems))
    return Suite(str(meta["name"]), str(meta["version"]), str(meta.get("description", "")), folder, tasks)
