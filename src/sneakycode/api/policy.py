"""A program's permission policy (`Options.can_use_tool`) as the gate's Approver."""

from __future__ import annotations

from sneakycode.api.options import CanUseTool
from sneakycode.permissions.gate import Declined, PendingCall


class PolicyApprover:
    """Asks `policy(name, arguments)` where the terminal would ask a person. True approves; False refuses;
    a string refuses and is what the model is told. A policy that raises refuses (and says why): a bug in
    the program's policy must never approve a call."""

    def __init__(self, policy: CanUseTool) -> None:
        self.policy = policy

    def approve(self, call: PendingCall, reason: str) -> bool | Declined:
        try:
            answer = self.policy(call.name, dict(call.arguments))
        except Exception as exc:  # the program's code: any failure is a refusal, never an approval
            return Declined(f"the program's permission policy failed ({type(exc).__name__}: {exc}), so the call "
                            "was refused")
        if answer is True:
            return True
        if isinstance(answer, str) and answer.strip():
            return Declined(answer.strip())
        return False
