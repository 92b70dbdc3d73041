"""The sample repository of sample_repo.py, made in the test's workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tools.codemap.sample_repo import make_repo


@pytest.fixture
def repo(ws: Path) -> Path:
    return make_repo(ws)
