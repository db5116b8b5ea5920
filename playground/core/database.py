"""Database calls from the WebSocket consumers (project rooms, co-editing, workshops), off the event loop.

On PostgreSQL they run in a small pool of worker threads that keep their connection between calls: a room
of 60 students saves ~30 edits a second; opening a connection per call (a new server process each time)
costs more than the queries, and one shared thread (Channels' default) queues every room's edits behind
each other's round trips. A call that fails with a database error closes its connection, so the
next one reconnects. SQLite serialises writes anyway (and its test database is shared-cache in memory),
so there calls keep to Channels' one database thread and close their connection as usual.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import SyncToAsync
from channels.db import DatabaseSyncToAsync
from django.conf import settings
from django.db import DatabaseError, connections
from django.db.backends.base.base import BaseDatabaseWrapper

_POOL = ThreadPoolExecutor(max_workers=settings.PLAYGROUND_DATABASE_THREADS, thread_name_prefix="consumer-db")
# pool thread id -> its connection wrapper (closed by close_pool_connections)
_OPEN: dict[int, BaseDatabaseWrapper] = {}
_LOCK = threading.Lock()


class _KeepConnection(SyncToAsync):
    def thread_handler(self, loop, *args, **kwargs):
        connection = connections["default"]
        with _LOCK:
            _OPEN[threading.get_ident()] = connection
        try:
            return super().thread_handler(loop, *args, **kwargs)
        except DatabaseError:
            connection.close()  # maybe broken: the next call reconnects
            raise


def db(function):
    if connections["default"].vendor == "postgresql":
        return _KeepConnection(function, thread_sensitive=False, executor=_POOL)
    return DatabaseSyncToAsync(function)


def close_pool_connections() -> None:
    """Close the pool threads' connections (tests, before the test database goes; shutdown)."""
    with _LOCK:
        opened = list(_OPEN.values())
        _OPEN.clear()
    for connection in opened:
        connection.inc_thread_sharing()
        try:
            connection.close()
        finally:
            connection.dec_thread_sharing()
