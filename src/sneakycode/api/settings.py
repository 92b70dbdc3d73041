"""The settings of a session from its Options: the configuration layers with the options on top."""

from __future__ import annotations

from pathlib import Path

from sneakycode.api.options import Options
from sneakycode.config import LoadedSettings, load_settings, user_config_path
from sneakycode.config import state_dir as state_folder
from sneakycode.errors import ConfigError
from sneakycode.session.folders import checked_session_id
from sneakycode.workspace.roots import check_written_roots, extra_roots


def load_options(options: Options, *, state_dir: Path | None = None) -> LoadedSettings:
    """The settings for `options.workspace` (default: the current folder); a ConfigError when that folder
    does not exist or a layer is wrong, so no session starts on a workspace that is not there. `state_dir`
    (an isolated session's temporary folder) is used when the options name none."""
    if options.resume is not None:  # a name, before anything is read or written (see session/folders.py)
        checked_session_id(options.resume)
    check_written_roots(options.add_dirs)
    workspace = options.workspace_path()
    if workspace is not None and not workspace.is_dir():
        raise ConfigError(f"the workspace {str(workspace)!r} is not a directory")
    layer = options.layer()
    if state_dir is not None and "state_dir" not in layer:
        layer["state_dir"] = str(state_dir)
    loaded = load_settings(workspace, layer, trust_project=options.trust_project, isolated=options.isolated)
    if options.add_dirs:  # checked and resolved once, before any session folder or server exists
        guarded = (state_folder(loaded.settings), user_config_path().parent)
        loaded.extra_roots = extra_roots(options.add_dirs, loaded.workspace, protected=guarded)
    return loaded


def untrusted_notice(loaded: LoadedSettings) -> str:
    """What an untrusted project file asked for and did not get, and how to apply it."""
    asked = "; ".join(loaded.ignored)
    return (
        f"{loaded.project_file} comes with the repository and this workspace is not trusted, so what it asks "
        f"for that would loosen permissions or redirect SneakyCode was ignored: {asked}. Read the file; to apply "
        "it, run `sneakycode trust` in this workspace (or pass --trust-project for one run)."
    )
