"""Task files and SWE-bench instances become validated tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sneakycode.batch.spec import TaskFileError, from_swebench, load_tasks
from tests.batch.scenario import make_repo


def test_relative_repos_are_taken_from_the_task_files_folder(tmp_path: Path) -> None:
    make_repo(tmp_path, "r", {"a": "a\n"})
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps({"id": "t", "repo": "r", "prompt": "p", "permissions": "plan"}) + "\n\n")
    (task,) = load_tasks(path)
    assert task.repo == str((tmp_path / "r").resolve()) and task.permissions == "plan"


def test_an_empty_file_and_an_unknown_mode_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n")
    with pytest.raises(TaskFileError, match="no task"):
        load_tasks(path)
    path.write_text(json.dumps({"id": "t", "repo": "https://example.com/r.git", "prompt": "p", "permissions": "x"}))
    with pytest.raises(TaskFileError, match="line 1: permissions"):
        load_tasks(path)


def test_swebench_instances_use_the_local_mirrors(tmp_path: Path) -> None:
    mirror = make_repo(tmp_path / "mirrors", "astropy__astropy", {"a": "a\n"})
    instances = [{"instance_id": "astropy__astropy-1", "repo": "astropy/astropy", "base_commit": "abc123",
                  "problem_statement": "It breaks.", "test_cmd": "pytest -q"}]  # fmt: skip
    path = tmp_path / "swe.json"
    path.write_text(json.dumps(instances))
    (task,) = from_swebench(path, tmp_path / "mirrors")
    assert (task.id, task.repo, task.ref, task.prompt, task.test) == (
        "astropy__astropy-1", str(mirror.resolve()), "abc123", "It breaks.", "pytest -q")
    (remote,) = from_swebench(path, None)
    assert remote.repo == "https://github.com/astropy/astropy.git" and remote.is_url
