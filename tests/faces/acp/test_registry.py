"""The ACP Registry entry shipped in the repository (acp-registry/): it installs this package with `uvx` and
starts `sneakycode acp`, its version is the package's, its icon follows the registry's rules, and the
terminal method the agent advertises runs a flag `sneakycode acp` takes."""

from __future__ import annotations

import argparse
import json
import re
import tomllib
from pathlib import Path

from sneakycode.faces.acp.command import add_arguments
from sneakycode.faces.acp.server import SETUP_METHOD
from sneakycode.version import __version__

ROOT = Path(__file__).resolve().parents[3]
ENTRY = ROOT / "acp-registry" / "sneakycode"


def test_the_registry_entry_installs_this_package_and_starts_the_editor_face() -> None:
    entry = json.loads((ENTRY / "agent.json").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert entry["id"] == ENTRY.name and re.fullmatch(r"[a-z0-9-]+", entry["id"])
    assert entry["version"] == __version__ and entry["license"] == project["license"]
    assert {"name", "description", "authors", "distribution"} <= set(entry)
    assert entry["distribution"] == {"uvx": {"package": project["name"], "args": ["acp"]}}
    assert project["scripts"]["sneakycode"]  # what uvx runs


def test_the_icon_is_a_16px_svg_in_the_themes_colour() -> None:
    icon = (ENTRY / "icon.svg").read_text()
    assert 'width="16"' in icon and 'height="16"' in icon
    assert set(re.findall(r'fill="([^"]*)"', icon)) <= {"currentColor", "none"}


def test_the_terminal_method_runs_a_flag_the_editor_face_takes() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert SETUP_METHOD.type == "terminal"
    assert parser.parse_args(SETUP_METHOD.args or []).setup is True
