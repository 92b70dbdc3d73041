"""The same six tasks on the Ray executor, with a local Ray (skipped only where Ray or bubblewrap is missing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.batch.scenario import check_six, results, six_tasks
from tests.conftest import run_cli
from tests.process.test_sandbox import require_bwrap

pytest.importorskip("ray")

pytestmark = pytest.mark.ray


@pytest.mark.slow  # a local Ray cluster starts first: 10-30 s
def test_six_tasks_on_a_local_ray(tmp_path: Path) -> None:
    require_bwrap(tmp_path)  # each task's agent runs under bubblewrap
    with six_tasks(tmp_path) as scenario:
        out = tmp_path / "out"
        run = run_cli("batch", str(scenario.task_file), "--out", str(out), "--executor", "ray", "--workers", "2",
                      env={"RAY_ADDRESS": ""}, timeout=300)  # fmt: skip
        check_six(scenario, out)
    assert run.code == 1, run.stderr
    assert all(line.get("ray_node") for line in results(out))
