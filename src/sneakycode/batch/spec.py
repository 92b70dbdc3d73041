"""A batch task: one JSON line of the task file, validated up front so a bad line stops the batch before
anything starts. SWE-bench-style instances convert into the same tasks (`from_swebench`).

    {"id": "fix-1", "repo": "/src/app", "ref": "main", "prompt": "Fix the failing test",
     "setup": "pip install -e .", "test": "pytest -q", "timeout": 600, "max_turns": 30}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from sneakycode.config import PermissionMode
from sneakycode.errors import ConfigError

URL_PREFIXES = ("http://", "https://", "ssh://", "git://", "file://", "git@")


class TaskSpec(BaseModel):
    """One task: where the code is, what to ask, how to judge the result, and its limits and overrides."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$", description="Unique name; a folder name too.")
    repo: str = Field(min_length=1, description="A local git repository or a git URL.")
    ref: str | None = Field(None, description="Commit or branch to start from (default: the repository's HEAD).")
    prompt: str = Field(min_length=1)
    setup: str | None = Field(None, description="Shell command run in the task's copy before the agent.")
    test: str | None = Field(None, description="Shell command run after the agent; exit code 0 passes the task.")
    timeout: float | None = Field(None, gt=0, description="Seconds for the whole task (setup, agent, test).")
    max_turns: int | None = Field(None, ge=1)
    max_tokens: int | None = Field(None, ge=1)
    max_cost: float | None = Field(None, gt=0)
    model: str | None = None
    provider: str | None = None
    base_url: str | None = None
    permissions: PermissionMode | None = Field(None, description="The permission mode of the agent's run.")
    sandbox_hide: tuple[str, ...] = Field(
        (), description="Absolute paths the task's sandboxed commands (setup, the agent's, test) never see."
    )
    until: str | None = Field(None, description="The agent's goal check (`-p --until`): it works until it passes.")
    until_files: tuple[str, ...] | None = Field(None, description="The check's files (`--until-files`).")
    check_timeout: int | None = Field(None, ge=1, description="Seconds the goal check may run (`--check-timeout`).")
    escalate: Literal["after", "never", "now"] | None = Field(
        None, description="When the fallback model works on the goal (`--escalate`; unset: after the main model).")

    @field_validator("prompt")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the prompt is blank")
        return value

    @field_validator("sandbox_hide")
    @classmethod
    def _absolute(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if relative := [path for path in value if not path.startswith("/")]:
            raise ValueError(f"not absolute: {', '.join(relative)}")
        return value

    @property
    def is_url(self) -> bool:
        return self.repo.startswith(URL_PREFIXES)


class TaskFileError(ConfigError):
    """The task file has bad lines; `problems` names each one with its line number."""

    def __init__(self, path: Path, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(f"{path}: {len(problems)} bad line(s), nothing was started:\n" + "\n".join(problems))


def _explain(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in item['loc']) or 'line'}: {item['msg']}" for item in error.errors()
    )


def parse_tasks(lines: list[str], path: Path) -> list[TaskSpec]:
    """Every task of a JSONL file's lines (blank lines skipped); a TaskFileError lists every bad line, so
    the whole file can be fixed in one go. Relative local `repo` paths are taken from the file's folder."""
    tasks: list[TaskSpec] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data: Any = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"line {number}: not JSON ({exc.msg} at column {exc.colno})")
            continue
        if not isinstance(data, dict):
            problems.append(f"line {number}: expected a JSON object, got {type(data).__name__}")
            continue
        try:
            task = TaskSpec.model_validate(data)
        except ValidationError as exc:
            problems.append(f"line {number}: {_explain(exc)}")
            continue
        if task.id in seen:
            problems.append(f"line {number}: id {task.id!r} is already used on line {seen[task.id]}")
            continue
        seen[task.id] = number
        if not task.is_url:
            repo = (path.parent / task.repo).resolve()
            if not (repo / ".git").exists():
                problems.append(f"line {number}: repo {task.repo!r} is not a git repository ({repo})")
                continue
            task = task.model_copy(update={"repo": str(repo)})
        tasks.append(task)
    if problems:
        raise TaskFileError(path, problems)
    if not tasks:
        raise TaskFileError(path, ["the file holds no task"])
    return tasks


def load_tasks(path: Path) -> list[TaskSpec]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the task file {path}: {exc}") from None
    return parse_tasks(text.splitlines(), path)


def from_swebench(path: Path, repos_dir: Path | None) -> list[TaskSpec]:
    """Tasks from SWE-bench-style instances (a JSON list or JSONL): `instance_id`, `repo` ("owner/name"),
    `base_commit`, `problem_statement`, and an optional `test_cmd`/`test_command`. With `repos_dir` the
    repository is the local mirror `repos_dir/owner__name` (or `repos_dir/name`); otherwise it is cloned."""
    try:
        text = path.read_text(encoding="utf-8")
        stripped = text.lstrip()
        rows: list[Any] = json.loads(text) if stripped.startswith("[") else [
            json.loads(line) for line in text.splitlines() if line.strip()
        ]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read the SWE-bench file {path}: {exc}") from None
    lines: list[str] = []
    for row in rows:
        if not isinstance(row, dict):
            lines.append(json.dumps(row))  # reported by parse_tasks with its position
            continue
        name = str(row.get("repo", ""))
        repo = f"https://github.com/{name}.git"
        if repos_dir is not None:
            candidates = [repos_dir / name.replace("/", "__"), repos_dir / name.split("/")[-1]]
            repo = str(next((c for c in candidates if c.exists()), candidates[0]).resolve())
        task = {
            "id": row.get("instance_id"), "repo": repo, "ref": row.get("base_commit"),
            "prompt": row.get("problem_statement"), "test": row.get("test_cmd") or row.get("test_command"),
        }  # fmt: skip
        lines.append(json.dumps({key: value for key, value in task.items() if value is not None}))
    return parse_tasks(lines, path)
