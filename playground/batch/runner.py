"""Running chunks: claim one under a lease, compute its rows, store them, finish the job after the last.

The same `execute(chunk_id)` runs in a Celery worker (tasks.py) and, without a broker, in a thread of the web
process whose computation goes to a local process pool (local.py). Every step is a conditional UPDATE, so
two workers never both own a chunk and a job's counts stay exact whatever crashes:

* claim: queued -> running (attempts + 1, lease_until = now + lease) only while the job is queued/running;
* store: running (same attempt) -> done, and the job's `done` grows by the chunk's size in one transaction;
* heartbeat: while a worker computes, it renews its chunk's lease every third of it;
* recover (on every status read, and every few seconds while a socket watches the job): a running chunk past
  its lease is queued again and sent again, or after PLAYGROUND_BATCH_ATTEMPTS attempts fails the job; a
  queued chunk nobody took within a lease is sent again; a job whose chunks are all done is finished (its
  last worker stopped between the two);
* each database step of a chunk is tried again after a moment on a transient error (_retrying).

Every change a watcher would show (the job starts, a chunk is stored, the job ends) is announced to the job's
sockets once committed (progress.py).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import TypeVar

from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.db.models import F
from django.utils import timezone

from evaluator.batch import Summary
from playground.batch import progress
from playground.batch.models import BatchChunk, BatchJob
from playground.core import outage
from playground.core.database import release_connection

logger = logging.getLogger(__name__)


class WorkerLost(Exception):
    """The process computing a chunk died: the chunk stays running until its lease ends, then runs again."""


Compute = Callable[[list, list, int, "str | None"], list]
ACTIVE = (BatchJob.QUEUED, BatchJob.RUNNING)
DATABASE_ATTEMPTS = 4  # tries of one database step of a chunk (claim, keep, finish)
T = TypeVar("T")


def _retrying(step: Callable[..., T], *args: object) -> T:
    """A database step of a chunk, tried again after a moment on an outage error (outage.is_outage: SQLite's
    "database is locked" while a socket reads the job, a PostgreSQL connection that dropped): a step lost to a transient
    error would leave the chunk to its lease, the job stalled for minutes. Each step is one transaction, so
    a failed try changed nothing."""
    for attempt in range(1, DATABASE_ATTEMPTS + 1):
        try:
            return step(*args)
        except Exception as exc:
            if attempt == DATABASE_ATTEMPTS or not outage.is_outage(exc):
                raise
            outage.report("batch chunk database", exc)  # one line per period, not one per retry
            if not connection.in_atomic_block:
                connection.close()  # maybe broken: the next try reconnects
            time.sleep(0.05 * attempt)
    raise AssertionError("unreachable")


def lease() -> timedelta:
    return timedelta(seconds=settings.PLAYGROUND_BATCH_LEASE_SECONDS)


def claim(chunk_id: int) -> BatchChunk | None:
    """Take the chunk if it is queued and its job still wants it; None when another worker has it, it is
    done, or the job was cancelled."""
    now = timezone.now()
    with transaction.atomic():
        taken = BatchChunk.objects.filter(
            id=chunk_id,
            status=BatchChunk.QUEUED,
            attempts__lt=settings.PLAYGROUND_BATCH_ATTEMPTS,
            job__status__in=ACTIVE,
        ).update(status=BatchChunk.RUNNING, attempts=F("attempts") + 1, lease_until=now + lease(), started=now)
        if not taken:
            return None
        chunk = BatchChunk.objects.select_related("job").get(id=chunk_id)
        if BatchJob.objects.filter(id=chunk.job_id, status=BatchJob.QUEUED).update(
            status=BatchJob.RUNNING, started=now
        ):
            progress.changed(chunk.job_id)
    return chunk


def store(chunk: BatchChunk, rows: list[dict]) -> bool:
    """Keep the rows if this worker still holds the chunk (same attempt, lease not given away)."""
    summary = Summary.from_rows(rows).as_dict()
    kept = _retrying(_keep, chunk, rows, summary)
    if kept:
        _retrying(finish_if_complete, chunk.job_id)
        progress.changed(chunk.job_id)
    return bool(kept)


def _keep(chunk: BatchChunk, rows: list[dict], summary: dict) -> int:
    with transaction.atomic():
        kept = BatchChunk.objects.filter(
            id=chunk.id, status=BatchChunk.RUNNING, attempts=chunk.attempts, job__status__in=ACTIVE
        ).update(status=BatchChunk.DONE, rows=rows, summary=summary, finished=timezone.now(), lease_until=None)
        if kept:
            BatchJob.objects.filter(id=chunk.job_id).update(
                done=F("done") + chunk.size, denied=F("denied") + summary["denied"]
            )
    return kept


def fail(chunk: BatchChunk, message: str) -> None:
    """An error of ours while computing: the same input would fail again, so the job stops, saying why."""
    with transaction.atomic():
        BatchChunk.objects.filter(id=chunk.id, attempts=chunk.attempts).update(status=BatchChunk.FAILED, error=message)
        _fail_job(chunk.job_id, message)


def _fail_job(job_id: str, message: str) -> None:
    if BatchJob.objects.filter(id=job_id, status__in=ACTIVE).update(
        status=BatchJob.FAILED, error=message, finished=timezone.now()
    ):
        progress.changed(job_id)
    BatchChunk.objects.filter(job_id=job_id, status=BatchChunk.QUEUED).update(status=BatchChunk.CANCELLED)


def finish_if_complete(job_id: str) -> bool:
    """After the last chunk: the summary of every row, and the job done (once, whoever gets here first); True
    for the caller that made it done."""
    if BatchChunk.objects.filter(job_id=job_id).exclude(status=BatchChunk.DONE).exists():
        return False
    summary = Summary()
    for part in BatchChunk.objects.filter(job_id=job_id).values_list("summary", flat=True):
        summary.merge(Summary.from_dict(part))
    finished = BatchJob.objects.filter(id=job_id, status=BatchJob.RUNNING).update(
        status=BatchJob.DONE, summary=summary.as_dict(), finished=timezone.now()
    )
    return bool(finished)


class Heartbeat:
    """Renews a running chunk's lease every third of it while its worker computes, so the lease measures whether
    the worker is alive, not how long a chunk may take: a chunk is run again only when renewals stop."""

    def __init__(self, chunk: BatchChunk):
        self.chunk = chunk
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._beat, name=f"batch-lease-{chunk.id}", daemon=True)

    def _beat(self) -> None:
        """Each renewal takes a connection and gives it back (to the pool, on PostgreSQL): a chunk computing
        for minutes holds none meanwhile. A renewal lost to an outage (no free connection, say) is reported and
        the next one tries again; the lease is three renewals long."""
        while not self.stopped.wait(settings.PLAYGROUND_BATCH_LEASE_SECONDS / 3):
            try:
                BatchChunk.objects.filter(
                    id=self.chunk.id, status=BatchChunk.RUNNING, attempts=self.chunk.attempts
                ).update(lease_until=timezone.now() + lease())
            except Exception as exc:
                if not outage.is_outage(exc):
                    raise
                outage.report("batch lease", exc)
            finally:
                connection.close()

    def __enter__(self) -> Heartbeat:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        self.thread.join()


def execute(chunk_id: int, compute: Compute) -> bool:
    """Run one chunk if it can be claimed; True when its rows were stored."""
    close_old_connections()
    try:
        chunk = _retrying(claim, chunk_id)
        if chunk is None:
            return False
        job = chunk.job
        release_connection()  # computing needs no database: the slot serves others until the rows are stored
        try:
            with Heartbeat(chunk):
                rows = compute(job.documents, chunk.inputs, chunk.start, job.kubernetes_version or None)
        except WorkerLost:
            logger.warning("batch chunk %s of job %s: its worker process died", chunk.index, job.id)
            return False
        except Exception as exc:  # a bug of ours: logged, and the job says which objects it stopped at
            logger.exception("batch chunk %s of job %s failed", chunk.index, job.id)
            last = chunk.start + chunk.size - 1
            fail(chunk, f"objects {chunk.start}–{last} could not be evaluated: {type(exc).__name__}: {exc}")
            return False
        return store(chunk, rows)
    finally:
        close_old_connections()


def recover(job: BatchJob) -> list[int]:
    """Chunks to send again: those whose worker was lost (lease over) and those queued but never taken.
    A chunk lost PLAYGROUND_BATCH_ATTEMPTS times fails the job (something in it may crash workers)."""
    if job.status not in ACTIVE:
        return []
    if finish_if_complete(job.id):  # every chunk kept, but the last worker stopped before it said the job was done
        progress.changed(job.id)
        return []
    now = timezone.now()
    resend: list[int] = []
    expired = BatchChunk.objects.filter(job=job, status=BatchChunk.RUNNING, lease_until__lt=now)
    for chunk in expired.only("id", "attempts", "index", "start", "size"):
        if chunk.attempts >= settings.PLAYGROUND_BATCH_ATTEMPTS:
            last = chunk.start + chunk.size - 1
            with transaction.atomic():
                BatchChunk.objects.filter(id=chunk.id, status=BatchChunk.RUNNING).update(status=BatchChunk.FAILED)
                _fail_job(
                    job.id,
                    f"objects {chunk.start}–{last}: the worker running them stopped "
                    f"{chunk.attempts} time{'' if chunk.attempts == 1 else 's'} "
                    "(crashed or was killed); the job was stopped",
                )
            return []
        requeued = BatchChunk.objects.filter(
            id=chunk.id, status=BatchChunk.RUNNING, attempts=chunk.attempts, lease_until__lt=now
        ).update(status=BatchChunk.QUEUED, lease_until=None, dispatched=now)
        if requeued:
            logger.warning("batch job %s: chunk %s lost its worker; running it again", job.id, chunk.index)
            resend.append(chunk.id)
    stale = BatchChunk.objects.filter(job=job, status=BatchChunk.QUEUED, dispatched__lt=now - lease())
    for chunk_id in stale.values_list("id", flat=True):
        if BatchChunk.objects.filter(id=chunk_id, status=BatchChunk.QUEUED, dispatched__lt=now - lease()).update(
            dispatched=now
        ):
            resend.append(chunk_id)
    return resend


def dispatch(chunk_ids: list[int]) -> None:
    """Send chunks to the configured backend: Celery workers, or this server's local pool. With the broker
    down the chunks stay queued in the database and are sent again once the job is looked at after a lease
    (recover): the job waits, the request that made it does not fail."""
    if not chunk_ids:
        return
    if settings.PLAYGROUND_BATCH_BACKEND == "celery":
        from kombu.exceptions import OperationalError

        from playground.batch import tasks
        from playground.celery_app import app  # noqa: F401  (the broker settings, before the first send)

        try:
            for chunk_id in chunk_ids:
                tasks.run_chunk.delay(chunk_id)
        except OperationalError as exc:
            outage.report("batch broker", exc)
    else:
        from playground.batch import local

        local.submit(chunk_ids)
