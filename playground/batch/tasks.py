"""Celery tasks (`celery -A playground.celery_app worker`): one task runs one chunk of a batch job.

Late acknowledgement: a pool process killed mid-chunk has its message put back (task_reject_on_worker_lost) and
delivered again; once the chunk's short lease runs out that delivery takes it over (runner.claim), and the
job's live workers and watchers send it again in any case (runner.recover), which also covers a whole worker
lost with its messages. The job's state is in the database, not in Celery.
"""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_ready

from playground.batch import engine, runner, sweeper

# A delivery that finds its chunk running under someone's lease looks again after the lease this many times: the
# holder may be the pool process that died (its lease runs out, the delivery takes it over) or a live worker
# (the chunk ends meanwhile, and the delivery finds nothing left to do).
HELD_RETRIES = 3


@shared_task(bind=True, name="playground.batch.run_chunk", acks_late=True, ignore_result=True)
def run_chunk(self, chunk_id: int) -> bool:
    if runner.execute(chunk_id, engine.compute):
        return True
    left = runner.lease_left(chunk_id)
    if left is not None and self.request.retries < HELD_RETRIES:
        raise self.retry(countdown=left + runner.heartbeat_seconds() / 2, max_retries=HELD_RETRIES)
    return False


@shared_task(name="playground.batch.read_cluster", ignore_result=True)
def read_cluster(job_id: str) -> None:
    """A job's first phase when its objects come from the connected cluster (cluster_inputs.py)."""
    from playground.batch import cluster_inputs

    cluster_inputs.read_job(job_id)


@worker_ready.connect(weak=False)
def _start_sweeper(**_: object) -> None:
    """Each worker's main process looks for lost chunks every few seconds (sweeper.py); connected here, where
    the worker loads its tasks, so the Celery app itself names no package of ours."""
    sweeper.start()
