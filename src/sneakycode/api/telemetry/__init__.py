"""OpenTelemetry for every session (docs/ci.md): spans and metrics from the session's events, exported over
OTLP when `[telemetry]` or the OTEL_* variables ask for it, or handed to a program's own providers
(`Options.tracer_provider` / `meter_provider`).

Not configured, nothing of OpenTelemetry is imported. Configured without `sneakycode[otel]` installed, the
session says so in one notice and runs without it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from sneakycode.api.telemetry.plan import TelemetryPlan, plan_telemetry

if TYPE_CHECKING:
    from sneakycode.api.result import Result
    from sneakycode.api.session import Session
    from sneakycode.api.telemetry.recorder import Recorder

INSTALL = "pip install 'sneakycode[otel]'"
SHUTDOWN_WAIT = 5.0  # seconds the end of a session waits for the last export when telemetry.timeout is unset


def clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."

__all__ = ["TelemetryPlan", "observed_run", "plan_telemetry", "start_telemetry"]


def start_telemetry(session: Session, notice: Callable[[str], None]) -> Recorder | None:
    """The session's recorder, or None when nothing is to be recorded (then nothing was imported)."""
    options = session.options
    settings = session.loaded.settings.telemetry
    given = options.tracer_provider is not None or options.meter_provider is not None
    export = None
    where = ""
    if not given:
        plan = plan_telemetry(settings)
        if plan is None:
            return None
        for problem in plan.problems:
            notice(f"telemetry: {problem}")
        if not plan.signals:
            return None
        where = plan.describe()
        try:
            from sneakycode.api.telemetry.export import open_export

            export = open_export(plan)
        except ImportError as exc:
            package = "opentelemetry-exporter-otlp-proto-grpc" if plan.protocol == "grpc" else "OpenTelemetry"
            notice(f"telemetry is configured (export to {where}) but {package} is not installed "
                   f"({exc.name or exc}), so nothing is exported: {INSTALL}")
            return None
        except Exception as exc:  # the SDK refused its configuration: the session runs without telemetry
            notice(f"telemetry could not start ({type(exc).__name__}: {exc}), so nothing is exported")
            return None
    try:
        from sneakycode.api.telemetry.recorder import Recorder, SessionFacts
    except ImportError:
        notice(f"Options.tracer_provider/meter_provider were given but OpenTelemetry is not installed: {INSTALL}")
        return None

    def close() -> None:
        if export is None:
            return
        problems = export.shutdown(settings.timeout or SHUTDOWN_WAIT)
        if problems:
            notice(f"telemetry: exporting to {where} failed: {clip(problems[0])}"
                   + (f" ({len(problems) - 1} more problem(s))" if len(problems) > 1 else ""))

    spending = session._agent.spending
    facts = SessionFacts(
        session_id=session.session_id,
        provider=lambda: session.config.provider,
        model=lambda: session.model,
        server=lambda: _server(session.config.base_url),
        mode=lambda: session._agent.mode.value,
        cost=lambda: spending.cost if spending.price is not None else None,
    )
    return Recorder(
        facts,
        options.tracer_provider if given else (export.tracer_provider if export else None),
        options.meter_provider if given else (export.meter_provider if export else None),
        include_content=settings.include_content,
        on_close=close,
    )


def _server(base_url: str) -> tuple[str, int | None]:
    """The model server's host and port (never its path or credentials)."""
    parsed = urlparse(base_url)
    try:
        port = parsed.port
    except ValueError:
        port = None
    return parsed.hostname or "", port


@contextmanager
def observed_run(recorder: Recorder | None, prompt: str) -> Iterator[Callable[[Result], Result]]:
    """Around one request: its run span opened, then closed with the Result handed to the callback (or as an
    error when the request raised)."""
    if recorder is None:
        yield lambda result: result
        return
    recorder.run_started(prompt)
    try:
        yield recorder.run_ended
    except BaseException as exc:
        recorder.run_failed(exc)
        raise

