"""OpenTelemetry over OTLP/HTTP from the real `sneakycode -p` to a collector on 127.0.0.1, decoded with
opentelemetry-proto: configured by `[telemetry]` or the standard OTEL_* variables, off by OTEL_SDK_DISABLED,
never turned on by an untrusted repository, a missing SDK or a dead collector one line on stderr."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from sneakycode.api.telemetry.plan import plan_telemetry
from sneakycode.config.telemetry import TelemetrySettings
from sneakycode.testing.server import ScriptedServer
from tests.api.conftest import call, finish
from tests.api.otlp_receiver import OtlpReceiver
from tests.batch.scenario import done, make_repo, write_tasks
from tests.conftest import CliResult, project_config, run_cli, run_main

KEY = "sk-cli-KEY-4242"
LOOPBACK = {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
STEPS = [call("read_file", file_path="notes.txt"), call("run_command", command="echo OUTPUT-MARKER-8"),
         finish("Read the notes.")]


def headless(ws: Path, server: ScriptedServer, env: dict[str, str], *flags: str) -> CliResult:
    """`-p` with the model's key in the environment, as CI passes a secret (the server checks it)."""
    (ws / "notes.txt").write_text("NOTES-CONTENT-MARKER-6\n")
    return run_cli("-p", "Summarise PROMPT-MARKER-5", "--base-url", server.base_url, "--model", "scripted-model",
                   "--workspace", str(ws), "--output-format", "json", *flags,
                   env={**LOOPBACK, "SNEAKYCODE_API_KEY_ENV": "MODEL_KEY", "MODEL_KEY": KEY, **env}, timeout=90)


def test_otlp_export_from_the_cli_configured_by_otel_variables(ws: Path) -> None:
    with OtlpReceiver() as collector, ScriptedServer({"steps": STEPS, "api_key": KEY}) as server:
        result = headless(ws, server, {"OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint,
                                       "OTEL_EXPORTER_OTLP_HEADERS": "x-collector-token=abc123",
                                       "OTEL_SERVICE_NAME": "ci-agent"})
        assert result.code == 0, result.stderr
    final = json.loads(result.stdout)
    spans = collector.spans()
    names = sorted(s["name"] for s in spans)
    assert names == sorted(["invoke_agent sneakycode", *["sneakycode.turn"] * 3, *["chat scripted-model"] * 3,
                            "execute_tool read_file", "execute_tool run_command", "execute_tool finish"])
    assert {s["attributes"]["session.id"] for s in spans} == {final["session_id"]}
    assert {s["resource"]["service.name"] for s in spans} == {"ci-agent"}
    denied = next(s for s in spans if s["name"] == "execute_tool run_command")
    assert denied["attributes"]["sneakycode.permission.outcome"] == "denied"
    assert denied["attributes"]["error.type"] == "permission_denied"
    metrics = collector.metrics()
    output_tokens = sum(int(p["asInt"]) for p in metrics["sneakycode.token.usage"]
                        if p["attributes"]["gen_ai.token.type"] == "output")
    assert output_tokens == final["usage"]["completion_tokens"]
    assert {p["attributes"]["error.type"] for p in metrics["sneakycode.failures"]} == {"permission_denied"}
    assert all(e.headers.get("x-collector-token") == "abc123" for e in collector.exports)
    # What went over the wire: neither the key nor the prompt, the file or the command's output.
    wire = b"".join(e.body for e in collector.exports) + json.dumps([e.headers for e in collector.exports]).encode()
    for secret in (KEY, "PROMPT-MARKER-5", "NOTES-CONTENT-MARKER-6", "OUTPUT-MARKER-8"):
        assert secret.encode() not in wire
    assert "Traceback" not in result.stderr


def test_user_config_turns_it_on_with_content_and_headers_from_the_environment(
    ws: Path, isolated_home: Path
) -> None:
    """Content when asked for; the collector's keys (a credential-named variable, held at start-up, and
    OTEL_EXPORTER_OTLP_HEADERS) reach the collector as headers, and never a command the model runs."""
    steps = [call("read_file", file_path="notes.txt"),
             call("run_command", command="echo OUTPUT-MARKER-8; env | grep -i collector; true"), finish("Read.")]
    with OtlpReceiver() as collector, ScriptedServer({"steps": steps, "api_key": KEY}) as server:
        config = isolated_home / ".config" / "sneakycode" / "config.toml"
        config.parent.mkdir(parents=True)
        config.write_text(f'[telemetry]\nendpoint = "{collector.endpoint}/"\ninclude_content = true\n'
                          '[telemetry.headers_env]\n"x-api-key" = "COLLECTOR_API_KEY"\n')
        result = headless(ws, server, {"COLLECTOR_API_KEY": "collector-secret",
                                       "OTEL_EXPORTER_OTLP_HEADERS": "x-collector-org=org-secret"}, "--yes")
        assert result.code == 0, result.stderr
    wire = b"".join(e.body for e in collector.exports)
    for content in ("PROMPT-MARKER-5", "NOTES-CONTENT-MARKER-6", "OUTPUT-MARKER-8"):
        assert content.encode() in wire  # the command ran, and its output is exported...
    for secret in (KEY, "collector-secret", "org-secret"):
        assert secret.encode() not in wire  # ...without the keys in it
    assert {e.path for e in collector.exports} == {"/v1/traces", "/v1/metrics"}
    assert all(e.headers.get("x-api-key") == "collector-secret" for e in collector.exports)
    assert all(e.headers.get("x-collector-org") == "org-secret" for e in collector.exports)


def test_an_untrusted_repository_cannot_turn_export_on_until_trusted(ws: Path) -> None:
    with OtlpReceiver() as collector, ScriptedServer([{"content": "one"}, {"content": "two"}]) as server:
        text = f'[telemetry]\nenabled = true\nendpoint = "{collector.endpoint}"\ninclude_content = true\n'
        project_config(ws, text, trusted=False)
        result = headless(ws, server, {})
        assert result.code == 0, result.stderr
        assert collector.exports == []
        assert "telemetry.endpoint" in result.stderr and "telemetry.enabled" in result.stderr
        project_config(ws, text, trusted=True)
        result = headless(ws, server, {})
        assert result.code == 0, result.stderr
        assert any(e.path == "/v1/traces" for e in collector.exports)


def test_otel_sdk_disabled_wins_over_an_endpoint(ws: Path) -> None:
    with OtlpReceiver() as collector, ScriptedServer([{"content": "hi"}]) as server:
        result = headless(ws, server, {"OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint, "OTEL_SDK_DISABLED": "true"})
        assert result.code == 0, result.stderr
        assert collector.exports == []


def test_without_the_sdk_installed_one_notice_and_the_run_goes_on(ws: Path, tmp_path: Path) -> None:
    """`sneakycode[otel]` not installed: a package named opentelemetry that cannot be imported stands in."""
    shadow = tmp_path / "shadow" / "opentelemetry"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'opentelemetry'\", "
                                        "name='opentelemetry')\n")
    src = Path(__file__).resolve().parents[2] / "src"
    with ScriptedServer([{"content": "Done anyway."}]) as server:
        result = headless(ws, server, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",
                                       "PYTHONPATH": f"{shadow.parent}:{src}"})
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["result"] == "Done anyway."
    lines = [line for line in result.stderr.splitlines() if "telemetry" in line]
    assert len(lines) == 1 and "pip install 'sneakycode[otel]'" in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_a_dead_collector_costs_one_line_and_a_bounded_wait(ws: Path) -> None:
    with ScriptedServer([{"content": "Fine."}]) as server:
        started = time.monotonic()
        result = headless(ws, server, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",
                                       "OTEL_EXPORTER_OTLP_TIMEOUT": "2"})
        took = time.monotonic() - started
    assert result.code == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if "telemetry" in line]
    assert len(lines) == 1 and "exporting to http://127.0.0.1:9 failed" in lines[0], result.stderr
    assert "Traceback" not in result.stderr and took < 30


@pytest.mark.parametrize(
    ("settings", "env", "signals"),
    [
        ({}, {}, None),  # nothing configured: off
        ({}, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, ("traces", "metrics")),
        ({}, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, ("traces", "metrics")),
        ({"enabled": True}, {"OTEL_SDK_DISABLED": "TRUE"}, None),
        ({"endpoint": "http://c:4318"}, {"OTEL_METRICS_EXPORTER": "none"}, ("traces",)),
        ({"enabled": False}, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, None),
        ({"enabled": True}, {"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"}, None),
    ],
)
def test_the_standard_variables_decide_as_the_specification_says(
    settings: dict[str, object], env: dict[str, str], signals: tuple[str, ...] | None
) -> None:
    plan = plan_telemetry(TelemetrySettings.model_validate(settings), env)
    assert (plan.signals if plan is not None else None) == signals


def test_the_plan_names_what_it_cannot_do_and_keeps_header_values_out_of_its_repr() -> None:
    plan = plan_telemetry(TelemetrySettings(enabled=True, headers_env={"x-key": "K", "x-gone": "GONE"}),
                          {"K": "hidden-value", "OTEL_TRACES_EXPORTER": "console", "OTEL_SERVICE_NAME": "svc"})
    assert plan is not None and plan.signals == ("metrics",) and plan.service_name == "svc"
    assert plan.headers == {"x-key": "hidden-value"} and "hidden-value" not in repr(plan)
    assert any("OTEL_TRACES_EXPORTER=console" in p for p in plan.problems)
    assert any("GONE" in p for p in plan.problems)


def test_every_batch_task_exports_its_own_run(tmp_path: Path) -> None:
    """batch's workers are `-p` runs: each task is a trace of its own, under its own session id."""
    repo = make_repo(tmp_path, "r", {"a.txt": "a\n"})
    with OtlpReceiver() as collector, ScriptedServer([done(), done()]) as server:
        task = {"repo": str(repo), "prompt": "p", "base_url": server.base_url, "model": "m"}
        tasks = write_tasks(tmp_path / "tasks.jsonl", [{"id": "one", **task}, {"id": "two", **task}])
        run = run_main("batch", str(tasks), "--out", str(tmp_path / "out"), "--workers", "1", "--no-sandbox",
                       env={**LOOPBACK, "OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint}, timeout=120)
        assert run.code == 0, run.stderr
    runs = [s for s in collector.spans() if s["name"] == "invoke_agent sneakycode"]
    assert len(runs) == 2 and len({s["traceId"] for s in runs}) == 2
    assert len({s["attributes"]["session.id"] for s in runs}) == 2
    assert {s["attributes"]["sneakycode.status"] for s in runs} == {"answered"}
