"""Where a workshop evaluation runs: in worker processes, not threads.

The engine is pure Python: in a thread, a student's runaway expression (bounded by the CEL cost budget and
the per-evaluation time limit, but still up to about a second of work per check) holds the GIL that the
event loop and the database threads need, and every socket of the process slows down. In a worker process
it only competes for a CPU, and the fair queue lets each student use at most one worker at a time.
WORKSHOP_EVALUATION_PROCESSES=0 (the tests) runs evaluations in the playground's thread pool instead.
Workers import only engine.py (no models), with the parent's DJANGO_SETTINGS_MODULE for plain settings.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from django.conf import settings

from playground.services import evaluation_service
from playground.workshops.services import engine

_POOL: ProcessPoolExecutor | None = None
# More workers than cores on purpose: the OS scheduler then serves short evaluations between the slices of a
# runaway one, instead of queueing them behind it.
DEFAULT_PROCESSES = 2


def processes() -> int:
    configured = getattr(settings, "WORKSHOP_EVALUATION_PROCESSES", None)
    if configured is None:
        configured = int(os.environ.get("WORKSHOP_EVALUATION_PROCESSES", DEFAULT_PROCESSES))
    return max(0, int(configured))


def slots() -> int:
    """How many evaluations may run at once (the fair queue's slots)."""
    return processes() or getattr(settings, "PLAYGROUND_EVALUATION_WORKERS", 4)


def executor() -> Executor:
    global _POOL
    if processes() == 0:
        return evaluation_service.EXECUTOR
    if _POOL is None:
        # Every worker warms the engine up before it takes work, and all start now (workers otherwise start
        # one by one as the load grows, and a student's edit would wait for a cold one).
        _POOL = ProcessPoolExecutor(max_workers=processes(), mp_context=multiprocessing.get_context("spawn"),
                                    initializer=engine.warm_up)
        for _ in range(processes()):
            _POOL.submit(engine.ready)
    return _POOL


async def evaluate(ctx: engine.Context) -> dict:
    """engine.evaluate(ctx) off the event loop; a crashed worker pool is replaced once."""
    global _POOL
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(executor(), engine.evaluate, ctx)
    except BrokenProcessPool:
        _POOL = None
        return await loop.run_in_executor(executor(), engine.evaluate, ctx)
