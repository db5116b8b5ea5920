"""The counters of this server process, in prometheus_client's default registry (served at /metrics by
playground/metrics_view.py): evaluations (every job of the evaluation pool, timed from submission to its
answer, so queueing counts), WebSocket connections and messages. Here, below every layer, so the pool and
the consumers can count without importing the transports; what is read at scrape time is playground/metrics.py."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from concurrent.futures import CancelledError, Future

from prometheus_client import Counter, Gauge, Histogram

from playground.core.errors import ServiceError

EVALUATIONS = Counter(
    "playground_evaluations",
    "Evaluation jobs answered, by job kind and outcome (ok, busy, evaluation_limit, evaluation_failed, "
    "abandoned, error).",
    ["kind", "outcome"],
)
EVALUATION_SECONDS = Histogram(
    "playground_evaluation_seconds",
    "Seconds from an evaluation job's submission to its answer (waiting in the queue included), by job kind.",
    ["kind"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
WEBSOCKET_CONNECTIONS = Gauge(
    "playground_websocket_connections", "WebSocket connections open now, by kind of socket.", ["area"]
)
WEBSOCKET_MESSAGES = Counter(
    "playground_websocket_messages",
    "Messages received on WebSockets, by kind of socket and message type ('invalid' for one of no known type).",
    ["area", "type"],
)


def _outcome(future: Future) -> str:
    try:
        error = future.exception()
    except CancelledError:
        return "abandoned"
    if error is None:
        return "ok"
    if isinstance(error, ServiceError):
        return error.code
    # pool.Abandoned, by name: this layer is below the pool
    return "abandoned" if type(error).__name__ == "Abandoned" else "error"


def observe_evaluation(job: Callable, future: Future) -> Future:
    """Count and time `future` (of evaluation job `job`) when it completes; returns it."""
    kind = getattr(job, "__name__", "job")
    started = time.perf_counter()

    def done(finished: Future) -> None:
        _labelled(EVALUATION_SECONDS, kind).observe(time.perf_counter() - started)
        _labelled(EVALUATIONS, kind, _outcome(finished)).inc()

    future.add_done_callback(done)
    return future


def websocket_opened(area: str) -> None:
    WEBSOCKET_CONNECTIONS.labels(area).inc()


def websocket_closed(area: str) -> None:
    WEBSOCKET_CONNECTIONS.labels(area).dec()


def websocket_message(area: str, kind: object, known: dict) -> None:
    _labelled(WEBSOCKET_MESSAGES, area, kind if isinstance(kind, str) and kind in known else "invalid").inc()


@functools.cache
def _labelled(metric, *labels: str):
    """`metric.labels(*labels)`, looked up once (a lookup takes a lock; every job and message counts). The
    label values are few: job and message kinds, areas, outcomes."""
    return metric.labels(*labels)
