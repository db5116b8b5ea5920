"""`run_parallel`: a batch over local worker processes, which survives a worker that dies.

The objects are cut into chunks; each chunk is a task for a `concurrent.futures.ProcessPoolExecutor`
whose workers compile the policy set once (engine.compiled; under the `fork` start method they inherit the
parent's compiled set). A worker that dies (killed, out of memory) breaks the pool: the chunks that had not
finished are run again in a new pool, at most `max_attempts` times each, so the rows -- and the totals --
are exactly those of a serial run. `jobs <= 1` runs in this process. The web app uses the same function as
its pool when there is no Celery broker.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from evaluator.batch.engine import chunks, compiled, run_chunk
from evaluator.batch.rows import Row

__all__ = ["run_parallel", "default_chunk_size", "ChunkFailed", "Cancelled"]

MAX_CHUNK = 500


class ChunkFailed(RuntimeError):
    """A chunk's worker died `max_attempts` times: an object in it kills the worker (reported, not retried)."""


class Cancelled(Exception):
    """`cancelled()` said so: the run stopped after the chunks that had finished."""


def default_chunk_size(count: int, jobs: int) -> int:
    """Small enough for every worker to get several chunks (balance, progress), at most MAX_CHUNK."""
    return max(1, min(MAX_CHUNK, math.ceil(count / max(1, jobs * 8))))


_documents: Any = None
_version: str | None = None
# The objects of each run going on in this process (by run id), set before a `fork` pool starts: forked
# workers inherit them, so a task carries only where its chunk starts and how long it is.
_inherited: dict[int, Sequence[Any]] = {}
_run_ids = itertools.count()


def _start_worker(documents: Any, kubernetes_version: str | None) -> None:
    global _documents, _version
    _documents, _version = documents, kubernetes_version
    compiled(documents, kubernetes_version)  # once per worker, before the first chunk


def _chunk_task(start: int, objects: list[Any] | tuple[int, int]) -> list[Row]:
    """Run a chunk: its objects, or (forked workers) (run id, count) to read them from the inherited list."""
    if isinstance(objects, tuple):
        run, count = objects
        objects = list(_inherited[run][start : start + count])
    return run_chunk(_documents, objects, start=start, kubernetes_version=_version)


@dataclass
class _Hooks:
    on_progress: Callable[[int], None] | None
    on_retry: Callable[[list[int]], None] | None
    cancelled: Callable[[], bool] | None

    def progress(self, done: int) -> None:
        if self.on_progress is not None:
            self.on_progress(done)
        if self.cancelled is not None and self.cancelled():
            raise Cancelled(f"cancelled after {done} objects")


def run_parallel(
    documents: Any,
    objects: Sequence[Any],
    *,
    jobs: int = 2,
    chunk_size: int | None = None,
    kubernetes_version: str | None = None,
    on_progress: Callable[[int], None] | None = None,
    on_retry: Callable[[list[int]], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    max_attempts: int = 3,
    start_method: str | None = None,
) -> list[Row]:
    """The rows of every object, in order. `on_progress(done)` is called in this process after each chunk;
    `on_retry(starts)` when a broken pool makes the chunks starting at `starts` run again; `cancelled()`,
    asked after each chunk, stops the run (queued chunks are dropped, running ones finish) with `Cancelled`.
    `start_method` ("fork", "forkserver", "spawn"; None: the platform's default) chooses how workers start:
    a threaded server should not fork."""
    size = chunk_size or default_chunk_size(len(objects), jobs)
    pieces = {i * size: piece for i, piece in enumerate(chunks(objects, size))}
    hooks = _Hooks(on_progress, on_retry, cancelled)
    if jobs <= 1:
        return _serial(documents, pieces, kubernetes_version, hooks)
    compiled(documents, kubernetes_version)  # forked workers inherit it; errors show here first
    context = multiprocessing.get_context(start_method)
    run = next(_run_ids) if context.get_start_method() == "fork" else None
    if run is not None:  # workers read their chunks from the parent's memory: no pickling of objects
        _inherited[run] = objects
    try:
        return _run_pools(documents, pieces, jobs, kubernetes_version, hooks, max_attempts, context, run)
    finally:
        if run is not None:
            del _inherited[run]


def _run_pools(
    documents: Any,
    pieces: dict[int, list[Any]],
    jobs: int,
    kubernetes_version: str | None,
    hooks: _Hooks,
    max_attempts: int,
    context: Any,
    run: int | None,
) -> list[Row]:
    done: dict[int, list[Row]] = {}
    attempts = dict.fromkeys(pieces, 0)
    while len(done) < len(pieces):
        pending = {start: piece for start, piece in pieces.items() if start not in done}
        for start in pending:
            attempts[start] += 1
            if attempts[start] > max_attempts:
                raise ChunkFailed(
                    f"the worker running objects {start}..{start + len(pending[start]) - 1} died {max_attempts} times"
                )
        if hooks.on_retry is not None and max(attempts.values()) > 1:
            hooks.on_retry(sorted(pending))
        pool = ProcessPoolExecutor(
            max_workers=min(jobs, len(pending)),
            mp_context=context,
            initializer=_start_worker,
            initargs=(documents, kubernetes_version),
        )
        try:
            futures: dict[Future, int] = {
                pool.submit(_chunk_task, s, p if run is None else (run, len(p))): s for s, p in pending.items()
            }
            _collect(futures, done, hooks)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    return [row for start in sorted(done) for row in done[start]]


def _collect(futures: dict[Future, int], done: dict[int, list[Row]], hooks: _Hooks) -> None:
    """The rows of every chunk as it finishes (into `done`, by start); when the pool breaks (a worker died),
    what finished before it is kept and the caller runs the rest again."""
    count = sum(len(rows) for rows in done.values())
    for future in as_completed(futures):
        try:
            rows = future.result()
        except BrokenProcessPool:
            break
        done[futures[future]] = rows
        count += len(rows)
        hooks.progress(count)
    else:
        return
    for future, start in futures.items():
        if start not in done and future.done() and not future.cancelled() and future.exception() is None:
            done[start] = future.result()


def _serial(documents: Any, pieces: dict[int, list[Any]], version: str | None, hooks: _Hooks) -> list[Row]:
    rows: list[Row] = []
    for start, piece in pieces.items():
        rows += run_chunk(documents, piece, start=start, kubernetes_version=version)
        hooks.progress(len(rows))
    return rows
