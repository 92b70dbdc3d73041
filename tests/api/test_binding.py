"""Issue 36, one model binding: every model a session runs (start-up, set_model, a subagent's own, the small
model) is priced the same way, so a cost budget can no longer be turned off by a model without a price, and
the tokens of subagents and the small model stop the run like the main model's."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import sneakycode
from sneakycode.testing.server import ScriptedServer
from tests.api.conftest import call, finish, tool_messages

PRICED = {"input": 1.0, "output": 1.0}  # USD per million tokens: 1M prompt tokens cost $1
BIG = {"prompt_tokens": 1_000_000, "completion_tokens": 10}


def options(server: ScriptedServer, repo: Path, **settings: Any) -> sneakycode.Options:
    return sneakycode.Options(
        workspace=repo, base_url=server.base_url, model="main-model", api_key="k", isolated=True, max_cost=0.5,
        settings={"retry_backoff": 0.01, "pricing.main-model": PRICED, "pricing.small-model": PRICED, **settings},
    )


def test_set_model_to_a_model_without_a_price_under_max_cost_is_refused_like_at_start_up(
    server: ScriptedServer, repo: Path
) -> None:
    """Regression (issue 36): `switch_model` to an unpriced model silently turned `--max-cost` off (12 M tokens,
    no stop, cost None); now both roles are refused with start-up's ConfigError and the session is unchanged."""
    with pytest.raises(sneakycode.ConfigError) as at_start:
        sneakycode.Session(sneakycode.Options(workspace=repo, base_url=server.base_url, model="unpriced",
                                              api_key="k", isolated=True, max_cost=0.5))
    server.add_steps([{"content": "still here", "usage": BIG}])
    with sneakycode.Session(options(server, repo)) as session:
        with pytest.raises(sneakycode.ConfigError) as switched:
            session.set_model("unpriced")
        with pytest.raises(sneakycode.ConfigError) as small:
            session.set_model("unpriced", role="small")
        assert session.model == "main-model" and session.small_config is None
        result = session.run("hi")
    assert str(switched.value) == str(small.value) == str(at_start.value)
    assert "unpriced" in str(switched.value)
    assert result.cost["usd"] == pytest.approx(1.0, abs=0.01)  # still counted at the main model's price
    assert [r["model"] for r in server.chat_requests] == ["main-model"]


def test_a_subagents_tokens_stop_the_run_at_max_cost(server: ScriptedServer, repo: Path) -> None:
    """Regression (issue 36): a subagent ran without the session's budgets, so it went on past max_cost until
    it finished; now it stops at the budget, and so does the run."""
    server.add_steps([
        call("task", agent="explore", prompt="look around"),
        {**call("list_files", path="."), "usage": BIG},  # the subagent's first reply crosses the budget
        finish("never sent"),
    ])
    with sneakycode.Session(options(server, repo)) as session:
        result = session.run("explore")
    assert result.status == "budget" and result.budget == "max_cost"
    assert len(server.chat_requests) == 2  # neither the subagent nor the parent asked the model again
    assert result.cost["usd"] is not None and result.cost["usd"] >= 0.5


def test_a_subagent_on_a_model_without_a_price_is_refused_under_max_cost(server: ScriptedServer,
                                                                          repo: Path) -> None:
    """Regression (issue 36): a definition's own `model:` was used unpriced, its tokens counting nothing."""
    agents = repo / ".sneakycode" / "agents"
    agents.mkdir(parents=True)
    (agents / "costly.md").write_text(
        "---\nname: costly\ndescription: d\ntools: read_file\nmodel: unpriced\n---\nWork.\n")
    server.add_steps([call("task", agent="costly", prompt="go"), finish("done")])
    # Trusted: before trust a repository's `model:` is not used at all (hardening round three, class 9).
    with sneakycode.Session(replace(options(server, repo), trust_project=True)) as session:
        result = session.run("delegate")
    assert result.status == "finished"
    answer = tool_messages(server.chat_requests[1])[0]
    assert answer.startswith("Error [subagent_failed]") and 'pricing."unpriced"' in answer
    assert [r["model"] for r in server.chat_requests] == ["main-model", "main-model"]


def test_the_small_models_tokens_stop_the_run_at_max_cost(server: ScriptedServer, repo: Path) -> None:
    """The explore subagent runs on the small model; its tokens count at its price against max_cost."""
    server.add_steps([
        call("task", agent="explore", prompt="look around"),
        {**call("list_files", path="."), "usage": BIG},
        finish("never sent"),
    ])
    with sneakycode.Session(options(server, repo, **{"models.small": "small-model"})) as session:
        result = session.run("explore")
    assert result.status == "budget" and result.budget == "max_cost"
    assert [r["model"] for r in server.chat_requests[:2]] == ["main-model", "small-model"]
    # (the title of the session may follow, on the small model); no one sent the subagent's results back
    assert not any(m["role"] == "tool" for r in server.chat_requests for m in r["messages"])
