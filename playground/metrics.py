"""What /metrics reads when Prometheus scrapes, because other processes own it: the evaluation workers' queues
and restarts from the pool's own health report, and the batch jobs' progress from the database, where every
Celery worker stores it (a worker process has no endpoint of its own). The counters this process keeps are in
playground/core/metrics.py."""

from __future__ import annotations

import logging
from collections.abc import Iterator

from prometheus_client import REGISTRY
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

logger = logging.getLogger(__name__)


class EvaluationPoolCollector(Collector):
    """Queue depth, restarts and liveness of each evaluation worker, as the pool reports them."""

    def collect(self) -> Iterator:
        from playground.evaluation import pool

        report = pool.health()
        pending = GaugeMetricFamily(
            "playground_evaluation_queue_depth", "Jobs queued or running per evaluation worker.", labels=["worker"]
        )
        restarts = CounterMetricFamily(
            "playground_evaluation_worker_restarts",
            "Evaluation worker processes started again (after a crash, a limit or an abandoned job).",
            labels=["worker"],
        )
        alive = GaugeMetricFamily("playground_evaluation_workers_alive", "Evaluation worker processes alive.")
        for index, worker in enumerate(report["workers"]):
            pending.add_metric([str(index)], worker["pending"])
            restarts.add_metric([str(index)], worker["restarts"])
        alive.add_metric([], sum(1 for worker in report["workers"] if worker["alive"]))
        yield from (pending, restarts, alive)


class BatchCollector(Collector):
    """Batch jobs and their objects by status, from the database: every worker's progress, wherever it runs.
    The rate of `playground_batch_objects_evaluated` is the batch throughput."""

    def collect(self) -> Iterator:
        from django.db.models import Count, Sum

        from playground.batch.models import BatchJob

        try:
            rows = list(
                BatchJob.objects.values("status").annotate(jobs=Count("id"), done=Sum("done"), total=Sum("total"))
            )
        except Exception as exc:  # the database is away: the other metrics still answer
            logger.warning("metrics: batch jobs not read: %r", exc)
            return
        jobs = GaugeMetricFamily("playground_batch_jobs", "Batch jobs stored, by status.", labels=["status"])
        evaluated = GaugeMetricFamily(
            "playground_batch_objects_evaluated",
            "Objects evaluated by the stored batch jobs, by job status.",
            labels=["status"],
        )
        waiting = GaugeMetricFamily(
            "playground_batch_objects_waiting", "Objects of queued and running batch jobs not evaluated yet."
        )
        left = 0
        for row in rows:
            jobs.add_metric([row["status"]], row["jobs"])
            evaluated.add_metric([row["status"]], row["done"] or 0)
            if row["status"] in (BatchJob.QUEUED, BatchJob.RUNNING):
                left += (row["total"] or 0) - (row["done"] or 0)
        waiting.add_metric([], left)
        yield from (jobs, evaluated, waiting)


_REGISTERED: list[Collector] = []


def register_collectors() -> None:
    """Once per process (AppConfig.ready): the scrape-time collectors join the default registry."""
    if _REGISTERED:
        return
    _REGISTERED.extend((EvaluationPoolCollector(), BatchCollector()))
    for collector in _REGISTERED:
        REGISTRY.register(collector)
