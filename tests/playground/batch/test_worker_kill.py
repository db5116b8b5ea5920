"""A dead worker's chunk runs again within seconds, counted once: the local pool gives back the chunks of a
killed process at once; a delivery of a chunk whose lease ran out takes it over; the job's live workers notice a
dead one's chunk without anyone reading the job; two workers racing to claim or store one chunk count it once."""

from __future__ import annotations

import os
import signal
import threading
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from playground.batch import engine, jobs, local, runner, sweeper
from playground.batch.models import BatchChunk, BatchJob
from tests.playground.batch.dumps import denied_count, dump
from tests.playground.batch.test_runner import new_job

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def held(monkeypatch):
    """Chunks are not sent anywhere: the test plays the workers and sees what is sent again."""
    sent: list[int] = []
    monkeypatch.setattr(runner, "dispatch", sent.extend)
    return sent


def expire(chunk_id: int) -> None:
    """Its worker stopped renewing the lease, which has now run out."""
    BatchChunk.objects.filter(id=chunk_id).update(lease_until=timezone.now() - timedelta(seconds=1))


def test_a_delivery_after_the_lease_ran_out_takes_the_chunk_over(project, held):
    job, _ = new_job(project, 10)
    chunk = job.chunks.get()
    first = runner.claim(chunk.id)
    assert first is not None
    assert runner.claim(chunk.id) is None  # its worker is alive: the lease holds
    assert runner.lease_left(chunk.id) > 0
    expire(chunk.id)
    assert runner.lease_left(chunk.id) == 0
    assert runner.execute(chunk.id, engine.compute)  # the broker's second delivery of the message
    chunk.refresh_from_db()
    assert chunk.status == BatchChunk.DONE and chunk.attempts == 2
    assert runner.lease_left(chunk.id) is None
    rows = engine.compute(job.documents, first.inputs, first.start, None)
    assert not runner.store(first, rows)  # the first worker, had it lived on, is not counted
    job.refresh_from_db()
    assert job.status == BatchJob.DONE and job.done == 10 and job.summary["objects"] == 10


def test_the_jobs_live_workers_send_a_dead_ones_chunk_again(project, held):
    """No status read, no socket: the worker that stores the next chunk finds the lost one and sends it again."""
    job, _ = new_job(project, 20)
    lost, other = job.chunks.order_by("index")
    assert runner.claim(lost.id) is not None
    expire(lost.id)
    held.clear()
    assert runner.execute(other.id, engine.compute)
    assert held == [lost.id]
    lost.refresh_from_db()
    assert lost.status == BatchChunk.QUEUED and lost.attempts == 1
    assert runner.execute(lost.id, engine.compute)
    job.refresh_from_db()
    assert job.status == BatchJob.DONE and job.done == 20 and job.summary["denied"] == denied_count(20)


def test_a_live_workers_heartbeat_sends_a_dead_ones_chunk_again(project, held, settings):
    """While a worker computes a long chunk, its heartbeat finds a chunk of the same job whose lease ran out."""
    settings.PLAYGROUND_BATCH_LEASE_SECONDS = 0.3
    job, _ = new_job(project, 20)
    lost, running = job.chunks.order_by("index")
    assert runner.claim(lost.id) is not None
    expire(lost.id)
    held.clear()

    def slow(documents, objects, start, kubernetes_version):
        for _ in range(200):  # until a heartbeat has swept the job (or 10 s)
            if held:
                break
            time.sleep(0.05)
        return engine.compute(documents, objects, start, kubernetes_version)

    assert runner.execute(running.id, slow)
    assert lost.id in held
    assert BatchChunk.objects.get(id=lost.id).status == BatchChunk.QUEUED


def test_a_chunk_whose_process_died_is_given_back_at_once(project, held, settings):
    """The local pool knows its process died (runner.WorkerLost): no lease to wait for."""
    job, _ = new_job(project, 10)
    chunk = job.chunks.get()
    held.clear()

    def killed(*args):
        raise runner.WorkerLost()

    assert not runner.execute(chunk.id, killed)
    assert held == [chunk.id]
    chunk.refresh_from_db()
    assert chunk.status == BatchChunk.QUEUED and chunk.attempts == 1
    settings.PLAYGROUND_BATCH_ATTEMPTS = 2
    assert not runner.execute(chunk.id, killed)  # its last attempt: the job fails, saying where
    job.refresh_from_db()
    assert job.status == BatchJob.FAILED and "objects 0–9" in job.error and "stopped 2 times" in job.error


def _race(*steps):
    """Run the steps at the same moment in threads; their results in order."""
    barrier = threading.Barrier(len(steps))
    results: list = [None] * len(steps)
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            barrier.wait()
            results[n] = steps[n]()
        except BaseException as error:  # failed in the test's thread, not lost in the worker's
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(steps))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return results


def test_two_workers_taking_over_a_lost_chunk_at_once_get_it_once(project, held):
    job, _ = new_job(project, 10)
    chunk = job.chunks.get()
    assert runner.claim(chunk.id) is not None
    expire(chunk.id)

    def take():  # as runner.execute does: SQLite answers "locked" to the loser of a race, tried again
        return runner._retrying(runner.claim, chunk.id)

    taken = _race(take, take)
    assert len([c for c in taken if c is not None]) == 1, taken
    assert max(c.attempts for c in taken if c is not None) == 2


def test_two_workers_storing_one_chunk_at_once_count_it_once(project, held):
    """The first worker was thought lost and the chunk taken over; both finish together: one set of rows."""
    job, _ = new_job(project, 10)
    chunk = job.chunks.get()
    first = runner.claim(chunk.id)
    expire(chunk.id)
    second = runner.claim(chunk.id)
    assert first is not None and second is not None
    rows = engine.compute(job.documents, first.inputs, first.start, None)
    kept = _race(lambda: runner.store(first, rows), lambda: runner.store(second, rows))
    assert kept == [False, True]
    job.refresh_from_db()
    assert job.status == BatchJob.DONE and job.done == 10 and job.denied == denied_count(10)
    assert job.summary["objects"] == 10


def _pool_pids(computing: bool = False) -> list[int]:
    """The local pool's process ids (when `computing`, only while a chunk is in the pool's hands). Read off the
    executor rather than the database, which a tight poll would lock against the pool's threads on SQLite."""
    pool = local._processes
    if pool is None or not pool._processes or (computing and not pool._pending_work_items):  # type: ignore[attr-defined]
        return []
    return list(pool._processes)  # type: ignore[attr-defined]


def test_a_pool_process_killed_mid_chunk_has_its_chunks_run_again_at_once(project, settings):
    """kill -9 of a local pool process while it computes: its chunks go back to the queue and run in a new pool
    with nobody reading the job; the job ends with exact totals, the lost chunks on their second attempt."""
    settings.PLAYGROUND_BATCH_PROCESSES = 2
    settings.PLAYGROUND_BATCH_CHUNK_SIZE = 1000
    state, token = jobs.create_job(project["id"], None, [("dump.yaml", dump(6000))])
    deadline = time.monotonic() + 120
    victim = None
    while victim is None and time.monotonic() < deadline:
        pids = _pool_pids(computing=True)
        victim = pids[0] if pids else None
        time.sleep(0.01)
    assert victim is not None
    os.kill(victim, signal.SIGKILL)
    local.wait(timeout=120)
    job = BatchJob.objects.get(id=state["id"])
    assert job.status == BatchJob.DONE, job.error
    assert job.done == job.total == 6000 and job.summary["objects"] == 6000
    assert job.summary["denied"] == denied_count(6000)
    assert sum(len(rows) for rows in job.chunks.values_list("rows", flat=True)) == 6000
    assert max(job.chunks.values_list("attempts", flat=True)) == 2  # given back, not left to a lease
    assert victim not in _pool_pids()


def test_the_periodic_check_sends_again_the_lost_chunks_of_running_jobs_only(project, held):
    """A Celery worker's sweeper: a job whose only chunk left lost its worker, with nobody else to notice."""
    lost_job, _ = new_job(project, 10)
    live_job, _ = new_job(project, 10)
    lost, live = lost_job.chunks.get(), live_job.chunks.get()
    assert runner.claim(lost.id) is not None and runner.claim(live.id) is not None
    expire(lost.id)
    held.clear()
    assert sweeper.sweep_all() == [lost_job.id]
    assert held == [lost.id]
    assert BatchChunk.objects.get(id=live.id).status == BatchChunk.RUNNING  # its worker renews its lease
    assert sweeper.sweep_all() == []
