"""Fair evaluation queue: each client has at most one job running and one waiting; clients take turns.

Why: in a room of 40 students, one student's runaway expression (bounded anyway by the engine's CEL cost
limit and per-evaluation time limit) must not delay the others. A client that edits again while its job
waits replaces that job (only its newest text matters) without losing its place in line; a client whose job
is running waits for it before its next one starts, so it holds at most one of the `slots` at a time.
A client whose job ran longer than `slow_after` seconds also rests as long before its next one starts (a
runaway uses at most half of a CPU however fast it types), and until one of its jobs is quick again it never
takes the last free slot: the others always find one.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from playground.workshops.services import evaluation_pool

logger = logging.getLogger(__name__)

Job = Callable[[], Awaitable[None]]


class FairQueue:
    def __init__(self, slots: int, slow_after: float = 0.2, clock=time.monotonic):
        self.slots = max(1, slots)
        self.slow_after = slow_after
        self.clock = clock
        self.waiting: OrderedDict[str, Job] = OrderedDict()  # in order of arrival; a newer job keeps the place
        self.running: dict[str, asyncio.Task] = {}
        self.resting: dict[str, float] = {}  # client -> when its next job may start
        self.slow: set[str] = set()  # clients whose last job took longer than slow_after
        self.superseded = 0

    def submit(self, client: str, job: Job) -> None:
        if client in self.waiting:
            self.superseded += 1
        self.waiting[client] = job
        self._dispatch()

    def cancel(self, client: str) -> None:
        """Forget a client's waiting job (it left); a running one finishes."""
        self.waiting.pop(client, None)
        self.slow.discard(client)
        self.resting.pop(client, None)

    def _dispatch(self) -> None:
        now = self.clock()
        for client in list(self.waiting):
            if len(self.running) >= self.slots:
                return
            if client in self.running:
                continue  # one job at a time per client
            if self.resting.get(client, 0) > now:
                continue  # woken by the timer set when its slow job ended
            if client in self.slow and self.slots > 1 and len(self.running) >= self.slots - 1:
                continue  # the last free slot is kept for the quick ones
            self.resting.pop(client, None)
            job = self.waiting.pop(client)
            task = asyncio.get_running_loop().create_task(self._run(client, job))
            self.running[client] = task

    async def _run(self, client: str, job: Job) -> None:
        started = self.clock()
        try:
            await job()
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("workshop evaluation for %s failed", client)
        finally:
            self.running.pop(client, None)
            took = self.clock() - started
            if took > self.slow_after:
                self.slow.add(client)
                self.resting[client] = self.clock() + took
                asyncio.get_running_loop().call_later(took, self._dispatch)
            else:
                self.slow.discard(client)
            self._dispatch()

    async def drain(self) -> None:
        """Wait until nothing waits or runs (tests, shutdown)."""
        while self.running or self.waiting:
            await asyncio.gather(*self.running.values(), return_exceptions=True)
            await asyncio.sleep(0.01)


_QUEUES: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, FairQueue]" = weakref.WeakKeyDictionary()


def queue() -> FairQueue:
    """This event loop's queue (one per server process; tests get one per loop)."""
    loop = asyncio.get_running_loop()
    found = _QUEUES.get(loop)
    if found is None:
        found = _QUEUES[loop] = FairQueue(evaluation_pool.slots())
    return found


def reset() -> None:
    """Forget every queue (a simulated restart in tests)."""
    _QUEUES.clear()
