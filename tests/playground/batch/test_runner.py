"""Chunks under leases: a worker that crashes mid-chunk (its chunk left running past the lease) has the chunk
run again with exact totals; a late answer of the lost worker is dropped; cancel stops queued chunks; a chunk
lost too often fails the job, saying which objects."""

from __future__ import annotations

import time
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.utils import timezone

from playground.batch import engine, jobs, local, runner
from playground.batch.models import BatchChunk, BatchJob
from tests.playground.batch.dumps import denied_count, dump

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def held(monkeypatch):
    """Chunks are not sent anywhere when the job is created: the test plays the workers."""
    sent: list[int] = []
    monkeypatch.setattr(runner, "dispatch", sent.extend)
    return sent


def new_job(project, count: int) -> tuple[BatchJob, str]:
    state, token = jobs.create_job(project["id"], None, [("dump.yaml", dump(count))])
    return BatchJob.objects.get(id=state["id"]), token


def crash_after_claim(chunk: BatchChunk) -> BatchChunk:
    """A worker took the chunk and died: it stays running with its lease, which then runs out."""
    claimed = runner.claim(chunk.id)
    assert claimed is not None and claimed.status == BatchChunk.RUNNING
    BatchChunk.objects.filter(id=chunk.id).update(lease_until=timezone.now() - timedelta(seconds=1))
    return claimed


def test_a_chunk_lost_with_its_worker_runs_again_and_totals_are_exact(project, held, monkeypatch):
    job, token = new_job(project, 35)  # chunks of 10: 10, 10, 10, 5
    chunks = list(job.chunks.all())
    assert held == [c.id for c in chunks]
    lost = crash_after_claim(chunks[1])
    for chunk in chunks[:1] + chunks[2:]:
        assert runner.execute(chunk.id, engine.compute)
    progress = jobs.status(job.id, token)
    assert progress["done"] == 25 and progress["status"] == "running"  # the lost chunk is not counted
    assert progress["denied"] == len([i for i in range(35) if i % 4 == 0 and not 10 <= i < 20])
    monkeypatch.undo()  # recover sends through the real local backend now
    state = jobs.status(job.id, token)
    local.wait(timeout=60)
    state = jobs.status(job.id, token)
    assert state["status"] == "done" and state["done"] == 35
    chunk = BatchChunk.objects.get(id=lost.id)
    assert chunk.attempts == 2 and chunk.status == BatchChunk.DONE
    job.refresh_from_db()
    assert job.summary["objects"] == 35
    assert job.summary["denied"] == denied_count(35)
    assert job.summary["policies"]["max-replicas"]["denied"] == denied_count(35)


def test_the_lost_workers_late_answer_is_dropped(project, held):
    job, token = new_job(project, 10)
    chunk = BatchChunk.objects.get(job=job)
    stale = crash_after_claim(chunk)
    assert runner.recover(job) == [chunk.id]
    again = runner.claim(chunk.id)
    assert again is not None and again.attempts == 2
    rows = engine.compute(job.documents, stale.inputs, stale.start, None)
    assert not runner.store(stale, rows)  # attempt 1 no longer holds the chunk
    assert runner.store(again, rows)
    job.refresh_from_db()
    assert job.status == BatchJob.DONE and job.done == 10 and job.summary["objects"] == 10


def test_a_chunk_lost_every_time_fails_the_job(project, held, settings):
    settings.PLAYGROUND_BATCH_ATTEMPTS = 2
    job, token = new_job(project, 20)
    chunk = job.chunks.get(index=1)
    for _ in range(2):
        crash_after_claim(chunk)
        runner.recover(job)
        job.refresh_from_db()
    assert job.status == BatchJob.FAILED
    assert "objects 10–19" in job.error and "stopped 2 times" in job.error
    assert set(job.chunks.values_list("status", flat=True)) == {BatchChunk.FAILED, BatchChunk.CANCELLED}


def test_a_queued_chunk_nobody_took_is_sent_again_after_a_lease(project, held):
    job, _ = new_job(project, 15)
    assert runner.recover(job) == []
    BatchChunk.objects.filter(job=job).update(dispatched=timezone.now() - timedelta(hours=1))
    assert sorted(runner.recover(job)) == sorted(job.chunks.values_list("id", flat=True))
    assert runner.recover(job) == []  # sent again once per lease


def test_cancel_stops_queued_chunks(project, held):
    job, token = new_job(project, 30)
    first, *rest = job.chunks.all()
    running = runner.claim(first.id)
    state = jobs.cancel(job.id, token)
    assert state["status"] == "cancelled"
    assert all(runner.claim(c.id) is None for c in rest)
    rows = engine.compute(job.documents, running.inputs, running.start, None)
    assert not runner.store(running, rows)  # finished after the cancel: not counted
    job.refresh_from_db()
    assert job.status == BatchJob.CANCELLED and job.done == 0 and job.summary is None
    assert set(job.chunks.exclude(id=first.id).values_list("status", flat=True)) == {BatchChunk.CANCELLED}
    assert jobs.cancel(job.id, token)["status"] == "cancelled"  # cancelling twice is harmless


def test_a_cancelled_job_has_no_results(client, project, held):
    job, token = new_job(project, 5)
    jobs.cancel(job.id, token)
    response = client.get(f"/api/v1/batch/jobs/{job.id}/results", HTTP_X_EDIT_TOKEN=token)
    assert response.status_code == 409 and response.json()["error"]["code"] == "not_finished"


def test_an_engine_failure_stops_the_job_saying_where(project, held):
    job, _ = new_job(project, 12)

    def broken(documents, objects, start, kubernetes_version):
        raise RuntimeError("boom")

    chunk = job.chunks.get(index=1)
    assert not runner.execute(chunk.id, broken)
    job.refresh_from_db()
    assert job.status == BatchJob.FAILED and job.error == "objects 10–11 could not be evaluated: RuntimeError: boom"


def test_after_a_web_restart_queued_chunks_are_sent_again(project, held, monkeypatch):
    """The local pool died with the server that queued the chunks: the next look at the job sends them to this
    server's pool at once (no lease to wait for), and the job finishes with exact totals."""
    job, token = new_job(project, 25)
    assert len(held) == 3  # sent to a pool that no longer exists
    monkeypatch.undo()
    jobs.status(job.id, token)
    local.wait(timeout=60)
    state = jobs.status(job.id, token)
    assert state["status"] == "done" and state["done"] == 25
    assert set(job.chunks.values_list("attempts", flat=True)) == {1}


def test_a_worker_renews_its_lease_while_it_computes(project, held, settings):
    """A chunk that takes longer than the lease is not taken from a live worker: the lease is renewed."""
    settings.PLAYGROUND_BATCH_LEASE_SECONDS = 0.3
    job, token = new_job(project, 10)
    chunk = job.chunks.get()
    seen = {}

    def slow(documents, objects, start, kubernetes_version):
        first = BatchChunk.objects.get(id=chunk.id).lease_until
        for _ in range(200):  # until the heartbeat has renewed the lease twice (or 10 s)
            current = BatchChunk.objects.get(id=chunk.id).lease_until
            if current > first + timedelta(seconds=0.1):
                seen["renewed"] = current
                assert runner.recover(job) == []  # not taken away from a worker that is alive
                break
            time.sleep(0.05)
        return engine.compute(documents, objects, start, kubernetes_version)

    assert runner.execute(chunk.id, slow)
    assert "renewed" in seen
    chunk.refresh_from_db()
    assert chunk.attempts == 1 and chunk.status == BatchChunk.DONE


def test_with_the_broker_down_a_job_is_made_and_waits(client, project, settings, monkeypatch):
    """Celery backend and the broker unreachable (as kombu reports it after its retries): the job is created
    (201), its chunks stay queued in the database, to be sent again when the job is looked at after a lease."""
    from kombu.exceptions import OperationalError

    from playground.batch import tasks

    def unreachable(chunk_id):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    settings.PLAYGROUND_BATCH_BACKEND = "celery"
    monkeypatch.setattr(tasks, "run_chunk", SimpleNamespace(delay=unreachable))
    response = client.post(
        "/api/v1/batch/jobs", {"project": project["id"], "text": dump(5)}, content_type="application/json"
    )
    assert response.status_code == 201, response.content
    job = BatchJob.objects.get(id=response.json()["id"])
    assert job.status == BatchJob.QUEUED
    assert set(job.chunks.values_list("status", flat=True)) == {BatchChunk.QUEUED}
    BatchChunk.objects.filter(job=job).update(dispatched=timezone.now() - timedelta(hours=1))
    assert client.get(f"/api/v1/batch/jobs/{job.id}", HTTP_X_EDIT_TOKEN=response.json()["editToken"]).status_code == 200


@pytest.mark.parametrize("step", ["claim", "_keep", "finish_if_complete"])
def test_a_database_step_that_fails_for_a_moment_is_tried_again(project, held, monkeypatch, step):
    """SQLite's "database table is locked" while a socket reads the job (or a dropped PostgreSQL connection):
    the step is tried again, and the job ends with exact totals instead of waiting for a lease to run out."""
    from django.db import OperationalError

    job, token = new_job(project, 20)  # chunks of 10
    real = getattr(runner, step)
    failures = []

    def flaky(*args):
        if len(failures) < 2:
            failures.append(step)
            raise OperationalError("database table is locked: batch_batchjob")
        return real(*args)

    monkeypatch.setattr(runner, step, flaky)
    monkeypatch.setattr(runner.time, "sleep", lambda seconds: None)
    for chunk in job.chunks.order_by("index"):
        assert runner.execute(chunk.id, engine.compute)
    state = jobs.status(job.id, token)
    assert (state["status"], state["done"], state["denied"]) == ("done", 20, denied_count(20))
    assert failures == [step, step]


def test_a_database_step_that_keeps_failing_is_not_retried_forever(project, held, monkeypatch):
    from django.db import OperationalError

    job, _ = new_job(project, 10)
    calls = []

    def broken(*args):
        calls.append(args)
        raise OperationalError("disk I/O error")

    monkeypatch.setattr(runner, "claim", broken)
    monkeypatch.setattr(runner.time, "sleep", lambda seconds: None)
    with pytest.raises(OperationalError):
        runner.execute(job.chunks.get().id, engine.compute)
    assert len(calls) == runner.DATABASE_ATTEMPTS


def test_a_job_whose_last_worker_stopped_before_finishing_it_is_finished_when_looked_at(project, held, monkeypatch):
    """Killed between keeping its rows and marking the job done: every chunk is done, the job still running.
    The next look at the job (a status read, a watching socket) finishes it with the exact summary."""
    job, token = new_job(project, 25)
    monkeypatch.setattr(runner, "finish_if_complete", lambda job_id: False)
    for chunk in job.chunks.all():
        assert runner.execute(chunk.id, engine.compute)
    job.refresh_from_db()
    assert (job.status, job.done) == (BatchJob.RUNNING, 25)
    monkeypatch.undo()
    state = jobs.status(job.id, token)
    assert (state["status"], state["done"], state["denied"]) == ("done", 25, denied_count(25))
    job.refresh_from_db()
    assert job.summary["objects"] == 25


def test_a_bug_in_a_database_step_is_not_retried(project, held, monkeypatch):
    job, _ = new_job(project, 10)
    calls = []

    def buggy(*args):
        calls.append(args)
        raise ValueError("a bug of ours, not an outage")

    monkeypatch.setattr(runner, "claim", buggy)
    with pytest.raises(ValueError):
        runner.execute(job.chunks.get().id, engine.compute)
    assert len(calls) == 1
