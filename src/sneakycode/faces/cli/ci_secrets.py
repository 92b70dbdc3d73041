"""The Action's secrets kept out of what it posts and writes: a pull request's text can talk the model into
reading the token actions/checkout leaves in `.git/config` (`AUTHORIZATION: basic base64(x-access-token:T)`)
and copying it into a finding, which would then be posted on the pull request for anyone to read. So every
string of a result or review is cleaned before it reaches a comment, the job summary or an output.

GitHub masks its secrets in the job's log, not in comments. This catches the forms a model copies verbatim
(the token, the header's base64, the model key); a model that rewrites a secret on purpose is beyond any
filter, which is why the agent never gets the token in its environment (ci_action.WITHHELD).
"""

from __future__ import annotations

import base64
from typing import Any

SHOWN = "***"
MIN_SECRET = 8  # shorter values would blank ordinary words; no real token or key is this short


def secret_forms(*secrets: str) -> list[str]:
    """Each secret as it may appear: itself, base64 of it, and base64 of `x-access-token:` and it (the form
    actions/checkout writes into `.git/config`). Longest first, so a form is never cut by a shorter one."""
    forms: set[str] = set()
    for secret in secrets:
        if len(secret) < MIN_SECRET:
            continue
        forms.add(secret)
        for text in (secret, f"x-access-token:{secret}"):
            encoded = base64.b64encode(text.encode()).decode()
            forms.update({encoded, encoded.rstrip("=")})
    return sorted(forms, key=len, reverse=True)


def redacted(value: Any, forms: list[str]) -> Any:
    """`value` (parsed JSON) with every form of a secret in its strings, keys too, shown as ***."""
    if isinstance(value, str):
        for form in forms:
            value = value.replace(form, SHOWN)
        return value
    if isinstance(value, dict):
        return {redacted(key, forms): redacted(item, forms) for key, item in value.items()}
    if isinstance(value, list):
        return [redacted(item, forms) for item in value]
    return value
