"""The interactive session's check at start: one GET /models, bounded, that says at once when the server is down
or refuses the key, with the fix, instead of the first message finding out after its retries. The finding and
its fix are the doctor's own (`check_endpoint`), so the two never word the same problem differently."""

from __future__ import annotations

from sneakycode.api.model_facts import ModelConfig
from sneakycode.api.probe import Endpoint
from sneakycode.doctor.checks import Report
from sneakycode.doctor.endpoint import check_endpoint

START_CHECK_TIMEOUT = 5.0
"""Seconds the check waits for GET /models; a hosted provider answers well within it."""


def endpoint_problem(config: ModelConfig, timeout: float = START_CHECK_TIMEOUT) -> str | None:
    """Why this endpoint cannot be used, with the fix (server down, wrong base_url, key refused); None when
    GET /models answered (a model missing from its list is left to the first request, as single-model servers
    answer any name)."""
    report = Report(config.provider, config.base_url, config.model, config.server_kind)
    endpoint = Endpoint(config, timeout)
    try:
        check_endpoint(report, endpoint)
    finally:
        endpoint.close()
    failed = next((check for check in report.checks if check.verdict == "fail"), None)
    if failed is None:
        return None
    return f"{failed.measured}. Fix: {failed.fix}." if failed.fix else f"{failed.measured}."
