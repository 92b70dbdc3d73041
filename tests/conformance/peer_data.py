"""The peers' test cases live in the project's shared/ folder beside the repository (never in it).

`make conformance` runs these suites; `make test` never does, so a clone with nothing beside it still
passes. Without the data they fail with this message rather than skip, so a missing folder is noticed
instead of silently testing less. SNEAKYCODE_SHARED names another shared/ folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def shared_folder() -> Path:
    return Path(os.environ.get("SNEAKYCODE_SHARED") or REPO.parent / "shared")


def load_peer_cases(name: str) -> list[dict[str, Any]]:
    path = shared_folder() / "data" / "peer-cases" / name
    if not path.is_file():
        raise FileNotFoundError(
            f"peer cases not found at {path}: ../shared must sit beside the repository (or set SNEAKYCODE_SHARED)"
        )
    cases: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return cases
