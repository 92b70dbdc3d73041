"""The OpenTelemetry SDK's providers and OTLP exporters for one session, built from a TelemetryPlan.

Imported only when telemetry is on: importing this module is what needs `sneakycode[otel]`. The providers
are the session's own (the global ones are left to the program that embeds SneakyCode), and `shutdown`
flushes them within the plan's timeout.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import cast

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import MetricExporter, PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.util.re import parse_env_headers

from sneakycode.api.telemetry.plan import TelemetryPlan
from sneakycode.version import __version__

SIGNAL_PATHS = {"traces": "/v1/traces", "metrics": "/v1/metrics"}


class ExportProblems(logging.Handler):
    """Keeps what the SDK logs about failed exports (a collector down, a 401) for one notice at the end. While
    it is attached the SDK's warnings never reach stderr through Python's last-resort handler, and a program's
    own logging configuration still gets them."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.messages) < 20:
            self.messages.append(record.getMessage().splitlines()[0] if record.getMessage() else record.levelname)


@dataclass
class Export:
    """The session's providers; `shutdown` exports what is left and stops their threads."""

    tracer_provider: TracerProvider | None
    meter_provider: MeterProvider | None
    problems: ExportProblems = field(default_factory=ExportProblems)

    def shutdown(self, wait: float) -> list[str]:
        """Flush and stop both providers, together, waiting at most `wait` seconds (a collector that is down
        must not hold the end of a run for the exporter's retries); what went wrong, one line each."""
        providers: list[TracerProvider | MeterProvider] = [
            p for p in (self.tracer_provider, self.meter_provider) if p is not None]
        threads = [threading.Thread(target=p.shutdown, name="sneakycode-telemetry", daemon=True) for p in providers]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + wait
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        problems = list(dict.fromkeys(self.problems.messages))
        if any(thread.is_alive() for thread in threads):
            # Still retrying: the handler stays, so its later warnings stay quiet too.
            return [*problems, f"the last export did not finish within {wait:g} s"]
        logging.getLogger("opentelemetry").removeHandler(self.problems)
        return problems


def open_export(plan: TelemetryPlan) -> Export:
    """The providers the plan asks for, each with its OTLP exporter (an ImportError when the grpc exporter
    it names is not installed)."""
    resource = Resource.create({"service.name": plan.service_name, "service.version": __version__})
    problems = ExportProblems()
    logging.getLogger("opentelemetry").addHandler(problems)
    tracer_provider = meter_provider = None
    if "traces" in plan.signals:
        # shutdown_on_exit off: the session shuts it down when it closes, within its timeout, not at exit.
        tracer_provider = TracerProvider(resource=resource, shutdown_on_exit=False)
        tracer_provider.add_span_processor(BatchSpanProcessor(_span_exporter(plan)))
    if "metrics" in plan.signals:
        reader = PeriodicExportingMetricReader(_metric_exporter(plan))
        meter_provider = MeterProvider(resource=resource, metric_readers=[reader], shutdown_on_exit=False)
    return Export(tracer_provider, meter_provider, problems)


def _url(plan: TelemetryPlan, signal: str) -> str | None:
    if plan.endpoint is None:
        return None  # the exporter reads OTEL_EXPORTER_OTLP_{SIGNAL_}ENDPOINT itself
    return plan.endpoint if plan.protocol == "grpc" else plan.endpoint + SIGNAL_PATHS[signal]


def _span_exporter(plan: TelemetryPlan) -> SpanExporter:
    if plan.protocol == "grpc":
        return cast(SpanExporter, _grpc("trace_exporter", "OTLPSpanExporter", plan, "traces"))
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter(endpoint=_url(plan, "traces"), headers=_headers(plan, "traces"), timeout=plan.timeout)


def _metric_exporter(plan: TelemetryPlan) -> MetricExporter:
    if plan.protocol == "grpc":
        return cast(MetricExporter, _grpc("metric_exporter", "OTLPMetricExporter", plan, "metrics"))
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

    return OTLPMetricExporter(endpoint=_url(plan, "metrics"), headers=_headers(plan, "metrics"), timeout=plan.timeout)


def _grpc(module: str, name: str, plan: TelemetryPlan, signal: str) -> object:
    """The gRPC exporter, which `sneakycode[otel]` does not install (an ImportError names the package)."""
    exporter = getattr(importlib.import_module(f"opentelemetry.exporter.otlp.proto.grpc.{module}"), name)
    return exporter(endpoint=_url(plan, signal), headers=_headers(plan, signal), timeout=plan.timeout)


def _headers(plan: TelemetryPlan, signal: str) -> dict[str, str] | None:
    """The OTEL_EXPORTER_OTLP_*HEADERS (parsed as the SDK does) with `telemetry.headers_env` on top."""
    return {**parse_env_headers(plan.env_headers.get(signal, ""), liberal=True), **plan.headers} or None
