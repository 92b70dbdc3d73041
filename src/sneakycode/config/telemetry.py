"""The `[telemetry]` section: OpenTelemetry export of runs, turns, model requests and tool calls (docs/ci.md).

Off unless configured here or by the standard OTEL_* variables. Where the data goes (`endpoint`,
`headers_env`, `protocol`) and whether content goes with it are user-or-trusted-only (config/trust.py): a
repository cannot turn on export to its own collector.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class TelemetrySettings(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True, defer_build=True)

    enabled: bool | None = Field(
        None,
        description="Export OpenTelemetry spans and metrics (needs `pip install 'sneakycode[otel]'`). Unset: on "
        "when `endpoint` or OTEL_EXPORTER_OTLP_ENDPOINT (or a signal's own) is set; OTEL_SDK_DISABLED=true "
        "always turns it off.",
    )
    endpoint: str | None = Field(
        None,
        description="The OTLP collector's base URL (`http://collector:4318`); /v1/traces and /v1/metrics are "
        "appended. Unset: OTEL_EXPORTER_OTLP_ENDPOINT and its per-signal variables, else http://localhost:4318.",
    )
    protocol: Literal["http/protobuf", "grpc"] | None = Field(
        None,
        description="OTLP transport (unset: OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf; grpc needs "
        "opentelemetry-exporter-otlp-proto-grpc).",
    )
    headers_env: dict[str, str] = Field(
        default_factory=dict,
        description='Headers sent to the collector, each from an environment variable: `{ "x-api-key" = '
        '"COLLECTOR_KEY" }` (OTEL_EXPORTER_OTLP_HEADERS is sent too).',
    )
    service_name: str | None = Field(
        None, description="The `service.name` resource attribute (unset: OTEL_SERVICE_NAME, else sneakycode)."
    )
    timeout: float | None = Field(
        None, gt=0, description="Seconds one export may take (unset: OTEL_EXPORTER_OTLP_TIMEOUT, else 10), and the "
        "longest the end of a session waits for the last one (unset: 5)."
    )
    include_content: bool = Field(
        False,
        description="Also export the prompt, the model's replies, tool arguments and tool output (off: names, "
        "decisions, codes, durations, tokens and cost only; never a key).",
    )
