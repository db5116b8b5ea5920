"""When a worker collects cyclic garbage: between jobs, never inside one, and mostly over recent objects.

A full collection walks every object the worker holds; with its caches warm (each room's compiled policies)
that took 120-300 ms, and a collection that starts inside a job adds all of it to that job's latency (the
tail of a 100-client room was these pauses). So the oldest generation is no longer collected automatically;
instead, when the worker is idle (no job waiting; at most every IDLE_SECONDS, or every BUSY_SECONDS if it is
never idle) it collects and then freezes what survived: what lives through a collection is mostly cache,
and the next pass walks only what came since. Every THAW_SECONDS a pass first unfreezes everything, so a
cycle that became garbage after it was frozen (an evicted cache entry) is still freed. The young generations
collect on their own: they are cheap.
"""

from __future__ import annotations

import gc
import time

IDLE_SECONDS = 2.0
BUSY_SECONDS = 30.0
THAW_SECONDS = 120.0
_NEVER = 1 << 30  # a threshold the oldest generation's count never reaches


class IdleCollector:
    def __init__(self, clock=time.monotonic):
        self.clock = clock
        gc.collect()
        gc.freeze()  # the warm-up: modules and warm caches
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, _NEVER)
        self.last = self.thawed = clock()

    def between_jobs(self, job_waiting: bool) -> bool:
        """Call after each job; True if it collected."""
        now = self.clock()
        since = now - self.last
        if since < IDLE_SECONDS or (job_waiting and since < BUSY_SECONDS):
            return False
        if now - self.thawed >= THAW_SECONDS:
            gc.unfreeze()
            self.thawed = now
        gc.collect()
        gc.freeze()
        self.last = self.clock()
        return True
