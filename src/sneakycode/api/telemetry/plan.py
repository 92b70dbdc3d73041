"""Whether a session exports telemetry, and where: the `[telemetry]` settings read together with the standard
OTEL_* variables, by the specification's rules. Nothing here imports OpenTelemetry, so a session that
exports nothing pays for nothing."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from sneakycode.config.telemetry import TelemetrySettings
from sneakycode.process.environment import full_environment

DEFAULT_SERVICE = "sneakycode"
DEFAULT_ENDPOINT = "http://localhost:4318"  # the specification's, for OTLP/HTTP
# Any of these set means the user pointed OpenTelemetry at a collector: export, as every OTel-aware tool does.
ENDPOINT_VARIABLES = (
    "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
)  # fmt: skip
SIGNAL_SETTINGS = {"traces": "OTEL_TRACES_EXPORTER", "metrics": "OTEL_METRICS_EXPORTER"}


@dataclass(frozen=True)
class TelemetryPlan:
    """What to export and where. `endpoint` None: the exporter's own reading of the OTEL_* variables.
    `headers` hold secrets: they go to the exporter and nowhere else (never into a notice or attribute)."""

    signals: tuple[str, ...]
    protocol: str
    endpoint: str | None
    headers: dict[str, str] = field(repr=False, default_factory=dict)
    env_headers: dict[str, str] = field(repr=False, default_factory=dict)
    """OTEL_EXPORTER_OTLP_[SIGNAL_]HEADERS by signal, unparsed: held at start-up, so the exporter cannot read them."""
    service_name: str = DEFAULT_SERVICE
    timeout: float | None = None
    include_content: bool = False
    problems: tuple[str, ...] = ()

    def describe(self) -> str:
        """Where the data goes, for a notice: scheme, host, port and path (no credentials, no header values)."""
        url = (self.endpoint or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
               or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or DEFAULT_ENDPOINT)
        parts = urlsplit(url)
        try:
            port = f":{parts.port}" if parts.port else ""
        except ValueError:
            port = ""
        return f"{parts.scheme}://{parts.hostname}{port}{parts.path}" if parts.hostname else "an unreadable URL"


def is_true(value: str | None) -> bool:
    return (value or "").strip().lower() == "true"


def plan_telemetry(settings: TelemetrySettings, environ: Mapping[str, str] | None = None) -> TelemetryPlan | None:
    """The export this session makes, or None: off unless `enabled`, `endpoint` or an OTLP endpoint variable
    says otherwise; OTEL_SDK_DISABLED=true and `enabled = false` always win; OTEL_TRACES_EXPORTER /
    OTEL_METRICS_EXPORTER = none turn one signal off."""
    # Held credentials included: a collector key (headers_env) is moved out of os.environ at start-up.
    env = full_environment() if environ is None else environ
    if is_true(env.get("OTEL_SDK_DISABLED")) or settings.enabled is False:
        return None
    asked = settings.enabled or settings.endpoint is not None or any(env.get(name) for name in ENDPOINT_VARIABLES)
    if not asked:
        return None
    signals: list[str] = []
    problems: list[str] = []
    for signal, variable in SIGNAL_SETTINGS.items():
        chosen = (env.get(variable) or "otlp").strip().lower()
        if chosen == "otlp":
            signals.append(signal)
        elif chosen != "none":
            problems.append(f"{variable}={chosen} is not supported (otlp or none), so no {signal} are exported")
    if not signals:
        return None if not problems else TelemetryPlan((), "", None, problems=tuple(problems))
    protocol = settings.protocol or (env.get("OTEL_EXPORTER_OTLP_PROTOCOL") or "http/protobuf").strip().lower()
    if protocol not in ("http/protobuf", "grpc"):
        problems.append(f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol} is not supported; http/protobuf is used")
        protocol = "http/protobuf"
    headers: dict[str, str] = {}
    env_headers = {
        signal: env.get(f"OTEL_EXPORTER_OTLP_{signal.upper()}_HEADERS") or env.get("OTEL_EXPORTER_OTLP_HEADERS", "")
        for signal in signals
    }
    for header, variable in settings.headers_env.items():
        value = env.get(variable)
        if value:
            headers[header] = value
        else:
            problems.append(f"telemetry.headers_env: {variable} (for the {header} header) is not set")
    return TelemetryPlan(
        signals=tuple(signals),
        protocol=protocol,
        endpoint=settings.endpoint.rstrip("/") if settings.endpoint else None,
        headers=headers,
        env_headers=env_headers,
        service_name=settings.service_name or env.get("OTEL_SERVICE_NAME") or DEFAULT_SERVICE,
        timeout=settings.timeout,
        include_content=settings.include_content,
        problems=tuple(problems),
    )
