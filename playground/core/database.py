"""Database calls from the WebSocket consumers (project rooms, co-editing, workshops), off the event loop.

On PostgreSQL they run in a small pool of worker threads (PLAYGROUND_DATABASE_THREADS): one shared thread
(Channels' default) would queue every room's edits behind each other's round trips. With the connection pool
(config.database_config, the default on PostgreSQL) each call takes a connection from it and gives it back
when it returns: a thread idle between calls holds no server session, and the sockets share the pool's bound
with the HTTP requests (a call that finds the pool empty for DATABASE_POOL_TIMEOUT fails as an outage, which
the consumers answer with `unavailable`). Without the pool each thread keeps its connection between calls:
a room of 60 students saves ~30 edits a second, and opening a connection per call (a new server process each
time) costs more than the queries. A call that fails with a database error closes its connection either way,
so the next one reconnects. SQLite serialises writes anyway (and its test database is shared-cache in
memory), so there calls keep to Channels' one database thread and close their connection as usual.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import SyncToAsync
from channels.db import DatabaseSyncToAsync
from django.conf import settings
from django.db import DatabaseError, connections
from django.db.backends.base.base import BaseDatabaseWrapper

_THREADS = ThreadPoolExecutor(max_workers=settings.PLAYGROUND_DATABASE_THREADS, thread_name_prefix="consumer-db")
# thread id -> the connection wrapper it keeps (without the pool; closed by close_pool_connections)
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


class _ReturnConnection(SyncToAsync):
    def thread_handler(self, loop, *args, **kwargs):
        try:
            return super().thread_handler(loop, *args, **kwargs)
        finally:
            connections["default"].close()  # back to the pool (which drops it if it broke)


def db(function):
    connection = connections["default"]
    if connection.vendor != "postgresql":
        return DatabaseSyncToAsync(function)
    if connection.settings_dict.get("OPTIONS", {}).get("pool"):
        return _ReturnConnection(function, thread_sensitive=False, executor=_THREADS)
    return _KeepConnection(function, thread_sensitive=False, executor=_THREADS)


def close_pool_connections() -> None:
    """Close the connections the database threads keep without the pool (tests, before the test database
    goes; shutdown). With the pool they hold none between calls, and Django closes the pool itself."""
    with _LOCK:
        opened = list(_OPEN.values())
        _OPEN.clear()
    for connection in opened:
        connection.inc_thread_sharing()
        try:
            connection.close()
        finally:
            connection.dec_thread_sharing()


def release_connection() -> None:
    """Give this thread's pooled connection back before a wait that needs no database (a request waiting on
    the evaluation workers), so the slot serves other requests meanwhile; a later query takes one again.
    Nothing to do without the pool (the connection is kept anyway) or inside a transaction (it must stay)."""
    connection = connections["default"]
    if connection.settings_dict.get("OPTIONS", {}).get("pool") and not connection.in_atomic_block:
        connection.close()
