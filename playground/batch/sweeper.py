"""The periodic check of a Celery worker: every few seconds it sends again the chunks whose worker was lost.

A job's live workers sweep it while they compute (runner.Heartbeat) and its watchers while they look
(jobs.recover); but a worker killed with the only chunk of a job left, while no one looks, would leave the
job stalled: the broker keeps the dead worker's unacknowledged message until its visibility timeout (an hour
on Redis). So each Celery worker's main process also looks, for every running job, for chunks whose lease ran
out (one indexed query per beat), and sends them again (runner.sweep): a conditional update, so any number
of workers may do it at once.
"""

from __future__ import annotations

import logging
import threading

from django.db import close_old_connections, connection
from django.utils import timezone

from playground.batch import runner
from playground.batch.models import BatchChunk, BatchJob
from playground.core import outage

logger = logging.getLogger(__name__)


def sweep_all() -> list[str]:
    """Send again the lost chunks of every running job; the ids of the jobs that had some."""
    lost = (
        BatchChunk.objects.filter(
            job__status=BatchJob.RUNNING, status=BatchChunk.RUNNING, lease_until__lt=timezone.now()
        )
        .values_list("job_id", flat=True)
        .distinct()
    )
    job_ids = list(lost)
    for job_id in job_ids:
        runner.sweep(job_id)
    return job_ids


def _loop(stopped: threading.Event) -> None:
    while not stopped.wait(runner.heartbeat_seconds()):
        try:
            close_old_connections()
            sweep_all()
        except Exception as exc:  # the next beat tries again: a sweeper that stops would stop nothing else
            if outage.is_outage(exc):
                outage.report("batch sweeper database", exc)
            else:
                logger.exception("batch sweeper failed")
            connection.close()


def start() -> threading.Event:
    """Start the check in a daemon thread of this process; set the returned event to stop it."""
    stopped = threading.Event()
    threading.Thread(target=_loop, args=(stopped,), name="batch-sweeper", daemon=True).start()
    return stopped
