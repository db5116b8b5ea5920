"""A token bucket: `capacity` evaluations at once, refilled at `rate` a second (per WebSocket connection)."""

from __future__ import annotations

import time

from django.conf import settings


class TokenBucket:
    def __init__(self, capacity: float | None = None, rate: float | None = None, clock=time.monotonic):
        self.capacity = capacity if capacity is not None else settings.PLAYGROUND_WS_EVALUATIONS_BURST
        self.rate = rate if rate is not None else settings.PLAYGROUND_WS_EVALUATIONS_PER_SECOND
        self.tokens = float(self.capacity)
        self.clock = clock
        self.stamp = clock()

    def _refill(self) -> None:
        now = self.clock()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self) -> bool:
        """Spend one token if there is one."""
        self._refill()
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def wait_seconds(self) -> float:
        """How long until a token is available."""
        self._refill()
        return 0.0 if self.tokens >= 1 else (1 - self.tokens) / self.rate
