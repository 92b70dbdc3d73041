"""The rate limiter every task of a batch shares: requests and tokens per minute, and the provider's word.

It schedules rather than blocks: `reserve` books the next free slot and returns how long the caller must
wait for it, so the same object works inside one process (the local executor's proxy calls it from many
threads) and as a Ray actor (a blocking actor method would make every worker queue behind one sleeper).
A 429 or a header saying the provider's allowance is spent (`throttle`) pushes every later slot past that
moment, so 32 workers wait once together instead of each being throttled in turn.

Hand-written because the libraries that exist (limits, pyrate-limiter, aiolimiter) count calls in one
process or in Redis; none books slots for a remote caller or pauses everyone on a provider's Retry-After.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Mapping
from email.utils import parsedate_to_datetime

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
# How long to wait after a 429 that says nothing about when to come back (doubled for each one in a row).
FIRST_BACKOFF = 1.0
MAX_BACKOFF = 60.0


def parse_duration(text: str) -> float | None:
    """Seconds in a Retry-After value or an `x-ratelimit-reset-*` header ("2", "0.5", "1m30s", "20ms", or
    an HTTP date); None when it is none of those."""
    text = text.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    parts = _DURATION_PART.findall(text)
    if parts and "".join(number + unit for number, unit in parts) == text:
        return sum(float(number) * _UNIT_SECONDS[unit] for number, unit in parts)
    try:
        return max(0.0, parsedate_to_datetime(text).timestamp() - time.time())
    except (TypeError, ValueError, IndexError):
        return None


class RateLimiter:
    """Spaces requests so at most `requests_per_minute` requests and `tokens_per_minute` tokens start in any
    minute (each unset: no limit), and holds everyone back after the provider says to wait."""

    def __init__(
        self,
        requests_per_minute: int | None = None,
        tokens_per_minute: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.requests_per_minute = requests_per_minute
        self.tokens_per_minute = tokens_per_minute
        self._clock = clock
        self._lock = threading.Lock()
        self._next_request = 0.0  # the earliest start of the next request (request spacing)
        self._token_debt_until = 0.0  # when the tokens booked so far are paid back
        self._paused_until = 0.0  # what the provider asked for
        self._throttles_in_a_row = 0
        self.throttled = 0
        self.waited = 0.0

    def reserve(self, tokens: int = 0) -> float:
        """Book a start for a request of about `tokens` prompt tokens; returns the seconds to wait first."""
        with self._lock:
            now = self._clock()
            start = max(now, self._paused_until)
            if self.requests_per_minute:
                start = max(start, self._next_request)
                self._next_request = start + 60.0 / self.requests_per_minute
            if self.tokens_per_minute and tokens:
                # A leaky bucket of one minute's allowance: a request may start once the debt booked before
                # it fits in the minute, which lets a burst through and then paces to the allowance.
                debt_start = max(self._token_debt_until, now)
                cost = 60.0 * min(tokens, self.tokens_per_minute) / self.tokens_per_minute
                start = max(start, debt_start + cost - 60.0)
                self._token_debt_until = debt_start + cost
            wait = start - now
            self.waited += wait
            return wait

    def throttle(self, seconds: float | None) -> float:
        """The provider answered 429 (or said its allowance is spent): nobody starts for `seconds` (None:
        a backoff that doubles while 429s keep coming). Returns the pause applied."""
        with self._lock:
            self.throttled += 1
            if seconds is None:
                seconds = min(MAX_BACKOFF, FIRST_BACKOFF * 2**self._throttles_in_a_row)
            self._throttles_in_a_row += 1
            self._paused_until = max(self._paused_until, self._clock() + seconds)
            return seconds

    def observe(self, status: int, headers: Mapping[str, str]) -> float | None:
        """Learn from a provider's answer (header names in lower case): a 429's Retry-After, or
        `x-ratelimit-remaining-requests|tokens: 0` with its reset time. Returns the pause applied, if any."""
        if status == 429:
            return self.throttle(_retry_after(headers))
        with self._lock:
            self._throttles_in_a_row = 0
        for kind in ("requests", "tokens"):
            if headers.get(f"x-ratelimit-remaining-{kind}", "").strip() == "0":
                reset = parse_duration(headers.get(f"x-ratelimit-reset-{kind}", ""))
                if reset is not None:
                    return self.throttle(reset)
        return None

    def stats(self) -> dict[str, float]:
        with self._lock:
            return {"throttled": self.throttled, "waited_seconds": round(self.waited, 3)}


def _retry_after(headers: Mapping[str, str]) -> float | None:
    if "retry-after-ms" in headers:
        seconds = parse_duration(headers["retry-after-ms"])
        return None if seconds is None else seconds / 1000
    if "retry-after" in headers:
        return parse_duration(headers["retry-after"])
    return None
