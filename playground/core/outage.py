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
    if isinstance(exc, (ConnectionError, TimeoutError)):
        return True
    module = type(exc).__module__ or ""
    name = type(exc).__name__
    if module.startswith("redis") and name in {"ConnectionError", "TimeoutError", "BusyLoadingError"}:
        return True
    return module.startswith(("django.db", "psycopg")) and name in {"OperationalError", "InterfaceError"}


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
