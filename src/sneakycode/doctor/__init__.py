"""`sneakycode doctor`: does this model work here? The endpoint and model checked layer by layer (server,
window, streaming, tool calls, reasoning, caching, speed), each with a verdict, what it measured, and when it
fails, the layer at fault and the exact fix. See docs/models.md."""

from sneakycode.doctor.checks import Check, Report
from sneakycode.doctor.run import run_doctor

__all__ = ["Check", "Report", "run_doctor"]
