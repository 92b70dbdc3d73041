"""`sneakycode.run(task, ...)`: one request in a fresh session, the five-line way to embed SneakyCode."""

from __future__ import annotations

from typing import Any

from sneakycode.api.options import Options
from sneakycode.api.result import Result
from sneakycode.api.session import Session


def run(task: str, options: Options | None = None, /, **fields: Any) -> Result:
    """Run `task` to its end in a new session and close it. Options come as an `Options` or as its fields
    (`sneakycode.run("fix the test", workspace="repo", model="...", mode="auto-edit")`)."""
    chosen = Options(**fields) if options is None else (_with(options, fields) if fields else options)
    with Session(chosen) as session:
        return session.run(task)


def _with(options: Options, fields: dict[str, Any]) -> Options:
    from dataclasses import replace

    return replace(options, **fields)
