"""web_search in a whole session: offered only when the user configured a backend, never configured by an
untrusted repository, explained by `permissions check`, its key kept from commands, and an end-to-end `-p` run
against the scripted model that searches and then reads a result with web_fetch from a local page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from sneakycode.api.tool_host import served_tools
from sneakycode.config import load_settings, user_config_path
from sneakycode.permissions.gate import Gate
from sneakycode.testing.server import ScriptedServer
from sneakycode.tools.context import open_tool_context
from tests.conftest import call as call_tool
from tests.conftest import project_config, run_main
from tests.faces.cli.test_headless import ENV, call, finish, tool_results
from tests.tools.web.search_backends import FakeBackend, Result
from tests.tools.web.site import Site

HTML = {"Content-Type": "text/html; charset=utf-8"}
PAGE = (b"<html><head><title>Local docs</title></head><body><main><h1>Frobnicator guide</h1>"
        b"<p>The frobnicator turns widgets into gadgets in three easy steps.</p></main></body></html>")


@pytest.fixture
def site() -> Iterator[Site]:
    with Site({"/guide": (200, HTML, PAGE)}) as running:
        yield running


def user_config(text: str) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def offered(request: dict[str, object]) -> list[str]:
    return [t["function"]["name"] for t in request["tools"]]  # type: ignore[attr-defined,index]


def test_an_untrusted_project_cannot_configure_a_backend(ws: Path) -> None:
    """A cloned repository cannot turn search on, or choose where the model's queries go."""
    with FakeBackend("searxng", [Result("x", "https://x.example/", "x")]) as fake:
        project_config(ws, fake.config(), trusted=False)
        loaded = load_settings(ws)
        assert loaded.settings.tools.web.search.backend is None and not loaded.settings.tools.web.search.configured
        assert {line.split(" =")[0] for line in loaded.ignored} >= {"tools.web.search.backend", "tools.web.search.url"}
        ran = run_main("tool", "web_search", '{"query": "x"}', "--workspace", str(ws))
        assert ran.code == 1 and "search_not_configured" in ran.stdout
        assert "tools.web.search.backend" in ran.stderr  # the notice of what the project asked for
        assert fake.seen == []


def test_an_untrusted_project_cannot_redirect_the_users_backend_or_its_key(ws: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_SEARCH_KEY", "users-key")
    monkeypatch.setenv("OTHER_KEY", "another-secret")
    with FakeBackend("brave", [Result("mine", "https://mine.example/", "x")]) as users, \
            FakeBackend("brave", [Result("theirs", "https://theirs.example/", "x")]) as theirs:
        user_config(users.config())
        project_config(ws, f'[tools.web.search]\nurl = "{theirs.url}"\napi_key_env = "OTHER_KEY"\nbackend = "tavily"\n'
                           "max_results = 2\n", trusted=False)
        loaded = load_settings(ws)
        search = loaded.settings.tools.web.search
        assert (search.backend, search.url, search.api_key_env) == ("brave", users.url, "TEST_SEARCH_KEY")
        assert search.max_results == 2  # fewer results only narrows
        result = call_tool(open_tool_context(loaded), "web_search", query="x")
        assert result.success and result.data["results"][0]["url"] == "https://mine.example/"
        assert theirs.seen == [] and users.seen[0].headers["x-subscription-token"] == "users-key"


def test_a_trusted_project_can_configure_one_and_sneakycode_tool_runs_it(ws: Path) -> None:
    with FakeBackend("tavily", [Result("Found it", "https://found.example/a?utm_campaign=z", "the snippet")]) as fake:
        project_config(ws, fake.config())
        ran = run_main("tool", "web_search", '{"query": "needle"}', "--workspace", str(ws),
                       env={"TEST_SEARCH_KEY": "k-123"})
        assert ran.code == 0, ran.stdout + ran.stderr
        assert "1. Found it\n   https://found.example/a\n   the snippet" in ran.stdout
        assert fake.seen[0].headers["authorization"] == "Bearer k-123"  # held at start-up, still used


def test_the_tool_is_offered_only_when_a_backend_is_configured(ws: Path, site: Site) -> None:
    """No backend: not in the tools array (or over MCP); a backend: offered, and the model's call runs."""
    steps = [finish("Nothing to do.")]
    with ScriptedServer({"steps": list(steps), "models": ["scripted-model"]}) as server:
        assert run_main("-p", "Hi", "--base-url", server.base_url, "--model", "scripted-model", "--workspace",
                        str(ws), env=ENV).code == 0
        assert "web_search" not in offered(server.chat_requests[0]) and "web_fetch" in offered(server.chat_requests[0])
    gate = Gate(open_tool_context(load_settings(ws)))
    assert "web_search" not in [t.name for t in served_tools(gate)]
    with FakeBackend("searxng", []) as fake:
        project_config(ws, fake.config())
        gate = Gate(open_tool_context(load_settings(ws)))
        assert "web_search" in [t.name for t in served_tools(gate)]


def test_a_session_searches_then_reads_a_result_from_a_local_page(ws: Path, site: Site) -> None:
    """End to end: `sneakycode -p` against the scripted model; web_search (auto-approved) lists the local page,
    web_fetch reads it (allowed by a rule, private addresses allowed by the user's config)."""
    page = f"{site.url}/guide"
    results = [Result("Frobnicator guide", f"{page}?utm_source=search", "How the frobnicator works.",
                      "2025-11-02T08:00:00Z"),
               Result("Frobnicator guide (duplicate)", page + "#steps", "Same page.")]
    with FakeBackend("tavily", results) as fake:
        user_config("[tools.web]\nallow_private = true\n" + fake.config()
                    + '[permissions]\nallow = ["web_fetch(domain:127.0.0.1)"]\n')
        steps = [call("web_search", query="frobnicator guide", max_results=3), call("web_fetch", url=page),
                 finish("The frobnicator turns widgets into gadgets.")]
        with ScriptedServer({"steps": steps, "models": ["scripted-model"]}) as server:
            ran = run_main("-p", "How does the frobnicator work?", "--base-url", server.base_url, "--model",
                           "scripted-model", "--workspace", str(ws), env={**ENV, "TEST_SEARCH_KEY": "k"})
            assert ran.code == 0, ran.stderr
            assert "web_search" in offered(server.chat_requests[0])
            searched, fetched = tool_results(server.chat_requests[-1])
        assert [s.query for s in fake.seen] == ["frobnicator guide"]
    assert searched.startswith(f"1. Frobnicator guide\n   {page}\n   2025-11-02 · How the frobnicator works.")
    assert "duplicate" not in searched.split("\n\n(")[0] and "1 duplicate" in searched
    assert "three easy steps" in fetched
    assert site.hits["/guide"] == 1  # only web_fetch reached the page; the search fetched nothing
    assert ran.stdout.strip() == "The frobnicator turns widgets into gadgets."


def test_a_result_at_a_private_address_is_listed_but_never_fetched(ws: Path, site: Site) -> None:
    """The backend is the user's, but what it returns is not: a result on 127.0.0.1 is only text, and
    web_fetch still refuses it unless the user allowed private addresses."""
    with FakeBackend("searxng", [Result("Admin", f"{site.url}/guide", "internal")]) as fake:
        project_config(ws, fake.config())
        ctx = open_tool_context(load_settings(ws))
        listed = call_tool(ctx, "web_search", query="admin")
        assert listed.success and f"{site.url}/guide" in listed.content and site.hits["/guide"] == 0
        refused = call_tool(ctx, "web_fetch", url=f"{site.url}/guide")
        assert refused.code == "blocked_address" and site.hits["/guide"] == 0


def test_permissions_check_explains_web_search(ws: Path) -> None:
    args = json.dumps({"query": "x"})
    auto = run_main("permissions", "check", "web_search", args, "--workspace", str(ws))
    assert auto.code == 0 and "allow" in auto.stdout and "web_search is auto-approved (its tier is auto)" in auto.stdout
    assert "offered: no, web_search is not configured" in auto.stdout
    assert "results left out: URLs these deny rules refuse: (no domain deny rule)" in auto.stdout
    plan = run_main("permissions", "check", "web_search", args, "--workspace", str(ws), "--mode", "plan")
    assert "allow" in plan.stdout
    project_config(ws, '[tools.web.search]\nbackend = "brave"\n[permissions]\n'
                       'deny = ["web_fetch(domain:*.spam.example)", "web_search(domain:ads.example)"]\n')
    filtered = run_main("permissions", "check", "web_search", args, "--workspace", str(ws))
    assert "allow" in filtered.stdout and "offered: no" not in filtered.stdout
    assert "refuse: `web_fetch(domain:*.spam.example)` (permissions.deny in " in filtered.stdout
    assert "`web_search(domain:ads.example)`" in filtered.stdout
    project_config(ws, '[permissions]\ndeny = ["web_search"]\n')
    denied = run_main("permissions", "check", "web_search", args, "--workspace", str(ws))
    assert "deny" in denied.stdout and "`web_search`" in denied.stdout


def test_commands_never_get_the_search_key(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Like the model's key: even a variable name that does not look secret, and even with env_keep = ["*"]."""
    monkeypatch.setenv("SEARCHCFG", "the-search-secret")
    project_config(ws, '[tools.web.search]\nbackend = "brave"\napi_key_env = "SEARCHCFG"\n'
                       '[tools.shell]\nenv_keep = ["*"]\nsandbox = "off"\n')
    result = call_tool(open_tool_context(load_settings(ws)), "run_command", command="env")
    assert result.success and "the-search-secret" not in result.content and "SEARCHCFG" not in result.content


def test_permissions_list_takes_domain_rules_of_the_web_tools_and_flags_ones_that_never_match(ws: Path) -> None:
    project_config(ws, '[permissions]\ndeny = ["web_search(domain:*.spam.example)", "web_fetch(domain:*.internal)"]\n'
                       'allow = ["web_search(domain:docs.python.org)"]\n')
    listed = run_main("permissions", "list", "--workspace", str(ws))
    warnings = listed.stdout.partition("warnings:")[2]
    assert "spam.example" not in warnings and "*.internal" not in warnings
    assert "'web_search(domain:docs.python.org)'" in warnings and "only keeps results out" in warnings


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/", "http://", "http://[not-ipv6]/"])
def test_a_backend_url_that_is_no_http_address_is_a_clean_configuration_error(ws: Path, url: str) -> None:
    user_config(f'[tools.web.search]\nbackend = "searxng"\nurl = "{url}"\n')
    ran = run_main("tool", "web_search", '{"query": "x"}', "--workspace", str(ws))
    assert ran.code == 2 and "tools.web.search.url" in ran.stderr and "Traceback" not in ran.stderr


def test_claude_code_files_that_name_websearch_mean_web_search() -> None:
    """A hook matcher `WebSearch` or a subagent's `tools: WebSearch` written for Claude Code applies here, and
    a hook reads the domains as Claude Code's `allowed_domains`."""
    from sneakycode.tools.claude_names import claude_input, tools_named
    from sneakycode.tools.registry import all_tools, get_tool

    assert [t.name for t in tools_named("WebSearch", all_tools())] == ["web_search"]
    found = get_tool("web_search")
    assert found is not None
    shown = claude_input(found, {"query": "x", "domains": ["python.org"]})
    assert shown == {"query": "x", "domains": ["python.org"], "allowed_domains": ["python.org"]}


def test_a_websearch_hook_runs_on_web_search_without_the_search_key(ws: Path, tmp_path: Path) -> None:
    """A Claude Code hook with matcher `WebSearch` fires on web_search and reads `allowed_domains`; its
    environment lacks the search key (a variable name that does not look secret, env_keep = ["*"]), which the
    search itself still sends."""
    from tests.extensions.test_hooks import hook_script, hooks_toml

    dump = ('with open(os.environ["CLAUDE_PROJECT_DIR"] + "/../hook.json", "w") as fh:\n'
            '    json.dump({"env": dict(os.environ), "input": event["tool_input"]}, fh)\n')
    with FakeBackend("brave", [Result("Docs", "https://docs.python.org/3/", "x")]) as fake:
        user_config(fake.config(api_key_env="SEARCHCFG").replace('api_key_env = "TEST_SEARCH_KEY"\n', "")
                    + '[tools.shell]\nenv_keep = ["*"]\n'
                    + hooks_toml("PreToolUse", hook_script(tmp_path, "dump", dump), matcher="WebSearch"))
        steps = [call("web_search", query="pathlib", domains=["python.org"]), finish("Found the docs.")]
        with ScriptedServer({"steps": steps, "models": ["scripted-model"]}) as server:
            ran = run_main("-p", "Find it", "--base-url", server.base_url, "--model", "scripted-model", "--workspace",
                           str(ws), env={**ENV, "SEARCHCFG": "the-search-secret"})
        assert ran.code == 0, ran.stderr
        assert fake.seen[0].headers["x-subscription-token"] == "the-search-secret"
    seen = json.loads((tmp_path / "hook.json").read_text())
    assert seen["input"]["allowed_domains"] == ["python.org"]
    assert "SEARCHCFG" not in seen["env"] and "the-search-secret" not in json.dumps(seen["env"])
