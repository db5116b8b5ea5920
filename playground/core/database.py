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
import time
import types
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


_CALLS = threading.Condition()  # notified as each call in a database thread ends
_running = 0  # calls under way in the database threads


class _Counted(SyncToAsync):
    """Counts the calls under way: one whose caller was cancelled (a socket's disconnect cut short) still runs
    to its end in its thread, and `wait_for_calls` waits for it."""

    def thread_handler(self, loop, *args, **kwargs):
        global _running
        with _CALLS:
            _running += 1
        try:
            return self.call(loop, *args, **kwargs)
        finally:
            with _CALLS:
                _running -= 1
                _CALLS.notify_all()

    def call(self, loop, *args, **kwargs):
        return super().thread_handler(loop, *args, **kwargs)


class _CountedDatabase(_Counted, DatabaseSyncToAsync):
    """Channels' database wrapper (SQLite: its one database thread, connections closed as it closes them),
    counted like the others: a disconnect cut short leaves its write running there too."""


class _KeepConnection(_Counted):
    def call(self, loop, *args, **kwargs):
        connection = connections["default"]
        with _LOCK:
            _OPEN[threading.get_ident()] = connection
        try:
            return super().call(loop, *args, **kwargs)
        except DatabaseError:
            connection.close()  # maybe broken: the next call reconnects
            raise


class _ReturnConnection(_Counted):
    def call(self, loop, *args, **kwargs):
        try:
            return super().call(loop, *args, **kwargs)
        finally:
            connections["default"].close()  # back to the pool (which drops it if it broke)


def db(function):
    connection = connections["default"]
    if connection.vendor != "postgresql":
        kind: type[SyncToAsync] = _CountedDatabase
    elif connection.settings_dict.get("OPTIONS", {}).get("pool"):
        kind = _ReturnConnection
    else:
        kind = _KeepConnection
    if type(function) is not types.FunctionType:  # a bound method (a consumer's): made each time, never kept
        return _wrapped(kind, function)
    found = _WRAPPED.get((kind, function))
    if found is None:  # a module's function: one wrapper, kept (an edit's save is one call of a few)
        found = _WRAPPED[(kind, function)] = _wrapped(kind, function)
    return found


_WRAPPED: dict[tuple, SyncToAsync] = {}


def _wrapped(kind: type[SyncToAsync], function) -> SyncToAsync:
    if kind is _CountedDatabase:
        return kind(function)
    return kind(function, thread_sensitive=False, executor=_THREADS)


def wait_for_calls(timeout: float = 30.0) -> None:
    """Wait until no call runs or waits in the database threads (tests wait before the test database is
    flushed, which a write still under way would deadlock; on SQLite the flush fails: "table is locked")."""
    deadline = time.monotonic() + timeout
    with _CALLS:
        while (
            _running or not _THREADS._work_queue.empty() or not SyncToAsync.single_thread_executor._work_queue.empty()
        ):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"database calls still under way after {timeout:.0f} s")
            _CALLS.wait(min(left, 0.05))


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
