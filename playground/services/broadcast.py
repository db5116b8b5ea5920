"""Telling a group of sockets that something changed: the one way every service does it.

A change made in sync code (a REST view, a Celery worker, a thread of the local batch pool) is sent once the
transaction that made it commits (`transaction.on_commit`), so nobody sees a change that could still be rolled
back; and it is best effort: a failing channel layer never fails the saved change (no 500 for a write
during a Redis outage: the sockets were closed with 4503 and read the state again when they reconnect). A
lost Redis is one warning line per period (core/outage.py); another failure names what was not sent. When this process serves sockets on an event loop
(`serving()`, called by a consumer), the send is handed to that loop, the only thread that may touch the
in-memory layer's queues; otherwise (a Celery worker) it goes out through `async_to_sync`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Future
from functools import partial

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from playground.core import outage

logger = logging.getLogger(__name__)

Event = dict | Callable[[], dict]  # a callable is read after the commit (e.g. the project's saved state)
_loop: asyncio.AbstractEventLoop | None = None  # the event loop serving this process's sockets


def serving() -> None:
    """Called by a consumer on its event loop: later sends from other threads are handed to it."""
    global _loop
    _loop = asyncio.get_running_loop()


def after_commit(group: str, event: Event, about: str) -> None:
    """Send `event` to `group` once the current transaction commits (at once outside one); `about` finishes
    the sentence 'could not …' logged when the layer fails."""
    transaction.on_commit(partial(_send, group, event, about))


def _send(group: str, event: Event, about: str) -> None:
    try:
        layer = get_channel_layer()
        if layer is None:
            return
        message = event() if callable(event) else event
        loop = _loop
        if loop is not None and loop.is_running():
            # Not waited for: a saving thread never waits on its watchers.
            future = asyncio.run_coroutine_threadsafe(layer.group_send(group, message), loop)
            future.add_done_callback(partial(_sent, about))
        else:
            async_to_sync(layer.group_send)(group, message)
    except Exception as exc:
        _failed(about, exc)


def _sent(about: str, future: Future) -> None:
    if not future.cancelled() and (exc := future.exception()) is not None:
        _failed(about, exc)


def _failed(about: str, exc: BaseException) -> None:
    if outage.is_outage(exc):
        outage.report("broadcast", exc)
    else:
        logger.warning("could not %s: %r", about, exc)
