"""`sneakycode trust [--workspace DIR] [--revoke]`: the user's consent to what a repository's files ask for.

Until then, `.sneakycode/config.toml` may only tighten (see `config.untrusted_project_layer`), the MCP
servers it or `.mcp.json` names do not start, and the hooks of `.claude/settings.json` do not run. Trust is
recorded in the user's state folder with one hash over every such file (`config.REPOSITORY_FILES`), so
changing any of them asks again (api/trust.py).
"""

from __future__ import annotations

import argparse

from sneakycode.api.errors import ConfigError
from sneakycode.api.trust import REPOSITORY_FILES, present_files, set_trusted, trust_requests, trust_state
from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.faces.shared.startup import config_error_exit, workspace_settings


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Trust this workspace's .sneakycode/config.toml as it is now: what it asks for that loosens permissions "
        "or redirects SneakyCode (provider, allow rules, a looser mode, ...) applies from now on, until the file "
        "changes."
    )
    parser.add_argument("--revoke", action="store_true", help="stop trusting this workspace")


def run(args: argparse.Namespace) -> int:
    files = " and ".join(str(path) for path in REPOSITORY_FILES)
    try:
        loaded = workspace_settings(args.workspace, notify=False)
        present = present_files(loaded)
        asked = trust_requests(loaded)
        state = trust_state()
    except ConfigError as exc:
        return config_error_exit("trust", exc)
    if args.revoke:
        set_trusted(loaded, state, trusted=False)
        print(f"This workspace is not trusted: its {files} may only tighten permissions and start nothing.")
        return ExitCode.OK
    if not present:
        print(f"There is no {files} here, so there is nothing to trust.")
        return ExitCode.OK
    set_trusted(loaded, state)
    names = ", ".join(str(path) for path in present)
    if asked:
        print(f"Trusted {loaded.base}: {names} now apply in full, including:")
        for line in asked:
            print(f"  {line}")
    else:
        print(f"Trusted {loaded.base}: {names} ask for nothing that needed trust.")
    print("If one of them changes, SneakyCode asks again.")
    return ExitCode.OK
