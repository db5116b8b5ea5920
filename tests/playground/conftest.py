"""Fixtures for the playground tests."""

import asyncio

import pytest
from channels.layers import channel_layers


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """A new channel layer object for each test: every test runs on its own event loop, and channels-redis
    keeps loop-bound state (its receive lock) that a test stopped mid-receive would otherwise leave behind."""
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def fresh_process_state():
    """Every test starts with this process's caches and live runners empty, so none passes (or fails) because
    an earlier test warmed or filled them. The one place such state is reset; a test never clears it itself.
    (Worker processes keep their own caches: results are the same either way, only faster.)"""
    from django.core.cache import cache

    from playground.api.throttles import EvaluationThrottle
    from playground.evaluation import live_jobs as evaluation_jobs, service as evaluation_service
    from playground.services import live

    def reset() -> None:
        evaluation_service.clear_caches()
        evaluation_jobs.clear_caches()
        live._RUNNERS.clear()
        # The test client's evaluation rate count (127.0.0.1): otherwise the tests before one use up its quota.
        cache.delete(EvaluationThrottle.cache_format % {"scope": EvaluationThrottle.scope, "ident": "127.0.0.1"})

    reset()
    yield
    reset()


@pytest.fixture(autouse=True)
def _close_consumer_connections():
    """Let the consumers' database calls end before the test database is flushed (a disconnect cut short by
    the communicator leaves its write running, and a flush beside it deadlocks); then, without the connection
    pool, close the connections the threads keep between calls. (With the pool they hold none.)"""
    yield
    from playground.core.database import close_pool_connections, wait_for_calls

    wait_for_calls()
    close_pool_connections()


@pytest.fixture(autouse=True, scope="session")
def _close_kept_connections(django_db_setup, django_db_blocker):
    """Close the connection Channels' database thread holds (kept for DATABASE_CONN_MAX_AGE without the pool),
    and give every other back, before the test database is dropped: PostgreSQL refuses to drop a database in
    use. With the pool, Django closes the pool itself before the drop (its PostgreSQL _destroy_test_db), which
    closes the connections given back; one still lent out would keep the database in use."""
    yield
    from asgiref.sync import sync_to_async
    from django.db import connections

    with django_db_blocker.unblock():
        asyncio.run(sync_to_async(connections.close_all, thread_sensitive=True)())
        connections.close_all()
