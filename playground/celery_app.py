"""The Celery application of the batch workers: `celery -A playground.celery_app worker` on any machine that
reaches the database (DATABASE_URL) and the broker (REDIS_URL or CELERY_BROKER_URL)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")

app = Celery("playground")
# Celery's Django fix-up sets Django up in each worker; the CELERY_* settings configure it (among them
# worker_max_tasks_per_child and worker_max_memory_per_child: pool processes are recycled, settings.py).
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    # A chunk's message is acknowledged after it ran, and put back when its pool process dies under it, so the
    # broker delivers it again at once; the chunk's lease (runner.claim) lets that delivery take it over.
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,  # a chunk is seconds of work: spread them over the workers
    task_ignore_result=True,
    broker_connection_retry_on_startup=True,
)
app.autodiscover_tasks(["playground.batch"])
