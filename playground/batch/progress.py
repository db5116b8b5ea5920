"""Telling a batch job's watchers (consumer.py, ws/batch/<id>/) that its progress changed.

A chunk is stored, a job starts, finishes, fails or is cancelled in sync code: a Celery worker process
(the Redis channel layer carries the news to the web processes) or a thread of the local pool in the web
process (the in-memory layer, which lives on the event loop of this process's sockets and is not safe to
touch from another thread). So `changed()` sends a small event to the group `batch.<job_id>` once the
transaction that made the change commits (no watcher reads a state that could still be rolled back): on
the event loop of this process's sockets when it has one, else (a Celery worker) through `async_to_sync`.
The event says only which job changed: the watcher reads the state itself, at most a few times a second
however many chunks end meanwhile (consumer.py coalesces), because only it sees every worker's events.

A failing channel layer is logged and never fails the chunk or the request that made the change: the
watcher also reads the state every few seconds (its recovery beat), and the page falls back to polling.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Future
from functools import partial

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)

EVENT = "batch.progress"  # handled by BatchJobConsumer.batch_progress
_loop: asyncio.AbstractEventLoop | None = None  # the event loop serving this process's sockets


def group_name(job_id: str) -> str:
    return f"batch.{job_id}"


def serving() -> None:
    """Called by a consumer on its event loop: events of this process's workers are sent on it (the only
    thread that may touch the in-memory layer's queues)."""
    global _loop
    _loop = asyncio.get_running_loop()


def changed(job_id: str) -> None:
    """Tell the job's watchers once the current transaction commits (at once outside one)."""
    transaction.on_commit(partial(_send, job_id))


def _send(job_id: str) -> None:
    try:
        layer = get_channel_layer()
        if layer is None:
            return
        group, event = group_name(job_id), {"type": EVENT, "job": job_id}
        loop = _loop
        if loop is not None and loop.is_running():
            # Not waited for: a chunk never waits on its watchers.
            future = asyncio.run_coroutine_threadsafe(layer.group_send(group, event), loop)
            future.add_done_callback(partial(_sent, job_id))
        elif not isinstance(layer, InMemoryChannelLayer):  # in memory, nobody here watches: nobody to tell
            async_to_sync(layer.group_send)(group, event)
    except Exception as exc:
        logger.warning("could not tell the watchers of batch job %s: %r", job_id, exc)


def _sent(job_id: str, future: Future) -> None:
    if not future.cancelled() and future.exception() is not None:
        logger.warning("could not tell the watchers of batch job %s: %r", job_id, future.exception())
