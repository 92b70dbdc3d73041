"""Hardening round three, class 2: the `code` tool and the diagnostics after an edit never pass on what deny
rules hide. With `deny read_file(private/**)`, a visible `LEAK = SECRET` (SECRET imported from a hidden file)
used to hover as `Literal['sk-...']`, and a type error after an edit quoted the same literal. Now the language
server runs where the hidden files are covered, so neither hover, diagnostics, definition, references nor
symbols can say it, while the same code over a visible file still answers in full. Real servers: jedi-language-
server and basedpyright."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.process.sandbox import probe_masking
from sneakycode.tools.base import ToolContext, ToolResult
from sneakycode.tools.context import open_tool_context
from sneakycode.tools.lsp import hiding
from tests.conftest import call, project_config
from tests.tools.lsp.servers import JEDI, gone, user_config

SECRET = "sk-live-7f3a9c"
OPEN = "pk-open-2b8d"
BASEDPYRIGHT = Path(sys.executable).with_name("basedpyright-langserver")
SERVERS = {
    "jedi": f'[lsp.servers.jedi]\ncommand = "{JEDI}"\nlanguages = ["python"]\n',
    "basedpyright": f'[lsp.servers.basedpyright]\ncommand = "{BASEDPYRIGHT}"\n',
}
APP = (
    "from private.keys import TOKEN as SECRET, token as secret_token, Vault as SecretVault\n"
    "from public.keys import TOKEN as OPEN, token as open_token, Vault as OpenVault\n"
    "\n"
    "LEAK = SECRET\n"
    "SHOWN = OPEN\n"
    "print(secret_token(), open_token(), SecretVault.key, OpenVault.key)\n"
)


def needs_masking(ws: Path) -> None:
    """Skip, with the probe's reason, only where bubblewrap cannot run (the fallback is tested below)."""
    found = probe_masking(ws)
    if not found.available:
        pytest.skip(found.reason)


def keys_module(value: str) -> str:
    return (f'TOKEN = "{value}"\n\n\ndef token() -> str:\n    """Returns {value}."""\n    return TOKEN\n\n\n'
            f'class Vault:\n    key = "{value}"\n')


@pytest.fixture(params=sorted(SERVERS))
def hidden_ctx(request: pytest.FixtureRequest, ws: Path) -> Iterator[ToolContext]:
    server = str(request.param)
    needs_masking(ws)
    assert (JEDI if server == "jedi" else BASEDPYRIGHT).exists(), f"{server} is in the dev extras"
    user_config(SERVERS[server])
    for folder, value in (("private", SECRET), ("public", OPEN)):
        (ws / folder).mkdir()
        (ws / folder / "__init__.py").write_text("")
        (ws / folder / "keys.py").write_text(keys_module(value))
    (ws / "app.py").write_text(APP)
    project_config(ws, '[permissions]\ndeny = ["read_file(private/**)"]\n')
    ctx = open_tool_context(load_settings(ws))
    yield ctx
    running = ctx.language_servers.running()
    ctx.close()
    for client in running:  # the server under bubblewrap ends with the session like any other
        assert client.process is not None and gone(client.process.pid)


def shown(result: ToolResult) -> str:
    """Everything a result carries: what the model reads and the structured data beside it."""
    return result.render() + json.dumps(result.data, default=str)


def code(ctx: ToolContext, op: str, line: int, symbol: str, path: str = "app.py") -> ToolResult:
    result = call(ctx, "code", op=op, path=path, line=line, symbol=symbol)
    assert result.success, result.render()
    return result


def test_nothing_from_a_hidden_file_reaches_the_model_through_code_or_its_diagnostics(
    hidden_ctx: ToolContext, ws: Path
) -> None:
    """Hardening round three, class 2: hover, definition, references, outline and workspace symbols on names
    that come from a hidden file carry none of its text, places or literals; the same names from a visible
    file still do; and the type errors after a str_replace quote the visible literal, never the hidden one."""
    ctx = hidden_ctx
    said: list[str] = []
    for op, line, symbol in (("hover", 4, "LEAK"), ("hover", 4, "SECRET"), ("hover", 6, "secret_token"),
                             ("hover", 6, "SecretVault"), ("definition", 4, "SECRET"), ("definition", 6, "key"),
                             ("references", 4, "SECRET"), ("symbols", 1, "SECRET")):
        said.append(shown(code(ctx, op, line, symbol)))
    said.append(shown(call(ctx, "code", op="symbols", symbol="TOKEN")))
    said.append(shown(call(ctx, "code", op="symbols", symbol="Vault")))

    # The visible twin still answers in full.
    assert f"public/keys.py:1:1: TOKEN = \"{OPEN}\"" in code(ctx, "definition", 5, "OPEN").render()
    assert OPEN in code(ctx, "hover", 6, "open_token").render()
    assert "public/keys.py:1:1" in call(ctx, "code", op="symbols", symbol="TOKEN").render()
    visible = code(ctx, "hover", 5, "SHOWN")
    checker = visible.data["server"] == "basedpyright"  # jedi infers no literal types and reports syntax only
    if checker:
        assert f"Literal['{OPEN}']" in visible.render()

    call(ctx, "read_file", file_path="app.py")
    edited = call(ctx, "str_replace", file_path="app.py", old_str="LEAK = SECRET\nSHOWN = OPEN",
                  new_str="LEAK: int = SECRET\nSHOWN: int = OPEN\nKEY: int = SecretVault.key")
    assert edited.success, edited.render()
    said.append(shown(edited))
    said.append(shown(code(ctx, "hover", 4, "LEAK")))
    if checker:
        assert f"Type \"Literal['{OPEN}']\" is not assignable" in edited.render(), edited.render()
    for text in said:
        assert SECRET not in text, text
        assert "private/keys.py" not in text, text


@pytest.mark.slow  # over 10 s: three jedi starts under bubblewrap, one per change of the hidden files
def test_a_file_hidden_after_the_server_started_is_kept_from_it_too(ws: Path) -> None:
    """Hardening round three, class 2: the server is started again when the hidden files change, so one that
    appears after it started (or is replaced by a rename, which would uncover it) is never read by it; while
    nothing changes, the same server answers."""
    needs_masking(ws)
    user_config(SERVERS["jedi"])
    (ws / "config").mkdir()
    (ws / "config" / "__init__.py").write_text("")
    (ws / "config" / "settings.py").write_text('def name():\n    """The name is visible-9."""\n')
    (ws / "app.py").write_text("from config.settings import name\nfrom config.secrets import token\n\n"
                               "name()\ntoken()\n")
    project_config(ws, '[permissions]\ndeny = ["read_file(**/secrets.py)"]\n')
    ctx = open_tool_context(load_settings(ws))
    try:
        assert "visible-9" in code(ctx, "hover", 4, "name").render()
        first = ctx.language_servers.running()[0].process
        assert "visible-9" in code(ctx, "hover", 4, "name").render()
        assert ctx.language_servers.running()[0].process is first
        (ws / "config" / "secrets.py").write_text('def token():\n    """The key is sk-late-1111."""\n')
        late = code(ctx, "hover", 5, "token")
        assert "sk-late" not in shown(late), late.render()
        assert ctx.language_servers.running()[0].process is not first
        swapped = ws / "config" / "swap.tmp"
        swapped.write_text('def token():\n    """The key is sk-swap-2222."""\n')
        swapped.replace(ws / "config" / "secrets.py")
        again = code(ctx, "hover", 5, "token")
        assert "sk-swap" not in shown(again) and "sk-late" not in shown(again), again.render()
        assert "visible-9" in code(ctx, "hover", 4, "name").render()
    finally:
        ctx.close()


def test_where_the_server_cannot_be_kept_from_hidden_files_its_free_text_is_withheld(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hardening round three, class 2: without bubblewrap (none on PATH) the server reads everything, so no
    hover text and no diagnostic of it is shown while a file is hidden; places in hidden files are still
    left out, counted, and places elsewhere still come back."""
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))  # this Python's tools, and no bwrap
    user_config(SERVERS["jedi"])
    for folder, value in (("private", SECRET), ("public", OPEN)):
        (ws / folder).mkdir()
        (ws / folder / "__init__.py").write_text("")
        (ws / folder / "keys.py").write_text(keys_module(value))
    (ws / "app.py").write_text(APP)
    project_config(ws, '[permissions]\ndeny = ["read_file(private/**)"]\n')
    ctx = open_tool_context(load_settings(ws))
    try:
        hover = code(ctx, "hover", 6, "secret_token")
        assert SECRET not in shown(hover) and "withheld" in hover.render(), hover.render()
        assert "withheld" in code(ctx, "hover", 6, "open_token").render()
        definition = code(ctx, "definition", 4, "SECRET")
        assert SECRET not in shown(definition) and "(1 more in files a deny rule hides)" in definition.render()
        assert "public/keys.py:1:1" in code(ctx, "definition", 5, "OPEN").render()
        call(ctx, "read_file", file_path="app.py")
        edited = call(ctx, "str_replace", file_path="app.py", old_str="SHOWN = OPEN", new_str="SHOWN = (OPEN")
        assert edited.success and "findings are not shown" in edited.render(), edited.render()
    finally:
        ctx.close()


def test_a_file_the_server_was_shown_that_becomes_a_link_to_a_hidden_one_is_not_read(ws: Path) -> None:
    """Hardening round three, class 2: the text the server holds of a file is read again when the file changes;
    a file that became a link into a hidden one is dropped rather than read, and no place's line is read
    through such a link. basedpyright answers from the text it holds of an imported file (jedi reads the disk,
    where the server's view covers the link's target)."""
    user_config(SERVERS["basedpyright"])
    (ws / "private").mkdir()
    (ws / "private" / "keys.py").write_text(f'def helper(key="{SECRET}"):\n    return key\n')
    (ws / "app.py").write_text("def helper(key=1):\n    return key\n")
    (ws / "main.py").write_text("from app import helper\n\nhelper()\n")
    project_config(ws, '[permissions]\ndeny = ["read_file(private/**)"]\n')
    ctx = open_tool_context(load_settings(ws))
    try:
        assert "helper" in code(ctx, "symbols", 1, "helper", path="app.py").render()
        assert "app.py:1:5: def helper(key=1):" in code(ctx, "definition", 3, "helper", path="main.py").render()
        (ws / "app.py").unlink()
        (ws / "app.py").symlink_to(Path("private") / "keys.py")
        for op in ("definition", "hover", "references"):
            result = code(ctx, op, 3, "helper", path="main.py")
            assert SECRET not in shown(result), result.render()
    finally:
        ctx.close()


def test_a_workspace_too_big_to_walk_withholds_free_text_only_where_a_rule_hides_something(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hardening round three, class 2: where the walk for hidden files stops at its limit, the server cannot be
    known to be kept from them, so its hover text is withheld; without a deny rule on reading there is nothing
    to walk for, and a workspace of any size answers in full."""
    monkeypatch.setattr(hiding, "MAX_ENTRIES", 3)
    user_config(SERVERS["jedi"])
    for folder, value in (("private", SECRET), ("public", OPEN)):
        (ws / folder).mkdir()
        (ws / folder / "__init__.py").write_text("")
        (ws / folder / "keys.py").write_text(keys_module(value))
    (ws / "app.py").write_text(APP)
    ctx = open_tool_context(load_settings(ws))
    try:
        assert OPEN in code(ctx, "hover", 6, "open_token").render()
    finally:
        ctx.close()
    project_config(ws, '[permissions]\ndeny = ["read_file(private/**)"]\n')
    ctx = open_tool_context(load_settings(ws))
    try:
        hover = code(ctx, "hover", 6, "secret_token")
        assert SECRET not in shown(hover) and "withheld" in hover.render(), hover.render()
    finally:
        ctx.close()
