"""The per-connection token bucket (playground/core/rate_limit.py)."""

import pytest

from playground.core.rate_limit import TokenBucket


def test_token_bucket_spends_and_refills():
    now = [0.0]
    bucket = TokenBucket(capacity=2, rate=1, clock=lambda: now[0])
    assert bucket.take() and bucket.take() and not bucket.take()
    assert bucket.wait_seconds() == pytest.approx(1.0)
    now[0] = 1.5
    assert bucket.take() and not bucket.take()
