"""`sneakycode map` prints the repository map, and the first request of a session carries it: through the real
CLI, against the scripted server, with the map on, off, and under a small context window."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sneakycode.agent.loop import RESUMED_NOTE
from sneakycode.testing.server import ScriptedServer
from sneakycode.tools.codemap.repomap import HEADING
from tests.conftest import CliResult, project_config, run_cli
from tests.faces.cli.test_headless import ENV
from tests.faces.cli.test_prompt_prefix import broken_prefixes
from tests.tools.codemap.sample_repo import make_repo

pytestmark = pytest.mark.usefixtures("repo")


@pytest.fixture
def repo(ws: Path) -> Path:
    return make_repo(ws)


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer({"steps": [], "models": ["scripted-model"]}) as running:
        yield running


def headless(server: ScriptedServer, ws: Path, task: str, *flags: str, window: int = 32_768) -> CliResult:
    """A -p run; the scripted server reports no context window, so it is set (a guess would be 8,192)."""
    return run_cli("-p", task, "--base-url", server.base_url, "--model", "scripted-model", "--workspace", str(ws),
                   *flags, env={**ENV, "SNEAKYCODE_CONTEXT_WINDOW": str(window)})


def first_user_message(server: ScriptedServer) -> str:
    return str(next(m["content"] for m in server.chat_requests[0]["messages"] if m["role"] == "user"))


def test_map_prints_the_ranked_outline(ws: Path) -> None:
    result = run_cli("map", "--workspace", str(ws), env=ENV)
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "billing/ledger.py:"
    assert "  6 def record_payment(ledger, amount):" in lines
    assert "definitions from 9 source files" in result.stderr


def test_map_keeps_to_its_budget_and_to_a_folder(ws: Path) -> None:
    small = run_cli("map", "--workspace", str(ws), "--tokens", "30", env=ENV)
    assert small.stdout.splitlines() == ["billing/ledger.py:", "  1 class Ledger:",
                                         "  6 def record_payment(ledger, amount):"]
    shop = run_cli("map", "shop", "--workspace", str(ws), env=ENV)
    assert shop.code == 0 and shop.stdout.splitlines()[0].startswith("shop/orders_")
    assert "billing/" not in shop.stdout


def test_map_of_a_file_focuses_on_it(ws: Path) -> None:
    result = run_cli("map", "tools/lonely.py", "--workspace", str(ws), "--tokens", "30", env=ENV)
    assert result.stdout.splitlines()[:2] == ["tools/lonely.py:", "  1 def lonely_helper(value):"]


def test_map_honours_deny_rules_and_ignore_files(ws: Path) -> None:
    (ws / ".git").mkdir()
    (ws / ".gitignore").write_text("build/\n")
    (ws / "build").mkdir()
    (ws / "build" / "out.py").write_text("def built_output_function():\n    pass\n")
    (ws / "secret").mkdir()
    (ws / "secret" / "keys.py").write_text("def load_secret_keys():\n    pass\n")
    project_config(ws, '[permissions]\ndeny = ["read_file(secret/**)"]\n', trusted=False)  # deny needs no trust
    result = run_cli("map", "--workspace", str(ws), "--tokens", "4000", env=ENV)
    assert result.code == 0, result.stderr
    assert "record_payment" in result.stdout
    assert "load_secret_keys" not in result.stdout and "built_output_function" not in result.stdout
    denied = run_cli("map", "secret/keys.py", "--workspace", str(ws), env=ENV)
    assert denied.code == 1 and "deny rule" in denied.stderr


def test_map_refuses_a_bad_budget_and_a_missing_path(ws: Path) -> None:
    assert run_cli("map", "--workspace", str(ws), "--tokens", "0", env=ENV).code == 2
    missing = run_cli("map", "nowhere", "--workspace", str(ws), env=ENV)
    assert missing.code == 1 and "nowhere" in missing.stderr and "Traceback" not in missing.stderr


def test_the_first_request_carries_the_map_after_the_task(server: ScriptedServer, ws: Path) -> None:
    server.add_steps([{"content": "Done."}])
    result = headless(server, ws, "Where is record_payment defined?")
    assert result.code == 0, result.stderr
    message = first_user_message(server)
    assert message.startswith("Where is record_payment defined?\n\n" + HEADING)
    assert "billing/ledger.py:\n  1 class Ledger:" in message
    assert HEADING not in server.chat_requests[0]["messages"][0]["content"]  # never in the system prompt


def test_later_requests_and_a_resume_keep_the_prefix_and_send_no_second_map(server: ScriptedServer, ws: Path) -> None:
    server.add_steps([{"tool_calls": [{"name": "read_file", "arguments": {"file_path": "billing/ledger.py"}}]},
                      {"content": "Read it."}])
    headless(server, ws, "Read the ledger")
    server.add_steps([{"content": "Again."}])
    headless(server, ws, "And again", "--continue")
    requests = server.chat_requests
    assert len(requests) == 3 and broken_prefixes(requests) == []
    users = [m["content"] for m in requests[2]["messages"] if m["role"] == "user"]
    assert HEADING in users[0] and users[1].startswith(f"[{RESUMED_NOTE}]") and HEADING not in users[1]


def test_no_map_when_disabled(server: ScriptedServer, ws: Path) -> None:
    project_config(ws, "[repo_map]\nenabled = false\n", trusted=False)
    server.add_steps([{"content": "Done."}])
    assert headless(server, ws, "Where is record_payment defined?").code == 0
    assert first_user_message(server) == "Where is record_payment defined?"


def test_no_map_under_a_small_window(server: ScriptedServer, ws: Path) -> None:
    server.add_steps([{"content": "Done."}])
    result = headless(server, ws, "Where is record_payment defined?", window=8192)
    assert result.code == 0, result.stderr
    assert first_user_message(server) == "Where is record_payment defined?"


def test_the_models_map_leaves_out_what_a_deny_rule_hides(server: ScriptedServer, ws: Path) -> None:
    (ws / "secret").mkdir()
    (ws / "secret" / "keys.py").write_text("from billing.ledger import Ledger\n\ndef load_secret_keys():\n"
                                           "    return Ledger()\n")
    project_config(ws, '[permissions]\ndeny = ["read_file(secret/**)"]\n', trusted=False)
    server.add_steps([{"content": "Done."}])
    assert headless(server, ws, "Map it").code == 0
    message = first_user_message(server)
    assert HEADING in message and "record_payment" in message
    assert "secret" not in message and "load_secret_keys" not in message


def test_map_fills_and_reads_the_store_every_session_shares(ws: Path, tmp_path: Path) -> None:
    """Issue 42: `sneakycode map` parses into the tags store sessions, batch and eval tasks share (by
    content), so a copy of the repository elsewhere is mapped from it, alike."""
    import shutil

    state = tmp_path / "state"
    env = {**ENV, "SNEAKYCODE_STATE_DIR": str(state)}
    first = run_cli("map", "--workspace", str(ws), env=env)
    assert first.code == 0, first.stderr
    assert (state / "codemap" / "tags.sqlite3").is_file()
    copy = tmp_path / "copy"
    shutil.copytree(ws, copy)
    again = run_cli("map", "--workspace", str(copy), env=env)
    assert again.code == 0, again.stderr
    assert again.stdout == first.stdout
