"""The WebSockets open in this process, so that a shutdown can tell each of them to reconnect (to another
server, or to this one once it is back) before the process exits, instead of dropping them.

Process-local on purpose: the shutdown must reach every socket even while Redis (the channel layer) is the
thing that is down. Consumers `join` when they connect and `leave` when they disconnect; `drain_all` asks each
to `drain` (send `reconnect`, close 4012: playground/ws.py) and waits, bounded, until all have left. A socket
that connects while the process drains is drained as soon as it is there.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from typing import Protocol

logger = logging.getLogger(__name__)

POLL_SECONDS = 0.05


class Drainable(Protocol):
    async def drain(self) -> None: ...


# Weak: a consumer that ended without its disconnect (cancelled at exit) must not be waited for, nor kept.
_live: weakref.WeakSet = weakref.WeakSet()
_tasks: set[asyncio.Task] = set()  # running drains, referenced until done (asyncio keeps weak references)
_draining = False


def draining() -> bool:
    return _draining


def open_sockets() -> int:
    return len(_live)


def join(consumer: Drainable) -> None:
    _live.add(consumer)
    if _draining:
        _start(consumer)


def leave(consumer: Drainable) -> None:
    _live.discard(consumer)


def _start(consumer: Drainable) -> None:
    task = asyncio.ensure_future(consumer.drain())
    _tasks.add(task)
    task.add_done_callback(_finished)


def _finished(task: asyncio.Task) -> None:
    _tasks.discard(task)
    if not task.cancelled() and task.exception() is not None:
        logger.error("draining a WebSocket failed", exc_info=task.exception())


async def drain_all(seconds: float) -> int:
    """Tell every open socket to reconnect and wait until they have all closed, at most `seconds`; how many
    were still open at the end (those the exit then cuts)."""
    global _draining
    _draining = True
    for consumer in list(_live):
        _start(consumer)
    deadline = time.monotonic() + seconds
    while _live and time.monotonic() < deadline:
        await asyncio.sleep(POLL_SECONDS)
    return len(_live)
