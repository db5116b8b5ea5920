"""Jobs an idle worker takes from the event loop itself (evaluation/lane.py, pool.run): the same answers,
bounds and retries as through the worker's supervisor thread."""

from __future__ import annotations

import asyncio
import time

import pytest

from playground.core.errors import ServiceError
from playground.evaluation import jobs, lane, pool
from tests.playground.evaluation import jobs_for_tests as t
from tests.playground.evaluation.test_pool import gone, wait_for


def idle() -> None:
    """Wait until the supervisor is done with its last job (an answered job's future is set before its
    supervisor lets go of the worker): only an idle worker is lent to the loop."""
    worker = pool.pool().workers[0]
    assert wait_for(lambda: worker.pending == 0 and not worker.busy.locked(), 10)


@pytest.fixture
def lent(monkeypatch):
    """The jobs the event loop exchanged itself."""
    answered: list[str] = []
    answer = lane.answer

    async def counting(conn, job, *rest):
        answered.append(job)
        return await answer(conn, job, *rest)

    monkeypatch.setattr(lane, "answer", counting)
    return answered


def test_an_idle_worker_answers_the_event_loop_directly(one_worker, lent):
    idle()

    async def scenario():
        first = await pool.run(jobs.evaluate_cel, "1 + 2", {}, key="project")
        second = await pool.run(t.echo, {"text": "é" * 100}, key="project")
        return first, second

    first, second = asyncio.run(scenario())
    assert first == {"result": 3, "type": "int", "cost": 1} and second == {"text": "é" * 100}
    assert len(lent) == 2
    assert pool.health()["workers"][0]["jobs"] >= 2


def test_a_job_bigger_than_the_pipe_goes_through_the_supervisor(one_worker, lent):
    big = "x" * (lane.MAX_JOB_BYTES + 1)
    idle()
    assert asyncio.run(pool.run(t.echo, big)) == big
    assert lent == []


def test_the_job_s_own_error_reaches_the_caller_and_the_worker_stays(one_worker, lent):
    worker = pool.call(t.pid)
    idle()
    with pytest.raises(ValueError, match="broken on purpose"):
        asyncio.run(pool.run(t.fail, "broken on purpose"))
    assert len(lent) == 1 and pool.call(t.pid) == worker


def test_a_worker_that_died_under_the_job_is_replaced_and_the_job_retried_once(one_worker, lent, tmp_path):
    first = pool.call(t.pid)
    idle()
    assert asyncio.run(pool.run(t.crash_once, str(tmp_path / "crashed"))) == "second attempt"
    assert len(lent) == 1  # the retry went to the supervisor, which started a new process
    assert gone(first)
    idle()
    with pytest.raises(ServiceError) as failed:
        asyncio.run(pool.run(t.crash))
    assert failed.value.code == "evaluation_failed"
    assert pool.call(jobs.evaluate_cel, "true", {})["result"] is True


def test_the_wall_clock_and_memory_bounds_hold(one_worker, settings, lent):
    settings.PLAYGROUND_EVALUATION_TIMEOUT_SECONDS = 1
    settings.PLAYGROUND_EVALUATION_MEMORY_MB = 256
    assert pool.wait_until_started()
    runaway = pool.call(t.pid)
    idle()
    started = time.monotonic()
    with pytest.raises(ServiceError) as slow:
        asyncio.run(pool.run(t.sleep, 30))
    assert slow.value.code == "evaluation_limit" and time.monotonic() - started < 10
    assert gone(runaway)
    assert pool.call(t.pid) != runaway  # a new worker, ready
    idle()
    with pytest.raises(ServiceError) as big:
        asyncio.run(pool.run(t.allocate, 1024))
    assert big.value.code == "evaluation_limit"
    assert len(lent) == 2
    assert asyncio.run(pool.run(t.allocate, 10)) == 10 * 1024 * 1024


def test_a_job_whose_caller_left_is_stopped_after_its_grace_second_while_the_loop_runs_on(one_worker, lent):
    """The client went away: its job is given up after the grace second, its worker replaced, and the loop
    (the server) is not held up meanwhile."""
    runaway = pool.call(t.pid)
    idle()

    async def scenario() -> float:
        job = asyncio.ensure_future(pool.run(t.sleep, 60))
        await asyncio.sleep(0.2)
        job.cancel()
        with pytest.raises(asyncio.CancelledError):
            await job
        left = time.monotonic()
        while not gone(runaway):
            await asyncio.sleep(0.05)  # the loop keeps serving
            assert time.monotonic() - left < 10
        return time.monotonic() - left

    assert asyncio.run(scenario()) < 5  # not the 10 s bound, never the 60 s job
    assert len(lent) == 1
    assert wait_for(lambda: pool.call(t.pid) != runaway)


def test_a_short_job_given_up_within_its_grace_second_finishes(one_worker, lent):
    worker = pool.call(t.pid)
    idle()

    async def scenario():
        return await pool.run(t.sleep, 0.3, abandoned=lambda: True)

    assert asyncio.run(scenario()) == 0.3 and lent
    assert pool.call(t.pid) == worker


def test_a_lent_worker_is_given_back_however_its_job_ends(one_worker, lent):
    """The exchange cancelled before it began (its event loop closing at once), or while under way (a test's
    loop ending, a server stopping): either way the worker is given back, not held by a job that is over."""
    worker = pool.pool().workers[0]

    async def cancelled_before_it_began() -> None:
        caller = asyncio.ensure_future(pool.run(t.sleep, 0))
        await asyncio.sleep(0)  # the caller lent the worker and scheduled the exchange, which has not run yet
        (exchange,) = asyncio.all_tasks() - {caller, asyncio.current_task()}
        exchange.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller

    async def loop_ends_under_way() -> None:
        asyncio.ensure_future(pool.run(t.sleep, 0.5))
        await asyncio.sleep(0.1)

    for scenario in (cancelled_before_it_began, loop_ends_under_way):
        idle()
        asyncio.run(scenario())
        assert wait_for(lambda: not worker.busy.locked() and worker.pending == 0, 5), scenario.__name__
        assert pool.call(t.pid) > 0
    assert len(lent) == 1  # the first exchange never began
