"""Workshop evaluations in the supervised worker processes: the same verdicts as in-process, loop stays free."""

import asyncio
import time

import pytest
from channels.db import database_sync_to_async

from playground.evaluation import pool
from playground.evaluation.workshop import engine
from playground.workshops.services import evaluation_pool, progress
from tests.playground.workshops.workshop_fixtures import async_join, async_open_room

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_worker_process_gives_the_same_result_and_the_event_loop_stays_free(settings):
    settings.PLAYGROUND_EVALUATION_PROCESSES = 1
    room, _ = await async_open_room()
    participant, _, _ = await async_join(room["code"])
    ctx = await database_sync_to_async(progress.context)(participant.id)
    in_process = engine.evaluate(ctx)
    ticks: list[float] = []

    async def ticker():
        while True:
            await asyncio.sleep(0.01)
            ticks.append(time.monotonic())

    clock = asyncio.create_task(ticker())
    started = time.monotonic()
    in_worker = await evaluation_pool.evaluate(ctx)  # includes starting the worker (imports the engine)
    elapsed = time.monotonic() - started
    clock.cancel()
    assert in_worker["checks"] == in_process["checks"] and in_worker["version"] == in_process["version"]
    assert [r["verdict"] for r in in_worker["requests"]] == [r["verdict"] for r in in_process["requests"]]
    # The loop kept running while the worker started and evaluated: an evaluation in the loop's own thread would
    # leave one gap as long as the whole call. Gaps, not a tick count, so a loaded machine does not fail it.
    gaps = [b - a for a, b in zip([started, *ticks], [*ticks, started + elapsed])]
    assert len(ticks) >= 3 and max(gaps) < elapsed / 2, (len(ticks), max(gaps), elapsed)
    assert pool.health()["mode"] == "processes" and pool.health()["workers"][0]["alive"]
