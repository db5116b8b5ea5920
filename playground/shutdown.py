"""Graceful shutdown of the web process under daphne: SIGTERM drains the WebSockets, then the server stops.

daphne (Twisted) turns SIGTERM into an immediate reactor stop, whose first step cancels every application
instance: each socket would end with a bare 1006 and an edit in flight could be cut between its commit and
its ack. daphne has no ASGI lifespan to hook into, so once the reactor runs (its own handler is installed by
then) this module takes SIGTERM over: every open socket is told `reconnect` and closed with 4012 after the
message it is handling has been answered (core/drain.py, ws.py), the process waits until they have closed —
at most PLAYGROUND_SHUTDOWN_SECONDS — and only then stops the reactor as daphne would have. A second SIGTERM
stops at once. Only where something already handled SIGTERM (daphne's server, not its test or runserver
modes, which leave it to others) and only in the main thread.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import threading

from django.conf import settings

from playground.core import drain

logger = logging.getLogger(__name__)

_task: set[asyncio.Task] = set()


def install() -> bool:
    """Arrange to take SIGTERM once daphne's reactor runs; False when this process is not daphne's."""
    if "daphne.server" not in sys.modules or threading.current_thread() is not threading.main_thread():
        return False
    from twisted.internet import reactor

    reactor.callWhenRunning(_take_sigterm)  # type: ignore[attr-defined]
    return True


def _take_sigterm() -> None:
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, signal.SIG_IGN, None):
        return  # daphne was told not to handle signals: leave SIGTERM's default
    from twisted.internet import reactor

    def on_sigterm(*_signal) -> None:
        reactor.callFromThread(_begin)  # type: ignore[attr-defined]

    signal.signal(signal.SIGTERM, on_sigterm)


def _begin() -> None:
    from twisted.internet import reactor

    if drain.draining():
        logger.warning("second SIGTERM: stopping without waiting for %d WebSockets", drain.open_sockets())
        reactor.stop()  # type: ignore[attr-defined]
        return
    task = asyncio.get_event_loop().create_task(_drain_then_stop())
    _task.add(task)


async def _drain_then_stop() -> None:
    from twisted.internet import reactor

    seconds = settings.PLAYGROUND_SHUTDOWN_SECONDS
    logger.warning("SIGTERM: telling %d WebSockets to reconnect (up to %.0f s)", drain.open_sockets(), seconds)
    try:
        left = await drain.drain_all(seconds)
        if left:
            logger.warning("shutdown: %d WebSockets still open after %.0f s, cut", left, seconds)
    finally:
        if reactor.running:  # type: ignore[attr-defined]
            reactor.stop()  # type: ignore[attr-defined]
