"""Running chunks: claim one under a lease, compute its rows, store them, finish the job after the last.

The same `execute(chunk_id)` runs in a Celery worker (tasks.py) and, without a broker, in a thread of the web
process whose computation goes to a local process pool (local.py). Every step is a conditional UPDATE, so
two workers never both own a chunk and a job's counts stay exact whatever crashes:

* claim: queued -> running (attempts + 1, lease_until = now + lease) only while the job is queued/running; a
  running chunk whose lease ran out (its worker stopped renewing it) is taken over the same way, so a message
  the broker delivers again after a worker died runs the chunk at once;
* store: running (same attempt) -> done, and the job's `done` grows by the chunk's size in one transaction: of
  two workers that computed the same chunk (one was thought lost), only the attempt holding it is counted;
* heartbeat: while a worker computes, it renews its chunk's lease (PLAYGROUND_BATCH_LEASE_SECONDS, short)
  every PLAYGROUND_BATCH_HEARTBEAT_SECONDS, and sweeps its job (recover), so a live worker notices a dead
  one's chunk within a lease;
* recover (by the job's live workers, after each chunk and on each heartbeat; on every status read, and every
  few seconds while a socket watches the job): a running chunk past its lease is queued again and sent again,
  or after PLAYGROUND_BATCH_ATTEMPTS attempts fails the job; a queued chunk nobody took within
  PLAYGROUND_BATCH_REDISPATCH_SECONDS is sent again; a job whose chunks are all done is finished (its last
  worker stopped between the two);
* a worker that knows its computing process died (the local pool) gives the chunk back at once (release);
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
from typing import Any, TypeVar

from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from playground.batch import kinds, progress
from playground.batch.models import BatchChunk, BatchJob
from playground.core import outage
from playground.core.database import release_connection

logger = logging.getLogger(__name__)


class WorkerLost(Exception):
    """The process computing a chunk died: the chunk is given back (release) and sent again at once."""


# documents (a list; {"base", "head"} for impact), inputs, start, Kubernetes version -> rows (kinds.py)
Compute = Callable[[Any, list, int, "str | None"], "list | dict"]
ACTIVE = (BatchJob.READING, BatchJob.QUEUED, BatchJob.RUNNING)
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


def heartbeat_seconds() -> float:
    """How often a live worker renews its lease: the setting, but at least three renewals per lease, so one
    late renewal (a loaded machine) does not lose a live worker its chunk."""
    return min(settings.PLAYGROUND_BATCH_HEARTBEAT_SECONDS, settings.PLAYGROUND_BATCH_LEASE_SECONDS / 3)


def _active_jobs() -> QuerySet:
    """The ids of queued and running jobs, for a chunk's conditional update. Not `job__status__in`: Django makes an
    update through a join `WHERE id IN (SELECT … JOIN …)`, whose conditions PostgreSQL does not check again on
    a row another transaction changed meanwhile, so two workers could both claim one chunk. With the chunk's
    own conditions on the row itself, the second waits for the first and then finds them false."""
    return BatchJob.objects.filter(status__in=ACTIVE).values("id")


def claim(chunk_id: int) -> BatchChunk | None:
    """Take the chunk if it is queued, or running under a lease that ran out (its worker is gone), and its job
    still wants it; None when a live worker has it, it is done, or the job was cancelled."""
    now = timezone.now()
    free = Q(status=BatchChunk.QUEUED) | Q(status=BatchChunk.RUNNING, lease_until__lt=now)
    with transaction.atomic():
        taken = BatchChunk.objects.filter(
            free,
            id=chunk_id,
            attempts__lt=settings.PLAYGROUND_BATCH_ATTEMPTS,
            job_id__in=_active_jobs(),
        ).update(status=BatchChunk.RUNNING, attempts=F("attempts") + 1, lease_until=now + lease(), started=now)
        if not taken:
            return None
        chunk = BatchChunk.objects.select_related("job").get(id=chunk_id)
        if BatchJob.objects.filter(id=chunk.job_id, status=BatchJob.QUEUED).update(
            status=BatchJob.RUNNING, started=now
        ):
            progress.changed(chunk.job_id)
    return chunk


def store(chunk: BatchChunk, computed: list | dict) -> bool:
    """Keep the rows if this worker still holds the chunk (same attempt, lease not given away)."""
    rows, summary = kinds.rows_and_summary(computed)
    kept = _retrying(_keep, chunk, rows, summary)
    if kept:
        _retrying(finish_if_complete, chunk.job_id)
        progress.changed(chunk.job_id)
    return bool(kept)


def _keep(chunk: BatchChunk, rows: list[dict], summary: dict) -> int:
    with transaction.atomic():
        kept = BatchChunk.objects.filter(
            id=chunk.id, status=BatchChunk.RUNNING, attempts=chunk.attempts, job_id__in=_active_jobs()
        ).update(status=BatchChunk.DONE, rows=rows, summary=summary, finished=timezone.now(), lease_until=None)
        if kept:
            BatchJob.objects.filter(id=chunk.job_id).update(
                done=F("done") + chunk.size, denied=F("denied") + kinds.denied(summary)
            )
    return kept


def release(chunk: BatchChunk) -> bool:
    """Give a chunk back at once when its computing process is known to have died (no lease to wait for):
    queued again to be sent again, or the job failed when the chunk has used all its attempts. True when it
    is to be sent again."""
    with transaction.atomic():
        if chunk.attempts >= settings.PLAYGROUND_BATCH_ATTEMPTS:
            if BatchChunk.objects.filter(id=chunk.id, status=BatchChunk.RUNNING, attempts=chunk.attempts).update(
                status=BatchChunk.FAILED
            ):
                _fail_job(chunk.job_id, _lost_message(chunk))
            return False
        return bool(
            BatchChunk.objects.filter(id=chunk.id, status=BatchChunk.RUNNING, attempts=chunk.attempts).update(
                status=BatchChunk.QUEUED, lease_until=None, dispatched=timezone.now()
            )
        )


def _lost_message(chunk: BatchChunk) -> str:
    last = chunk.start + chunk.size - 1
    return (
        f"objects {chunk.start}–{last}: the worker running them stopped "
        f"{chunk.attempts} time{'' if chunk.attempts == 1 else 's'} (crashed or was killed); the job was stopped"
    )


def fail(chunk: BatchChunk, message: str) -> None:
    """An error of ours while computing: the same input would fail again, so the job stops, saying why."""
    with transaction.atomic():
        BatchChunk.objects.filter(id=chunk.id, attempts=chunk.attempts).update(status=BatchChunk.FAILED, error=message)
        _fail_job(chunk.job_id, message)


def fail_job(job_id: str, message: str) -> None:
    """Stop an active job, saying why (its cluster could not be read, say)."""
    with transaction.atomic():
        _fail_job(job_id, message)


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
    kind = BatchJob.objects.filter(id=job_id).values_list("kind", flat=True).first() or kinds.BATCH
    summary = kinds.merged(kind, BatchChunk.objects.filter(job_id=job_id).values_list("summary", flat=True))
    finished = BatchJob.objects.filter(id=job_id, status=BatchJob.RUNNING).update(
        status=BatchJob.DONE, summary=summary, finished=timezone.now()
    )
    return bool(finished)


class Heartbeat:
    """Renews a running chunk's lease every heartbeat_seconds() while its worker computes, so the lease measures
    whether the worker is alive, not how long a chunk may take: a chunk is run again only when renewals stop.
    Each beat also sweeps the job (sweep): the job's live workers are the first to notice a dead one."""

    def __init__(self, chunk: BatchChunk):
        self.chunk = chunk
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._beat, name=f"batch-lease-{chunk.id}", daemon=True)

    def _beat(self) -> None:
        """Each renewal takes a connection and gives it back (to the pool, on PostgreSQL): a chunk computing
        for minutes holds none meanwhile. A missed beat (an outage, no free connection) is reported and retried
        at the next; the lease allows a few."""
        while not self.stopped.wait(heartbeat_seconds()):
            try:
                BatchChunk.objects.filter(
                    id=self.chunk.id, status=BatchChunk.RUNNING, attempts=self.chunk.attempts
                ).update(lease_until=timezone.now() + lease())
                sweep(self.chunk.job_id)
            except Exception as exc:
                if not outage.is_outage(exc):
                    logger.exception("batch chunk %s: heartbeat failed", self.chunk.id)
                else:
                    outage.report("batch chunk heartbeat", exc)
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
            logger.warning("batch chunk %s of job %s: its worker process died; sending it again", chunk.index, job.id)
            if _retrying(release, chunk):
                dispatch([chunk.id])
            return False
        except Exception as exc:  # a bug of ours: logged, and the job says which objects it stopped at
            logger.exception("batch chunk %s of job %s failed", chunk.index, job.id)
            last = chunk.start + chunk.size - 1
            fail(chunk, f"objects {chunk.start}–{last} could not be evaluated: {type(exc).__name__}: {exc}")
            return False
        kept = store(chunk, rows)
        _retrying(sweep, job.id)
        return kept
    finally:
        close_old_connections()


def sweep(job_id: str) -> None:
    """Send again the job's chunks whose worker was lost (recover), from one of its live workers: a dead
    worker's chunk runs again within a lease even when no one watches the job."""
    job = BatchJob.objects.filter(id=job_id, status__in=ACTIVE).only("id", "status").first()
    if job is not None:
        dispatch(recover(job))


def recover(job: BatchJob) -> list[int]:
    """Chunks to send again: those whose worker was lost (lease over) and those queued but never taken.
    A chunk lost PLAYGROUND_BATCH_ATTEMPTS times fails the job (something in it may crash workers)."""
    if job.status not in ACTIVE:
        return []
    if job.status == BatchJob.READING:  # no chunk yet; its read stops at the deadline, a lost reader never ends
        from playground.batch.cluster_inputs import stalled_before

        if job.created < timezone.now() - stalled_before():
            fail_job(job.id, "the worker reading the cluster stopped (crashed or was killed); the job was stopped")
        return []
    if finish_if_complete(job.id):  # every chunk kept, but the last worker stopped before it said the job was done
        progress.changed(job.id)
        return []
    now = timezone.now()
    resend: list[int] = []
    expired = BatchChunk.objects.filter(job=job, status=BatchChunk.RUNNING, lease_until__lt=now)
    for chunk in expired.only("id", "job_id", "attempts", "index", "start", "size"):
        if chunk.attempts >= settings.PLAYGROUND_BATCH_ATTEMPTS:
            with transaction.atomic():
                BatchChunk.objects.filter(id=chunk.id, status=BatchChunk.RUNNING).update(status=BatchChunk.FAILED)
                _fail_job(job.id, _lost_message(chunk))
            return []
        requeued = BatchChunk.objects.filter(
            id=chunk.id, status=BatchChunk.RUNNING, attempts=chunk.attempts, lease_until__lt=now
        ).update(status=BatchChunk.QUEUED, lease_until=None, dispatched=now)
        if requeued:
            logger.warning("batch job %s: chunk %s lost its worker; running it again", job.id, chunk.index)
            resend.append(chunk.id)
    # Not the lease: a big job's chunks wait in the broker's queue for minutes, and sending them all again every
    # lease would grow that queue for nothing. This catches messages the broker lost.
    before = now - timedelta(seconds=settings.PLAYGROUND_BATCH_REDISPATCH_SECONDS)
    stale = BatchChunk.objects.filter(job=job, status=BatchChunk.QUEUED, dispatched__lt=before)
    for chunk_id in stale.values_list("id", flat=True):
        if BatchChunk.objects.filter(id=chunk_id, status=BatchChunk.QUEUED, dispatched__lt=before).update(
            dispatched=now
        ):
            resend.append(chunk_id)
    return resend


def queue_chunks(job_id: str, items: list) -> list[int]:
    """Cut a job's inputs into chunks of PLAYGROUND_BATCH_CHUNK_SIZE and send them once the caller's transaction
    commits (a worker must find them saved): the one rule every way of starting a job uses."""
    size = settings.PLAYGROUND_BATCH_CHUNK_SIZE
    now = timezone.now()
    BatchChunk.objects.bulk_create(
        BatchChunk(job_id=job_id, index=n, start=start, size=len(part), inputs=part, dispatched=now)
        for n, start in enumerate(range(0, len(items), size))
        for part in [items[start : start + size]]
    )
    chunk_ids = list(BatchChunk.objects.filter(job_id=job_id).values_list("id", flat=True))
    transaction.on_commit(lambda: dispatch(chunk_ids))
    return chunk_ids


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


def dispatch_read(job_id: str) -> None:
    """Send a `reading` job's cluster read (cluster_inputs.read_job) to the configured backend."""
    if settings.PLAYGROUND_BATCH_BACKEND == "celery":
        from kombu.exceptions import OperationalError

        from playground.batch import tasks
        from playground.celery_app import app  # noqa: F401  (the broker settings, before the first send)

        try:
            tasks.read_cluster.delay(job_id)
        except OperationalError as exc:
            outage.report("batch broker", exc)
            fail_job(job_id, "the batch broker is down: the cluster could not be read; try again")
    else:
        from playground.batch import local

        local.submit_read(job_id)


def lease_left(chunk_id: int) -> float | None:
    """Seconds until the lease of a running chunk runs out (0 when it has); None when the chunk is not running."""
    lease_until = BatchChunk.objects.filter(id=chunk_id, status=BatchChunk.RUNNING).values_list(
        "lease_until", flat=True
    )
    for until in lease_until:
        return max(0.0, (until - timezone.now()).total_seconds()) if until else 0.0
    return None
