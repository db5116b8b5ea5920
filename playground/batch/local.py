"""The embedded backend (no broker, `make run`): chunks run in a process pool owned by this server.

A few threads do the database side of `runner.execute` (claim, store); the policy evaluation itself goes to
PLAYGROUND_BATCH_PROCESSES worker processes (spawned: they import the engine only, never Django), each
keeping its compiled policy sets (engine.compiled). With 0 processes the threads evaluate themselves (tests).
Chunks of a job are taken in order; queued chunks this process does not hold (after a restart) are sent again
by `orphans` when the job is looked at. A pool process that dies (killed, out of memory) breaks the pool: each
chunk it held is given back and sent again at once (runner.WorkerLost), to a new pool.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from django.conf import settings
from django.db import connection

from playground.batch import engine, runner

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_threads: ThreadPoolExecutor | None = None
_processes: ProcessPoolExecutor | None = None
_pending: dict[int, tuple[int, Future]] = {}  # chunk id -> (the submission's number, its future)
_submissions = 0
_reads: list[Future] = []  # cluster reads (submit_read), which then submit their job's chunks
_current = threading.local()  # the chunk id this pool thread runs (a chunk given back is sent again from it)


def _process_pool() -> ProcessPoolExecutor:
    global _processes
    with _lock:
        if _processes is None:
            context = multiprocessing.get_context("spawn")
            _processes = ProcessPoolExecutor(settings.PLAYGROUND_BATCH_PROCESSES, mp_context=context)
        return _processes


def _compute(documents, objects, start, kubernetes_version):
    if settings.PLAYGROUND_BATCH_PROCESSES == 0:
        return engine.compute(documents, objects, start, kubernetes_version)
    pool = _process_pool()
    try:
        return pool.submit(engine.compute, documents, objects, start, kubernetes_version).result()
    except BrokenProcessPool:
        global _processes
        with _lock:
            if _processes is pool:
                _processes = None
        pool.shutdown(wait=False, cancel_futures=True)
        raise runner.WorkerLost() from None


def _run(chunk_id: int, number: int) -> bool:
    _current.chunk_id = chunk_id
    try:
        return runner.execute(chunk_id, _compute)
    except Exception:  # a future nobody reads: say it here (the chunk runs again when its job is looked at)
        logger.exception("batch chunk %s could not be run", chunk_id)
        return False
    finally:
        _current.chunk_id = None
        connection.close()  # the pool's threads outlive a job: hold no database connection between chunks
        with _lock:
            if chunk_id in _pending and _pending[chunk_id][0] == number:  # not a later submission of it
                del _pending[chunk_id]


def submit(chunk_ids: list[int]) -> None:
    """Run the chunks in the pool's threads; a chunk already submitted is not submitted twice, unless it is
    the one the calling pool thread runs (given back after its process died: runner.release)."""
    global _threads, _submissions
    with _lock:
        if _threads is None:
            _threads = ThreadPoolExecutor(max(1, settings.PLAYGROUND_BATCH_PROCESSES), thread_name_prefix="batch")
        for chunk_id in chunk_ids:
            if chunk_id not in _pending or getattr(_current, "chunk_id", None) == chunk_id:
                _submissions += 1
                _pending[chunk_id] = (_submissions, _threads.submit(_run, chunk_id, _submissions))


def _read(job_id: str) -> None:
    from playground.batch import cluster_inputs

    try:
        cluster_inputs.read_job(job_id)
    except Exception:  # a future nobody reads: say it here (read_job has failed the job already)
        logger.exception("batch job %s: the cluster could not be read", job_id)
    finally:
        connection.close()


def submit_read(job_id: str) -> None:
    """Read a job's objects from the cluster in one of the pool's threads (its chunks follow from there)."""
    global _threads
    with _lock:
        if _threads is None:
            _threads = ThreadPoolExecutor(max(1, settings.PLAYGROUND_BATCH_PROCESSES), thread_name_prefix="batch")
        _reads.append(_threads.submit(_read, job_id))


def orphans(queued: list[int]) -> list[int]:
    """The queued chunks this process is not holding (sent by a process that has since stopped)."""
    with _lock:
        return [chunk_id for chunk_id in queued if chunk_id not in _pending]


def cancel(chunk_ids: list[int]) -> None:
    with _lock:
        for chunk_id in chunk_ids:
            entry = _pending.pop(chunk_id, None)
            if entry is not None:
                entry[1].cancel()


def wait(timeout: float | None = None) -> None:
    """Block until every submitted chunk has run, including those sent again meanwhile (tests, and a clean
    shutdown)."""
    while True:
        with _lock:
            _reads[:] = [future for future in _reads if not future.done()]
            futures = [future for _, future in _pending.values() if not future.done()] + _reads
        if not futures:
            return
        for future in futures:
            if not future.cancelled():
                future.exception(timeout=timeout)
