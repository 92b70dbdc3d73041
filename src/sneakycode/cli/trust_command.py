"""`sneakycode trust [--workspace DIR] [--revoke]`: the user's consent to a repository's own files.

Until then, `.sneakycode/config.toml` may only tighten (see `config.untrusted_project_layer`), and the other
repository files that would run programs (`config.trust.REPOSITORY_FILES`: the hooks of
`.claude/settings.json`) are not read. Trust is recorded in the user's state folder with each file's hash,
so a changed file is untrusted again.
"""

from __future__ import annotations

import argparse

from sneakycode.cli.main import ExitCode
from sneakycode.cli.startup import config_error_exit, workspace_settings
from sneakycode.config import CONFIG_FILE_LIMIT, PROJECT_CONFIG, read_regular_file, record_trust, trust_state_dir
from sneakycode.config.trust import REPOSITORY_FILES, record_file_trust
from sneakycode.errors import ConfigError


def run_trust_command(args: argparse.Namespace) -> int:
    try:
        loaded = workspace_settings(args.workspace, notify=False)
        base = loaded.project_file.parent.parent if loaded.project_file else None
        raw = read_regular_file(loaded.project_file, CONFIG_FILE_LIMIT) if loaded.project_file else None
        others = {relative: read_regular_file(loaded.workspace / relative, CONFIG_FILE_LIMIT)
                  for relative in REPOSITORY_FILES}
        state = trust_state_dir()
    except ConfigError as exc:
        return config_error_exit("trust", exc)
    if args.revoke:
        if base is not None:
            record_trust(base, None, state)
        for relative in others:
            record_file_trust(loaded.workspace, relative, None, state)
        print(f"This workspace is not trusted: its {PROJECT_CONFIG} may only tighten permissions.")
        return ExitCode.OK
    present = {relative: data for relative, data in others.items() if data is not None}
    for relative, data in present.items():
        record_file_trust(loaded.workspace, relative, data, state)
        print(f"Trusted {loaded.workspace / relative}: its hooks run from now on.")
    if base is None or raw is None:
        if not present:
            print(f"There is no {PROJECT_CONFIG} here, so there is nothing to trust.")
        return ExitCode.OK
    record_trust(base, raw, state)
    if loaded.ignored:
        print(f"Trusted {base}: {loaded.project_file} now applies in full, including:")
        for line in loaded.ignored:
            print(f"  {line}")
    else:
        print(f"Trusted {base}: {loaded.project_file} asks for nothing that needed trust.")
    print("If the file changes, SneakyCode asks again.")
    return ExitCode.OK
