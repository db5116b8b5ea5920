"""Celery tasks (`celery -A playground.celery_app worker`): one task runs one chunk of a batch job.

Late acknowledgement: a worker killed mid-chunk leaves the message to be delivered again, and the chunk's lease
(runner.recover) gets it run again in any case. The job's state is in the database, not in Celery.
"""

from __future__ import annotations

from celery import shared_task

from playground.batch import engine, runner


@shared_task(name="playground.batch.run_chunk", acks_late=True, ignore_result=True)
def run_chunk(chunk_id: int) -> bool:
    return runner.execute(chunk_id, engine.compute)
