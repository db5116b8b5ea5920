"""Telling an outage of a backing service (Redis, the database) from a bug, and logging it without a flood.

During a Redis restart every socket's every message fails the same way; one warning line per component
every LOG_EVERY_SECONDS says so, instead of a traceback per message. Bugs still get their traceback.
"""

from __future__ import annotations

import logging
import threading
import time

from playground.core.errors import ServiceError

logger = logging.getLogger(__name__)
LOG_EVERY_SECONDS = 30.0
_LAST: dict[str, float] = {}
_LOCK = threading.Lock()


def is_outage(exc: BaseException) -> bool:
    """A lost connection to a backing service, not a fault of the code or the input."""
    if isinstance(exc, (ConnectionError, TimeoutError)) or is_saturated(exc):
        return True
    module = type(exc).__module__ or ""
    name = type(exc).__name__
    if module.startswith("redis") and name in {"ConnectionError", "TimeoutError", "BusyLoadingError"}:
        return True
    return module.startswith(("django.db", "psycopg")) and name in {"OperationalError", "InterfaceError"}


# PostgreSQL's too_many_connections: "sorry, too many clients already", "remaining connection slots are reserved".
_TOO_MANY_CONNECTIONS = "53300"
_TOO_MANY_WORDS = ("too many clients already", "remaining connection slots are reserved")
RETRY_AFTER_SECONDS = 2  # what a 503 for a full database tells the client to wait (the pool frees up that fast)


def is_saturated(exc: BaseException) -> bool:
    """The database has no connection free for this request: the pool's wait ran out (psycopg_pool's
    PoolTimeout or TooManyRequests, as raised or as the django.db error wrapping it) or the server is at
    max_connections. Capacity, not a bug and not a lost service: the client should come back shortly."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        module = type(current).__module__ or ""
        if module.startswith("psycopg_pool") and type(current).__name__ in {"PoolTimeout", "TooManyRequests"}:
            return True
        if module.startswith(("django.db", "psycopg")) and (
            getattr(current, "sqlstate", None) == _TOO_MANY_CONNECTIONS
            or any(words in str(current) for words in _TOO_MANY_WORDS)
        ):
            return True
        current = current.__cause__ or current.__context__
    return False


def report(component: str, exc: BaseException) -> None:
    """One warning line per component and period; the rest are counted silently."""
    now = time.monotonic()
    with _LOCK:
        if now - _LAST.get(component, -LOG_EVERY_SECONDS) < LOG_EVERY_SECONDS:
            return
        _LAST[component] = now
    logger.warning("%s unavailable (%s: %s); clients are told to reconnect", component, type(exc).__name__, exc)


def unavailable() -> ServiceError:
    return ServiceError("unavailable", "the server is reconnecting to its services; try again shortly", 503)


def busy() -> ServiceError:
    """What a request that found no free database connection is told (HTTP 503 with Retry-After)."""
    return ServiceError("unavailable", "the server is at capacity; try again in a few seconds", 503)
