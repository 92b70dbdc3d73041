"""Error codes the model can act on, and the few exceptions SneakyCode raises.

Hierarchy::

    SneakyError                 base of everything we raise on purpose
    ├── ConfigError             a settings file, variable or flag is wrong (names the source and key)
    ├── ToolError               a tool cannot do what was asked; becomes a failed ToolResult, never escapes
    │                           the registry (carries an ErrorCode, the problem, detail and a recovery hint)
    ├── ModelError              the model endpoint failed for good: bad key, unknown model, retries used up,
    │                           empty replies (the message says what to do; `kind` classifies it)
    └── CheckpointError         a workspace snapshot or a rewind could not be done (git missing, failing or
                                too slow); the loop turns checkpoints off with a notice, rewind reports it

The agent loop's own endings (finish, cancel, turn limit) are statuses of its RunResult, not exceptions.

Every ErrorCode has one entry in ERROR_DOCS: what it means and the hint the model is given by default.
`docs/errors.md` is generated from ERROR_DOCS (``python -m sneakycode.docs``) and a test keeps the
two identical.

The package keeps one concept a module: `codes` (ErrorCode), `docs` (ERROR_DOCS), `exceptions`; every name
is importable from `sneakycode.errors` itself.
"""

from __future__ import annotations

from sneakycode.errors.codes import ErrorCode
from sneakycode.errors.docs import ERROR_DOCS, ErrorDoc
from sneakycode.errors.exceptions import (
    CheckpointError,
    ConfigError,
    ModelError,
    ModelErrorKind,
    SneakyError,
    ToolError,
)

__all__ = [
    "ERROR_DOCS",
    "CheckpointError",
    "ConfigError",
    "ErrorCode",
    "ErrorDoc",
    "ModelError",
    "ModelErrorKind",
    "SneakyError",
    "ToolError",
]
