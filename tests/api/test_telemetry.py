"""OpenTelemetry through the SDK's in-memory exporter and reader: a scripted run with a tool call that works,
one refused, one that fails and a finish gives the span tree and metrics an operator sees; nothing the user
typed, no file content, command output or key is exported unless `telemetry.include_content` is on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import sneakycode
from sneakycode.testing.server import ScriptedServer
from tests.api.conftest import call, finish

KEY = "sk-test-KEY-7f3a9c"
PROMPT = "Investigate the PROMPT-MARKER-51 module"
FILE_TEXT = "FILE-CONTENT-MARKER-77 = 1\n"
PRICE = {"input": 2.0, "output": 8.0}  # USD per million tokens, so the run has a cost


@dataclass
class Collected:
    spans: list[ReadableSpan]
    metrics: dict[str, list[tuple[dict[str, Any], float]]]
    result: sneakycode.Result

    def named(self, prefix: str) -> list[ReadableSpan]:
        return [s for s in self.spans if s.name.startswith(prefix)]

    def total(self, metric: str, **match: Any) -> float:
        return sum(value for attrs, value in self.metrics.get(metric, [])
                   if all(attrs.get(k) == v for k, v in match.items()))

    def everything(self) -> str:
        """Every attribute of every span and metric point, and every span's events, as one text."""
        parts = [json.dumps(dict(s.attributes or {})) + s.name + json.dumps(dict(s.resource.attributes))
                 for s in self.spans]
        parts += [json.dumps(attrs) for points in self.metrics.values() for attrs, _ in points]
        return "\n".join(parts)


@pytest.fixture
def providers() -> Iterator[tuple[InMemorySpanExporter, TracerProvider, InMemoryMetricReader, MeterProvider]]:
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    yield spans, tracer_provider, reader, meter_provider
    tracer_provider.shutdown()
    meter_provider.shutdown()


def scripted_run(providers: Any, ws: Path, steps: list[dict[str, Any]], *, mode: str = "default",
                 settings: dict[str, Any] | None = None, script: dict[str, Any] | None = None,
                 **more: Any) -> Collected:
    spans, tracer_provider, reader, meter_provider = providers
    (ws / "calc.py").write_text(FILE_TEXT)
    with ScriptedServer({"steps": steps, **(script or {})}) as server:
        options = sneakycode.Options(
            workspace=ws, base_url=server.base_url, model="scripted-model", api_key=KEY, isolated=True, mode=mode,
            tracer_provider=tracer_provider, meter_provider=meter_provider,
            settings={"pricing.scripted-model": PRICE, **(settings or {})}, **more,
        )
        with sneakycode.Session(options) as session:
            result = session.run(PROMPT)
    metrics: dict[str, list[tuple[dict[str, Any], float]]] = {}
    data = reader.get_metrics_data()
    for resource in data.resource_metrics if data else []:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                metrics[metric.name] = [
                    (dict(p.attributes or {}), float(getattr(p, "value", None) or getattr(p, "count", 0)))
                    for p in metric.data.data_points
                ]
    return Collected(list(spans.get_finished_spans()), metrics, result)


WORK = [
    call("read_file", file_path="calc.py"),
    call("run_command", command="echo COMMAND-OUTPUT-MARKER-33"),  # asks; nobody can approve: denied
    call("read_file", file_path="missing.py"),  # fails: not_found
    finish("Looked at calc.py."),
]


def test_a_run_is_one_trace_of_turns_model_requests_and_tool_calls(providers: Any, ws: Path) -> None:
    got = scripted_run(providers, ws, WORK)
    result = got.result
    assert result.status == "finished"
    (run,) = got.named("invoke_agent sneakycode")
    assert run.parent is None and run.attributes["sneakycode.status"] == "finished"
    assert run.attributes["gen_ai.usage.input_tokens"] == result.usage["prompt_tokens"]
    assert run.attributes["sneakycode.cost_usd"] == pytest.approx(result.cost["usd"])
    assert run.attributes["sneakycode.denied_calls"] == 1
    # One trace, the session id on every span.
    assert {s.context.trace_id for s in got.spans} == {run.context.trace_id}
    assert {s.attributes["session.id"] for s in got.spans} == {result.session_id}

    turns = got.named("sneakycode.turn")
    assert [t.attributes["sneakycode.turn"] for t in turns] == [1, 2, 3, 4]
    assert all(t.parent is not None and t.parent.span_id == run.context.span_id for t in turns)
    turn_ids = [t.context.span_id for t in turns]
    requests = got.named("chat scripted-model")
    assert len(requests) == 4 and [r.parent.span_id for r in requests if r.parent] == turn_ids
    for request in requests:
        assert request.attributes["gen_ai.request.model"] == "scripted-model"
        assert request.attributes["gen_ai.usage.input_tokens"] > 0
        assert request.attributes["sneakycode.cost_usd"] > 0
        assert request.attributes["server.address"] == "127.0.0.1"
    assert sum(r.attributes["gen_ai.usage.output_tokens"] for r in requests) == result.usage["completion_tokens"]

    calls = got.named("execute_tool")
    assert [c.name for c in calls] == ["execute_tool read_file", "execute_tool run_command",
                                       "execute_tool read_file", "execute_tool finish"]
    assert [c.parent.span_id for c in calls if c.parent] == turn_ids  # each under the turn that asked for it
    read, command, missing, done = (c.attributes for c in calls)
    assert read["sneakycode.tool.outcome"] == "success" and read["sneakycode.permission.decision"] == "allow"
    assert command["sneakycode.permission.decision"] == "ask"
    assert command["sneakycode.permission.outcome"] == "denied"
    assert command["error.type"] == "permission_denied" and command["sneakycode.tool.outcome"] == "denied"
    assert missing["error.type"] == "not_found" and missing["sneakycode.tool.success"] is False
    assert calls[2].status.status_code.name == "ERROR" and calls[0].status.status_code.name == "UNSET"
    assert done["sneakycode.tool.outcome"] == "success"


def test_metrics_count_tokens_cost_tool_calls_and_failures_by_code(providers: Any, ws: Path) -> None:
    got = scripted_run(providers, ws, WORK)
    result = got.result
    sid = result.session_id
    assert got.total("sneakycode.token.usage", **{"gen_ai.token.type": "input"}) == result.usage["prompt_tokens"]
    assert got.total("sneakycode.token.usage", **{"gen_ai.token.type": "output"}) == result.usage["completion_tokens"]
    assert got.total("sneakycode.cost.usage") == pytest.approx(result.cost["usd"], rel=1e-6)
    assert got.total("sneakycode.tool.calls", **{"session.id": sid}) == 4
    assert got.total("sneakycode.tool.calls", **{"gen_ai.tool.name": "run_command",
                                                 "sneakycode.tool.outcome": "denied"}) == 1
    assert got.total("sneakycode.failures", **{"error.type": "permission_denied"}) == 1
    assert got.total("sneakycode.failures", **{"error.type": "not_found"}) == 1
    assert got.total("sneakycode.failures") == 2
    assert got.total("sneakycode.runs", **{"sneakycode.status": "finished"}) == 1
    assert got.total("gen_ai.client.operation.duration") == 4  # one duration per model request
    assert got.total("sneakycode.tool.duration") == 4


def test_a_failed_model_request_ends_its_span_as_an_error_with_the_failure_counted(providers: Any, ws: Path) -> None:
    got = scripted_run(providers, ws, [{"content": "never"}], script={"api_key": "another-key"})
    assert got.result.status == "error" and got.result.error_kind == "auth"
    (request,) = got.named("chat ")
    assert request.status.status_code.name == "ERROR" and request.attributes["error.type"] == "auth"
    (run,) = got.named("invoke_agent")
    assert run.status.status_code.name == "ERROR"
    assert got.total("sneakycode.failures", **{"error.type": "auth", "sneakycode.failure.source": "model"}) == 1
    assert got.total("sneakycode.failures") == 1  # counted once, not again as the run's


def test_no_prompt_file_content_command_output_or_key_by_default_and_content_when_asked(
    providers: Any, ws: Path
) -> None:
    steps = [call("read_file", file_path="calc.py"), call("run_command", command="echo COMMAND-OUTPUT-MARKER-33"),
             {"content": "The REPLY-MARKER-90 answer."}]
    quiet = scripted_run(providers, ws, steps, mode="yolo").everything()
    assert "run_command" in quiet and "read_file" in quiet  # the names are there...
    for secret in (KEY, "PROMPT-MARKER-51", "FILE-CONTENT-MARKER-77", "COMMAND-OUTPUT-MARKER-33", "REPLY-MARKER-90"):
        assert secret not in quiet  # ...never what was typed, read, printed or answered, nor the key

    providers[0].clear()
    loud = scripted_run(providers, ws, steps, mode="yolo", settings={"telemetry.include_content": True}).everything()
    for content in ("PROMPT-MARKER-51", "FILE-CONTENT-MARKER-77", "COMMAND-OUTPUT-MARKER-33", "REPLY-MARKER-90"):
        assert content in loud
    assert KEY not in loud  # a key never, whatever is asked


def test_not_configured_nothing_of_opentelemetry_is_imported(ws: Path) -> None:
    """Zero cost when off: a whole run (the CLI's modules loaded too) without the module ever imported."""
    code = (
        "import sys, sneakycode, sneakycode.faces.cli.main, sneakycode.faces.cli.headless\n"
        "r = sneakycode.run('hi', workspace=sys.argv[1], base_url=sys.argv[2], model='m', api_key='k', isolated=True)\n"
        "print(r.status, sorted(m for m in sys.modules if m.startswith('opentelemetry')))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    with ScriptedServer([{"content": "hello"}]) as server:
        out = subprocess.run([sys.executable, "-c", code, str(ws), server.base_url], capture_output=True, text=True,
                             timeout=60, env=env)
    assert out.stdout.strip() == "answered []", out.stderr


def test_a_subagent_is_a_span_under_its_task_call_with_its_own_turns_and_calls(providers: Any, ws: Path) -> None:
    steps = [
        call("task", agent="explore", prompt="Where is calc?"),
        call("read_file", file_path="calc.py"),  # the subagent's
        {"content": "In calc.py."},  # the subagent's answer
        finish("Found it."),
    ]
    got = scripted_run(providers, ws, steps)
    assert got.result.status == "finished"
    (task,) = got.named("execute_tool task")
    (sub,) = got.named("invoke_agent explore-1")
    assert sub.parent is not None and sub.parent.span_id == task.context.span_id
    assert sub.attributes["sneakycode.status"] == "answered" and sub.attributes["sneakycode.turns"] == 2
    sub_turns = [t for t in got.named("sneakycode.turn") if t.attributes.get("sneakycode.agent") == "explore-1"]
    assert len(sub_turns) == 2 and all(t.parent and t.parent.span_id == sub.context.span_id for t in sub_turns)
    (read,) = got.named("execute_tool read_file")
    assert read.attributes["sneakycode.agent"] == "explore-1"
    assert read.parent is not None and read.parent.span_id in {t.context.span_id for t in sub_turns}
    assert len(got.named("chat ")) == 4  # two requests each, parent and subagent
    assert got.total("sneakycode.token.usage", **{"gen_ai.token.type": "input"}) == got.result.usage["prompt_tokens"]


def test_a_run_the_timeout_cut_short_is_a_budget_stop_in_its_span_and_metrics(providers: Any, ws: Path) -> None:
    got = scripted_run(providers, ws, [{"content": "too late"}], script={"delay": 5}, timeout=1)
    assert got.result.status == "budget" and got.result.budget == "timeout"
    (request,) = got.named("chat ")  # cut short: the loop accounts it, with the tokens estimated
    assert request.attributes["sneakycode.usage.estimated"] is True and request.end_time is not None
    (run,) = got.named("invoke_agent")
    assert run.attributes["sneakycode.budget"] == "timeout" and run.status.status_code.name == "UNSET"
    assert got.total("sneakycode.runs", **{"sneakycode.status": "budget"}) == 1
