"""Hardening class 2 (issue 11): the keys SneakyCode was started with stay out of reach of the commands it
runs, through the CLI and through the agent, with the sandbox off (the parent's /proc files) and on (see
test_sandbox_hardening.py for what the sandbox hides)."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sneakycode.process.environment import command_environment
from sneakycode.testing.server import ScriptedServer
from tests.conftest import project_config, run_cli
from tests.faces.cli.test_headless import ENV, call, finish, tool_results

# Every way a command without the sandbox might find a key: its own environment, its parent's start-up
# environment and command line, and every process it can see.
LOOK_EVERYWHERE = (
    # The parent's command line first: a busy machine's /proc/*/environ can fill the head of the output.
    "tr '\\0' ' ' </proc/$PPID/cmdline; echo; env; tr '\\0' '\\n' </proc/$PPID/environ;"
    " cat /proc/*/environ /proc/*/cmdline 2>/dev/null | tr '\\0' '\\n'; echo looked"
)
OFF = {"SNEAKYCODE_TOOLS__SHELL__SANDBOX": '"off"'}


def key() -> str:
    """A value no other process on the machine holds, so finding it anywhere is a leak."""
    return f"sk-test-{secrets.token_hex(8)}"


def run_command_cli(ws: Path, command: str, env: dict[str, str]) -> str:
    """`sneakycode tool run_command` in a subprocess; what it printed."""
    done = run_cli("tool", "run_command", json.dumps({"command": command}), "--workspace", str(ws), env=env)
    return done.stdout + done.stderr


@pytest.fixture
def keyed_server() -> Iterator[tuple[ScriptedServer, str]]:
    model_key = key()
    with ScriptedServer({"steps": [], "models": ["scripted-model"], "api_key": model_key}) as running:
        yield running, model_key


def test_hardening_class_2_cli_command_finds_no_key_in_its_parent_or_anywhere(ws: Path) -> None:
    """Hardening class 2: with the sandbox off, `tr '\\0' '\\n' </proc/$PPID/environ` showed every API key."""
    values = {name: key() for name in ("OPENAI_API_KEY", "PGPASSWORD", "github_token", "Db_Passwd", "API_KEY")}
    output = run_command_cli(ws, LOOK_EVERYWHERE, {**OFF, **values})
    assert "looked" in output
    for name, value in values.items():
        assert value not in output, f"{name} leaked"


def test_hardening_class_2_agent_command_finds_no_key_yet_the_model_gets_it(
    keyed_server: tuple[ScriptedServer, str], ws: Path
) -> None:
    """Hardening class 2: the key moved out of the environment still reaches the model (the server checks
    it), but no command the model runs finds it: not in /proc/$PPID/environ, `env` or /proc/*/environ."""
    server, model_key = keyed_server
    server.add_steps([call("run_command", command=LOOK_EVERYWHERE), finish("Looked.")])
    env = {**ENV, **OFF, "OPENAI_API_KEY": model_key}
    result = run_cli("-p", "Look", "--provider", "openai", "--base-url", server.base_url, "--model", "scripted-model",
                     "--workspace", str(ws), "--yes", env=env)
    assert result.code == 0, result.stderr
    seen = tool_results(server.chat_requests[1])[0]
    assert "looked" in seen and model_key not in seen


def test_hardening_class_2_an_api_key_flag_is_wiped_from_the_command_line(
    keyed_server: tuple[ScriptedServer, str], ws: Path
) -> None:
    """Hardening class 2: `--api-key KEY` sat in /proc/PID/cmdline, which every process may read."""
    server, model_key = keyed_server
    server.add_steps([call("run_command", command=LOOK_EVERYWHERE), finish("Looked.")])
    result = run_cli("-p", "Look", f"--api-key={model_key}", "--base-url", server.base_url, "--model",
                     "scripted-model", "--workspace", str(ws), "--yes", env={**ENV, **OFF})
    assert result.code == 0, result.stderr
    seen = tool_results(server.chat_requests[1])[0]
    assert "looked" in seen and "--api-key=*" in seen and model_key not in seen


def test_hardening_class_2_a_custom_api_key_env_is_protected_too(
    keyed_server: tuple[ScriptedServer, str], ws: Path
) -> None:
    """Hardening class 2: a key under a name no pattern knows (api_key_env = "LLM_KEY_A") is held and wiped."""
    server, model_key = keyed_server
    server.add_steps([call("run_command", command=LOOK_EVERYWHERE), finish("Looked.")])
    env = {**ENV, **OFF, "LLM_KEY_A": model_key, "SNEAKYCODE_API_KEY_ENV": '"LLM_KEY_A"'}
    result = run_cli("-p", "Look", "--base-url", server.base_url, "--model", "scripted-model",
                     "--workspace", str(ws), "--yes", env=env)
    assert result.code == 0, result.stderr
    seen = tool_results(server.chat_requests[1])[0]
    assert "looked" in seen and model_key not in seen


def test_hardening_class_2_a_command_without_privileges_cannot_read_the_parents_environ_or_memory(
    tmp_path: Path,
) -> None:
    """Hardening class 2: PR_SET_DUMPABLE off, so a command without CAP_SYS_PTRACE gets EACCES on the
    parent's /proc/PID/environ and mem, even for variables no pattern recognises. As root the whole run has
    every capability dropped (`setpriv --bounding-set=-all`): still uid 0, so it reads this checkout
    wherever it lies, but the kernel then treats it as an ordinary user would be treated."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv is not None, "setpriv (util-linux) is needed to run this test as root without privileges"
        prefix = [setpriv, "--inh-caps=-all", "--bounding-set=-all"]
    (tmp_path / "ws").mkdir()
    plain = f"plain-{secrets.token_hex(8)}"
    look = "cat /proc/$PPID/environ; cat /proc/$PPID/mem; echo looked"
    argv = [*prefix, sys.executable, "-m", "sneakycode.faces.cli.main", "tool", "run_command",
            json.dumps({"command": look}), "--workspace", str(tmp_path / "ws")]
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home"), "PYTHONPATH": os.pathsep.join(sys.path),
           "UNRECOGNISED_SETTING": plain, **OFF}
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    output = done.stdout + done.stderr
    assert "looked" in output, output
    assert plain not in output
    assert output.count("Permission denied") == 2, output


def test_hardening_class_2_more_credential_names_are_stripped_in_any_case() -> None:
    """Hardening class 2: PGPASSWORD, MYSQL_PWD, bare API_KEY/SECRET/TOKEN/PASSWORD, *_PRIVATE_KEY,
    *_CREDENTIALS and *_PASSWD reached commands."""
    stripped = ["PGPASSWORD", "MYSQL_PWD", "API_KEY", "SECRET", "TOKEN", "PASSWORD", "DEPLOY_PRIVATE_KEY",
                "GOOGLE_APPLICATION_CREDENTIALS", "LDAP_PASSWD", "github_token", "Api_Key", "openai_base_url"]
    kept = ["PATH", "HOME", "TOKENIZERS_PARALLELISM", "KEYBOARD", "PASSWORD_STORE_DIR", "PWD"]
    env = command_environment({name: "v" for name in [*stripped, *kept]})
    assert [name for name in stripped if name in env] == []
    assert all(name in env for name in kept)


def test_hardening_class_2_env_keep_and_env_strip_adjust_but_never_pass_the_model_key(ws: Path) -> None:
    """Hardening class 2: tools.shell.env_keep passes what the built-in list strips, except any variable a
    model key may be in; env_strip removes more (any case)."""
    values = {"GITHUB_TOKEN": key(), "OPENAI_API_KEY": key(), "LLM_KEY_B": key(), "BUILD_SERIAL": key()}
    env = {
        **OFF,
        **values,
        "SNEAKYCODE_API_KEY_ENV": '"LLM_KEY_B"',
        "SNEAKYCODE_TOOLS__SHELL__ENV_KEEP": '["github_*", "OPENAI_*", "LLM_*"]',
        "SNEAKYCODE_TOOLS__SHELL__ENV_STRIP": '["build_*"]',
    }
    output = run_command_cli(ws, "env; echo looked", env)
    assert "looked" in output
    assert f"GITHUB_TOKEN={values['GITHUB_TOKEN']}" in output
    for name in ("OPENAI_API_KEY", "LLM_KEY_B", "BUILD_SERIAL"):
        assert values[name] not in output, f"{name} reached the command"


def test_hardening_class_2_an_untrusted_project_cannot_keep_credentials(ws: Path) -> None:
    """Hardening class 2 (with class 1): env_keep loosens, so a project file needs the user's trust for it."""
    project_config(ws, 'tools.shell.env_keep = ["*"]\n', trusted=False)
    token = key()
    result = run_cli("tool", "run_command", '{"command": "env"}', "--workspace", str(ws),
                          env={**OFF, "DEPLOY_TOKEN": token})
    assert token not in result.stdout and "tools.shell.env_keep" in result.stderr


# Round two, class 8: the names that still reached commands, and names that must keep reaching them.
PLAIN_SECRETS = (
    "TOKEN", "token", "SECRET", "secret", "PASSWORD", "password", "API_KEY", "api_key", "ACCESS_KEY", "access_key",
    "TOKEN_GITHUB", "awsAccessKey", "githubToken", "SMTP_PASS", "GH_PAT", "NGROK_AUTHTOKEN", "NPM_CONFIG__AUTH",
    "DB_PWD", "Signing_Key",
)
NOT_SECRETS = ("TOKENIZERS_PARALLELISM", "PASSWORD_STORE_DIR", "SSH_AUTH_SOCK", "GIT_ASKPASS", "SORT_KEY", "KEYBOARD")


@pytest.mark.parametrize("sandbox", ["on", "off"])
def test_plain_and_embedded_credential_names_do_not_reach_a_command(ws: Path, sandbox: str) -> None:
    """Hardening round two, class 8: a variable named plainly `ACCESS_KEY` (or `TOKEN_GITHUB`, `SMTP_PASS`,
    `awsAccessKey`: a secret word that is not the name's end) reached commands, because only globs like
    `*_TOKEN` were tried. A real command prints its environment and its parent's: none of them is there,
    while look-alike names that hold no secret still are."""
    values = {name: key() for name in (*PLAIN_SECRETS, *NOT_SECRETS)}
    output = run_command_cli(ws, LOOK_EVERYWHERE if sandbox == "off" else "env; echo looked",
                             {**values, **(OFF if sandbox == "off" else {})})
    assert "looked" in output
    leaked = [name for name in PLAIN_SECRETS if values[name] in output]
    assert leaked == []
    assert all(f"{name}={values[name]}" in output for name in NOT_SECRETS), output


def test_env_keep_still_passes_a_plain_credential_name(ws: Path) -> None:
    """Hardening round two, class 8: the wider recognition is adjusted by tools.shell.env_keep as before."""
    token = key()
    output = run_command_cli(ws, "env; echo looked",
                             {**OFF, "ACCESS_KEY": token, "SNEAKYCODE_TOOLS__SHELL__ENV_KEEP": '["access_key"]'})
    assert f"ACCESS_KEY={token}" in output
