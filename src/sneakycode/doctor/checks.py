"""A doctor's findings: one Check per layer probed, each with a verdict, what was measured and, when it did
not pass, which layer is at fault and the exact fix; the Report gathers them with the settings that worked."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Verdict = Literal["pass", "warn", "fail", "skip"]
Layer = Literal["", "server", "model", "config", "network"]


@dataclass
class Check:
    name: str
    verdict: Verdict
    measured: str
    """What was sent and seen, in one sentence."""
    layer: Layer = ""
    """Who is at fault when the verdict is warn or fail: the server software, the model, or SneakyCode's config."""
    fix: str = ""
    """The server flag, environment variable or config key that fixes it."""
    data: dict[str, Any] = field(default_factory=dict)
    """The numbers behind `measured`, for --json."""


@dataclass
class Report:
    provider: str
    base_url: str
    model: str
    server_kind: str
    checks: list[Check] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    """The settings that worked, by the key of `[model_settings."MODEL"]`, for --save."""
    saved_to: str | None = None

    def add(self, check: Check) -> Check:
        self.checks.append(check)
        return check

    def skip(self, names: list[str], why: str) -> None:
        """The checks that cannot run once an earlier one failed, said as such (never half-run)."""
        for name in names:
            self.add(Check(name, "skip", why))

    @property
    def failed(self) -> bool:
        return any(check.verdict == "fail" for check in self.checks)

    def counts(self) -> dict[str, int]:
        verdicts: tuple[Verdict, ...] = ("pass", "warn", "fail", "skip")
        return {v: sum(check.verdict == v for check in self.checks) for v in verdicts}

    def to_dict(self) -> dict[str, Any]:
        """The --json document (its shape is documented in docs/models.md)."""
        return {
            "provider": self.provider,
            "base_url": self.base_url,
            "model": self.model,
            "server_kind": self.server_kind or None,
            "ok": not self.failed,
            "counts": self.counts(),
            "checks": [asdict(check) for check in self.checks],
            "settings": self.settings,
            "saved_to": self.saved_to,
        }
