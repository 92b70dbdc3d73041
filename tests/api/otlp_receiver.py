"""A tiny OTLP/HTTP collector on 127.0.0.1 for the telemetry tests: it records every POST to /v1/traces and
/v1/metrics (raw bytes and headers) and decodes them with opentelemetry-proto, as a real collector would."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.local_server import LocalServer, QuietHandler


@dataclass
class Export:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class OtlpReceiver:
    exports: list[Export] = field(default_factory=list)

    def __enter__(self) -> OtlpReceiver:
        received = self.exports

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                received.append(Export(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

        self._local = LocalServer(Handler).__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._local.__exit__(kind, value, traceback)

    @property
    def endpoint(self) -> str:
        return self._local.url

    def spans(self) -> list[dict[str, Any]]:
        """Every span received, as OTLP JSON (attributes flattened to a dict), its resource's attributes under
        `resource`."""
        found = []
        for export in self.exports:
            if export.path != "/v1/traces":
                continue
            request = ExportTraceServiceRequest.FromString(export.body)
            for resource_spans in MessageToDict(request)["resourceSpans"]:
                resource = attributes(resource_spans["resource"].get("attributes", []))
                for scope in resource_spans["scopeSpans"]:
                    for span in scope["spans"]:
                        found.append({**span, "attributes": attributes(span.get("attributes", [])),
                                      "resource": resource})
        return found

    def metrics(self) -> dict[str, list[dict[str, Any]]]:
        """Data points by metric name (attributes flattened), over every export received."""
        found: dict[str, list[dict[str, Any]]] = {}
        for export in self.exports:
            if export.path != "/v1/metrics":
                continue
            request = ExportMetricsServiceRequest.FromString(export.body)
            for resource_metrics in MessageToDict(request).get("resourceMetrics", []):
                for scope in resource_metrics["scopeMetrics"]:
                    for metric in scope["metrics"]:
                        data = metric.get("sum") or metric.get("histogram") or {}
                        found.setdefault(metric["name"], []).extend(
                            {**point, "attributes": attributes(point.get("attributes", []))}
                            for point in data.get("dataPoints", [])
                        )
        return found


def attributes(pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """OTLP's key/value list as a dict of plain values."""
    plain: dict[str, Any] = {}
    for pair in pairs:
        value = pair.get("value", {})
        if "arrayValue" in value:
            plain[pair["key"]] = [next(iter(v.values())) for v in value["arrayValue"].get("values", [])]
        else:
            plain[pair["key"]] = next(iter(value.values()), None)
    return plain
