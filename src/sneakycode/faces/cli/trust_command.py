"""`sneakycode trust [--workspace DIR] [--revoke]`: the user's consent to what a repository's files ask for.

Until then, `.sneakycode/config.toml` may only tighten (see `config.untrusted_project_layer`), the MCP
servers it or `.mcp.json` names do not start, and the hooks of `.claude/settings.json` do not run. Trust is
recorded in the user's state folder with one hash over every such file (`config.REPOSITORY_FILES`), so
changing any of them asks again.
"""

from __future__ import annotations

import argparse

from sneakycode.config import REPOSITORY_FILES, LoadedSettings, record_trust, repository_files, trust_state_dir
from sneakycode.errors import ConfigError
from sneakycode.faces.cli.exit_codes import ExitCode
from sneakycode.faces.cli.startup import config_error_exit, workspace_settings


def trust_requests(loaded: LoadedSettings) -> list[str]:
    """One line for each thing the repository's files ask for that waits for trust."""
    from sneakycode.extensions.mcp.config import configured_servers

    held = configured_servers(loaded)[1]
    return [*loaded.ignored, *(f"MCP server {h.name} = {h.target} ({h.origin})" for h in held)]


def run_trust_command(args: argparse.Namespace) -> int:
    files = " and ".join(str(path) for path in REPOSITORY_FILES)
    try:
        loaded = workspace_settings(args.workspace, notify=False)
        assert loaded.base is not None
        present = repository_files(loaded.base)
        asked = trust_requests(loaded)
        state = trust_state_dir()
    except ConfigError as exc:
        return config_error_exit("trust", exc)
    if args.revoke:
        record_trust(loaded.base, state, forget=True)
        print(f"This workspace is not trusted: its {files} may only tighten permissions and start nothing.")
        return ExitCode.OK
    if not present:
        print(f"There is no {files} here, so there is nothing to trust.")
        return ExitCode.OK
    record_trust(loaded.base, state)
    names = ", ".join(str(path) for path, _ in present)
    if asked:
        print(f"Trusted {loaded.base}: {names} now apply in full, including:")
        for line in asked:
            print(f"  {line}")
    else:
        print(f"Trusted {loaded.base}: {names} ask for nothing that needed trust.")
    print("If one of them changes, SneakyCode asks again.")
    return ExitCode.OK
