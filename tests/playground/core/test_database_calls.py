"""A consumer's database call that outlives its caller (a disconnect cut short) is waited for before the test
database is flushed: `wait_for_calls` counts the calls on SQLite as on PostgreSQL. Uncounted, the flush beside
a write failed ("database table is locked") and left the test connection in a broken transaction."""

from __future__ import annotations

import asyncio
import threading

import pytest

from playground.core.database import db, wait_for_calls
from playground.models import Project

pytestmark = pytest.mark.django_db(transaction=True)


async def test_wait_for_calls_waits_for_a_database_call_under_way():
    started, release = threading.Event(), threading.Event()

    def slow_count() -> int:
        started.set()
        release.wait(5)
        return Project.objects.count()

    call = asyncio.ensure_future(db(slow_count)())
    assert await asyncio.to_thread(started.wait, 5)
    waiting = asyncio.ensure_future(asyncio.to_thread(wait_for_calls, 10))
    await asyncio.sleep(0.3)
    assert not waiting.done()  # the call still runs
    release.set()
    await waiting
    assert await call == 0
