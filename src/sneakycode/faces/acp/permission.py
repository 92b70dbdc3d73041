"""An `ask` put to the editor: `session/request_permission` with allow once / allow always / reject once /
reject always.

"Allow always" adds the same session-scope allow rules the terminal's `a` adds (permissions/always.py), so
every later decision, subagents' included, sees them; where no rule can approve the call (an ask rule covers
it) the call's session key is remembered, as the terminal does. "Reject always" refuses calls with the same
key for the rest of the session without asking again. Deny rules and plan mode decide before this is asked,
so nothing the client answers can loosen them. A cancelled turn or a vanished client refuses the call.
"""

from __future__ import annotations

from acp import schema

from sneakycode.api.always import allow_for_session, always_rules
from sneakycode.api.vocabulary import PendingCall, Remembered, ToolContext
from sneakycode.faces.acp import updates
from sneakycode.faces.acp.live import LiveSession

ALLOW_ONCE, ALLOW_ALWAYS, REJECT_ONCE, REJECT_ALWAYS = "allow_once", "allow_always", "reject_once", "reject_always"


class EditorApprover:
    """The gate's Approver for an editor session."""

    def __init__(self, live: LiveSession, ctx: ToolContext) -> None:
        self.live = live
        self.ctx = ctx

    def approve(self, call: PendingCall, reason: str) -> bool | Remembered:
        """Asked only about calls the session has no remembered answer for (api/approvals.py); "always" and
        "never" are answered as Remembered, so the session keeps them."""
        tool_name, arguments = call.name, call.arguments
        rules = always_rules(self.ctx, tool_name, arguments)
        call_id = f"{call.agent}/{call.id}" if call.agent else call.id  # as live.emit announced it
        diff = self.live.pending_diff(call_id)
        found = self.live.tool_for(tool_name)
        tool_call = schema.ToolCallUpdate(
            tool_call_id=call_id, title=updates.title_of(found, tool_name, arguments), kind=updates.tool_kind(found),
            status="pending", raw_input=arguments,  # the tool's inputs only; why it asks goes in _meta
            content=[diff] if diff is not None else None, field_meta={**updates.tool_meta(tool_name), "reason": reason},
        )
        listed = ", ".join(rules)
        options = [
            schema.PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once"),
            schema.PermissionOption(option_id=ALLOW_ALWAYS, name=f"Always allow {listed} in this session",
                                    kind="allow_always"),
            schema.PermissionOption(option_id=REJECT_ONCE, name="Reject", kind="reject_once"),
            schema.PermissionOption(option_id=REJECT_ALWAYS, name="Reject for the rest of this session",
                                    kind="reject_always"),
        ]
        chosen = self.live.ask(tool_call, options, self.ctx.cancel)
        if chosen is None:  # cancelled, or the client is gone: the turn stops, as Esc at a question does
            self.ctx.cancel.set()
            return False
        if chosen == ALLOW_ONCE:
            return True
        if chosen == ALLOW_ALWAYS:
            allow_for_session(self.ctx, rules)
            return Remembered(True)
        return Remembered(False) if chosen == REJECT_ALWAYS else False
