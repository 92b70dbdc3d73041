"""Hardening round three, class 41: where sandboxed commands may connect. The effective mode is read in one
place (the old `sandbox_network` kept as an alias, allowlist once the user named hosts), presets expand to
their registries, and an untrusted project file may only narrow the user's mode, hosts and ports."""

from __future__ import annotations

from pathlib import Path

from sneakycode.config import load_settings
from sneakycode.config.network import PRESETS, effective_network
from tests.config.test_trust import write_user_config
from tests.conftest import project_config


def test_the_mode_follows_network_then_the_old_alias_then_the_hosts(ws: Path) -> None:
    def mode(flags: dict[str, object]) -> str:
        return effective_network(load_settings(ws, environ={}, flags=flags).settings.tools.shell).mode

    assert mode({}) == "on"  # as before: nobody named hosts
    assert mode({"tools.shell.sandbox_network": False}) == "off"
    assert mode({"tools.shell.allowed_hosts": ["pypi.org"]}) == "allowlist"
    assert mode({"tools.shell.allowed_hosts": ["pypi.org"], "tools.shell.network": "on"}) == "on"
    assert mode({"tools.shell.network": "allowlist"}) == "allowlist"


def test_presets_expand_to_their_registries_and_hosts_stay_as_written(ws: Path) -> None:
    flags = {"tools.shell.allowed_hosts": ["python", "example.com", "pypi.org"]}
    policy = effective_network(load_settings(ws, environ={}, flags=flags).settings.tools.shell)
    assert policy.hosts == (*PRESETS["python"], "example.com")
    assert policy.ports == (443, 80)
    assert "pypi.org" in policy.describe() and policy.describe().startswith("allowlist")


def test_an_untrusted_project_may_narrow_the_network_but_never_widen_it(ws: Path) -> None:
    write_user_config('[tools.shell]\nallowed_hosts = ["python", "github.com"]\n')
    project_config(ws, '[tools.shell]\nallowed_hosts = ["pypi.org", "evil.example"]\nnetwork = "on"\n'
                       "allowed_ports = [443, 22]\n", trusted=False)  # fmt: skip
    loaded = load_settings(ws, environ={})
    policy = effective_network(loaded.settings.tools.shell)
    assert policy.mode == "allowlist" and "evil.example" not in policy.hosts and "github.com" in policy.hosts
    assert policy.ports == (443, 80)
    ignored = "\n".join(loaded.ignored)
    for key in ("tools.shell.allowed_hosts", "tools.shell.network", "tools.shell.allowed_ports"):
        assert f"{key} = " in ignored, key
    project_config(ws, '[tools.shell]\nallowed_hosts = ["pypi.org"]\nnetwork = "off"\n', trusted=False)
    narrowed = load_settings(ws, environ={})
    assert narrowed.ignored == []
    assert effective_network(narrowed.settings.tools.shell).mode == "off"


def test_a_project_naming_hosts_where_the_network_is_fully_on_narrows_it(ws: Path) -> None:
    project_config(ws, '[tools.shell]\nallowed_hosts = ["pypi.org"]\n', trusted=False)
    loaded = load_settings(ws, environ={})
    assert loaded.ignored == []
    assert effective_network(loaded.settings.tools.shell).hosts == ("pypi.org",)
