"""The shared rate limiter: pacing to requests and tokens per minute, and pausing everyone on a 429."""

from __future__ import annotations

import pytest

from sneakycode.batch.ratelimit import RateLimiter, parse_duration


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(("text", "seconds"), [("2", 2.0), ("0.5", 0.5), ("1m30s", 90.0), ("20ms", 0.02),
                                               ("6m0s", 360.0), ("soon", None)])  # fmt: skip
def test_durations_in_retry_after_and_reset_headers(text: str, seconds: float | None) -> None:
    assert parse_duration(text) == seconds


def test_requests_per_minute_space_the_starts() -> None:
    clock = Clock()
    limiter = RateLimiter(requests_per_minute=60, clock=clock)
    assert [limiter.reserve() for _ in range(3)] == [0.0, 1.0, 2.0]


def test_tokens_per_minute_let_a_burst_through_then_pace() -> None:
    clock = Clock()
    limiter = RateLimiter(tokens_per_minute=1000, clock=clock)
    assert limiter.reserve(500) == 0.0 and limiter.reserve(500) == 0.0
    assert limiter.reserve(500) == pytest.approx(30.0)  # the minute's allowance is spent: wait for half of it


def test_a_429_pauses_every_later_request() -> None:
    clock = Clock()
    limiter = RateLimiter(clock=clock)
    assert limiter.observe(429, {"retry-after": "3"}) == 3.0
    assert limiter.reserve() == 3.0 and limiter.reserve() == 3.0
    assert limiter.observe(429, {}) == 2.0 and limiter.observe(429, {}) == 4.0  # no header: doubling backoff


def test_a_spent_allowance_in_the_headers_pauses_until_its_reset() -> None:
    clock = Clock()
    limiter = RateLimiter(clock=clock)
    assert limiter.observe(200, {"x-ratelimit-remaining-requests": "5"}) is None
    assert limiter.observe(200, {"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "7.5s"}) == 7.5
    assert limiter.reserve() == 7.5
