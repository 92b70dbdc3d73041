"""The peers' test cases live in the project's shared/ folder beside the repository (never in it).

CI and every developer machine have it there; without it the peer-case tests fail with this message rather
than skip, so a missing folder is noticed instead of silently testing less.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SEARCHED = (REPO.parent / "shared", Path("/work/shared"))


def load_peer_cases(name: str) -> list[dict[str, Any]]:
    for shared in SEARCHED:
        path = shared / "data" / "peer-cases" / name
        if path.is_file():
            cases: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
            return cases
    places = " or ".join(str(shared / "data" / "peer-cases" / name) for shared in SEARCHED)
    raise FileNotFoundError(f"peer cases not found at {places}: shared/ must sit beside the repository")
