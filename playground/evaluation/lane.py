"""One job exchanged with an idle worker process from the event loop itself (pool.run).

Through the worker's supervisor thread, a live edit's job woke that thread, which woke the loop again with
its answer: two thread hand-offs and their lock traffic per job, about a tenth of the server's CPU per edit.
The loop writes the job to the worker's pipe (only a job that fits the pipe's buffer, so the write never
waits for the worker) and reads the answer when the pipe is readable; the bounds are the supervisor's: the
wall-clock bound, and a job given up (`gone()`) after its grace second. The pool lends the worker for the job
and takes it back after (pool._Worker.lend / give_back).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

# A job this big or smaller fits the (empty) pipe's buffer: sending it never waits for the worker to read,
# which may first finish its collection between jobs (collector.py).
MAX_JOB_BYTES = 64 * 1024


class Died(Exception):
    """The worker's end of the pipe is gone: it died before or while it ran the job."""


async def answer(conn: Any, job: bytes, timeout: float, gone: Callable[[], bool], grace: float, poll: float) -> tuple:
    """Send `job` (pickled) and await the worker's reply: ("ok", value), ("error", exception) or
    ("memory",) from the worker; ("timeout",) past `timeout` seconds, ("abandoned",) when `gone()` after
    `grace` seconds (asked every `poll` seconds): the caller then stops the worker. Raises Died."""
    try:
        conn.send_bytes(job)
    except (OSError, ValueError) as exc:  # a broken pipe; a closed handle
        raise Died() from exc
    loop = asyncio.get_running_loop()
    readable = loop.create_future()
    fd = conn.fileno()
    loop.add_reader(fd, _set, readable)
    started = time.monotonic()
    deadline = started + timeout
    given_up = None
    try:
        while not readable.done():
            now = time.monotonic()
            ran = now - started
            if now >= deadline:
                given_up = ("timeout",)
                break
            if ran >= grace and gone():
                given_up = ("abandoned",)
                break
            await asyncio.wait((readable,), timeout=min(deadline - now, poll if ran >= grace else grace - ran))
    finally:
        loop.remove_reader(fd)
    if given_up is not None:
        return given_up
    try:
        return conn.recv()
    except (EOFError, OSError) as exc:
        raise Died() from exc


def _set(readable: asyncio.Future) -> None:
    if not readable.done():
        readable.set_result(None)
