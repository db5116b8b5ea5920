"""What /metrics reads when Prometheus scrapes, because other processes own it: the evaluation workers' queues
and restarts from the pool's own health report, and the batch jobs' progress from the database, where every
Celery worker stores it (a worker process has no endpoint of its own), and the database pool's saturation
from psycopg_pool's statistics. The counters this process keeps are in
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


class DatabasePoolCollector(Collector):
    """How full this process's PostgreSQL pool is (psycopg_pool's own statistics, through the pool Django
    holds when OPTIONS["pool"] is set, config.database_config): connections open, lent and idle, requests
    waiting for one, and since start-up how many asked, had to queue, and failed (timed out after
    DATABASE_POOL_TIMEOUT: the 503s). Nothing without the pool (SQLite, DATABASE_POOL_MAX_SIZE=0)."""

    def collect(self) -> Iterator:
        from django.db import connections

        connection = connections["default"]
        if connection.vendor != "postgresql" or not connection.settings_dict.get("OPTIONS", {}).get("pool"):
            return
        stats = connection.pool.get_stats()
        size, idle = stats.get("pool_size", 0), stats.get("pool_available", 0)
        gauges = {
            "playground_database_pool_max": ("Most connections the pool may open.", stats.get("pool_max", 0)),
            "playground_database_pool_connections": ("Connections the pool holds open now.", size),
            "playground_database_pool_in_use": ("Connections lent to requests now.", max(0, size - idle)),
            "playground_database_pool_idle": ("Open connections waiting in the pool.", idle),
            "playground_database_pool_waiting": (
                "Requests waiting for a connection now.",
                stats.get("requests_waiting", 0),
            ),
        }
        for name, (help_text, value) in gauges.items():
            gauge = GaugeMetricFamily(name, help_text)
            gauge.add_metric([], value)
            yield gauge
        counters = {
            "playground_database_pool_requests": ("Connections asked of the pool.", stats.get("requests_num", 0)),
            "playground_database_pool_queued": (
                "Requests that found no free connection and waited for one.",
                stats.get("requests_queued", 0),
            ),
            "playground_database_pool_errors": (
                "Requests that got no connection (timed out after DATABASE_POOL_TIMEOUT, or refused).",
                stats.get("requests_errors", 0),
            ),
            "playground_database_pool_wait_seconds": (
                "Seconds requests spent waiting for a connection, all together.",
                stats.get("requests_wait_ms", 0) / 1000,
            ),
        }
        for name, (help_text, value) in counters.items():
            counter = CounterMetricFamily(name, help_text)
            counter.add_metric([], value)
            yield counter


_REGISTERED: list[Collector] = []


def register_collectors() -> None:
    """Once per process (AppConfig.ready): the scrape-time collectors join the default registry."""
    if _REGISTERED:
        return
    _REGISTERED.extend((EvaluationPoolCollector(), BatchCollector(), DatabasePoolCollector()))
    for collector in _REGISTERED:
        REGISTRY.register(collector)
