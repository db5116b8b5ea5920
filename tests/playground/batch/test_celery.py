"""A batch job on real Celery workers: Redis as the broker, a `celery -A playground.celery_app worker`
subprocess on the test database. In `make test-postgres` (CI's PostgreSQL + Redis pass): workers on other
machines share state only through the database and the broker, which SQLite in memory cannot stand for."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from django.conf import settings as django_settings

from playground.batch import consumer, jobs
from playground.batch.models import BatchChunk, BatchJob
from tests.fake_apiserver import sample_cluster, serving, write_kubeconfig
from tests.playground.batch.dumps import denied_count, dump
from tests.playground.batch.test_progress_socket import until_finished, watch

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[3]
# Renewed every 1.67 s by a live worker; a killed one's chunk is free again 5 s later. Not shorter: a worker slowed
# by a loaded CI machine must still renew in time, or its chunk is run twice and the attempt counts are off by one.
LEASE_SECONDS = 5.0


def _database_url() -> str:
    db = django_settings.DATABASES["default"]
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"


class Workers:
    """`celery … worker` subprocesses on the test database and the REDIS_URL broker; stopped at the end."""

    def __init__(self, tmp_path: Path, redis_url: str):
        self.tmp_path = tmp_path
        self.env = {
            **os.environ,
            "DATABASE_URL": _database_url(),
            "REDIS_URL": redis_url,
            "PLAYGROUND_BATCH_BACKEND": "celery",
            "PLAYGROUND_BATCH_LEASE_SECONDS": str(LEASE_SECONDS),
            "DJANGO_SETTINGS_MODULE": "playground.settings",
            "SECRET_KEY": os.environ.get("SECRET_KEY") or "celery-test",
            "PYTHONPATH": str(ROOT),
        }
        self.processes: list[subprocess.Popen] = []
        self.logs: list[Path] = []

    def start(self, concurrency: int = 2) -> subprocess.Popen:
        log = self.tmp_path / f"worker-{len(self.processes)}.log"
        with log.open("w") as out:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "playground.celery_app",
                    "worker",
                    "--concurrency",
                    str(concurrency),
                    "--pool",
                    "prefork",
                    "--loglevel",
                    "INFO",
                    "--without-gossip",
                    "--without-mingle",
                    "--without-heartbeat",
                    "--hostname",
                    f"test{len(self.processes)}@%h",
                ],
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.processes.append(process)
        self.logs.append(log)
        return process

    def kill(self, process: subprocess.Popen) -> None:
        """SIGKILL the worker and its pool processes at once: a machine lost mid-chunk."""
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()

    def output(self) -> str:
        return "\n".join(log.read_text()[-2000:] for log in self.logs)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()


@pytest.fixture
def workers(settings, tmp_path):
    redis_url = os.environ.get("REDIS_URL", "").strip()
    if not redis_url:
        pytest.skip("needs REDIS_URL for the Celery broker (run `make test-postgres`)")
    settings.PLAYGROUND_BATCH_BACKEND = "celery"
    settings.PLAYGROUND_BATCH_LEASE_SECONDS = LEASE_SECONDS
    pool = Workers(tmp_path, redis_url)
    yield pool
    pool.stop()


def wait_for_end(state: dict, token: str, workers: Workers, timeout: float = 180) -> dict:
    deadline = time.monotonic() + timeout
    while state["status"] in ("reading", "queued", "running") and time.monotonic() < deadline:
        time.sleep(0.2)
        state = jobs.status(state["id"], token)  # also sends again the chunks of a lost worker
    assert state["status"] == "done", (state, workers.output())
    return state


def test_a_cluster_read_runs_on_a_celery_worker_as_the_jobs_first_phase(project, workers, settings, tmp_path):
    cluster = sample_cluster()
    with serving(cluster) as url:
        kubeconfig = str(write_kubeconfig(tmp_path / "kubeconfig", url))
        workers.env.update(
            PLAYGROUND_CLUSTER="kubeconfig", PLAYGROUND_CLUSTER_KUBECONFIG=kubeconfig, PLAYGROUND_CLUSTER_CONTEXT="fake"
        )
        settings.PLAYGROUND_CLUSTER = "kubeconfig"
        settings.PLAYGROUND_CLUSTER_KUBECONFIG = kubeconfig
        settings.PLAYGROUND_CLUSTER_CONTEXT = "fake"
        workers.start()
        state, token = jobs.create_job(project["id"], None, [], {"kinds": ["Deployment", "StatefulSet"]})
        assert state["status"] == "reading"
        state = wait_for_end(state, token, workers)
    assert state["total"] == 3 and state["sources"][0]["objects"] == 3
    assert [w["message"].split(":")[0] for w in state["warnings"]] == ["cannot read statefulsets.apps"]
    assert "playground.batch.read_cluster" in workers.output()
    assert {method for method, *_ in cluster.requests} == {"GET"}


def test_a_job_runs_on_a_celery_worker_with_exact_totals(project, workers, settings):
    settings.PLAYGROUND_BATCH_CHUNK_SIZE = 25
    workers.start()
    state, token = jobs.create_job(project["id"], None, [("dump.yaml", dump(210))])
    state = wait_for_end(state, token, workers)
    assert state["done"] == state["total"] == 210
    job = BatchJob.objects.get(id=state["id"])
    assert job.summary["denied"] == denied_count(210)
    assert job.summary["policies"]["max-replicas"]["denied"] == denied_count(210)
    assert set(job.chunks.values_list("attempts", flat=True)) == {1}
    assert "playground.batch.run_chunk" in workers.output()


def test_a_worker_killed_mid_chunk_loses_nothing(project, workers, settings):
    """The worker (and its pool processes) is SIGKILLed while it runs a chunk; another worker starts. The lost
    chunk's lease runs out, it is sent again and run by the new worker: the job ends with exact totals."""
    settings.PLAYGROUND_BATCH_CHUNK_SIZE = 3000
    first = workers.start(concurrency=1)
    state, token = jobs.create_job(project["id"], None, [("dump.yaml", dump(6000))])
    deadline = time.monotonic() + 120
    running = None
    while running is None and time.monotonic() < deadline:
        running = BatchChunk.objects.filter(job_id=state["id"], status=BatchChunk.RUNNING).first()
        time.sleep(0.01)
    assert running is not None, workers.output()
    workers.kill(first)
    lost = BatchChunk.objects.get(id=running.id)
    assert lost.status == BatchChunk.RUNNING and lost.attempts == 1, "the chunk finished before the kill"
    workers.start()
    state = wait_for_end(jobs.status(state["id"], token), token, workers)
    assert state["done"] == state["total"] == 6000
    lost.refresh_from_db()
    assert lost.status == BatchChunk.DONE and lost.attempts == 2
    job = BatchJob.objects.get(id=state["id"])
    assert job.summary["objects"] == 6000
    assert job.summary["denied"] == denied_count(6000)
    assert sum(len(rows) for rows in job.chunks.values_list("rows", flat=True)) == 6000


async def test_progress_announced_by_celery_workers_reaches_the_socket(project, workers, settings, monkeypatch):
    """The workers are other processes: each stored chunk is announced through the Redis channel layer to the
    socket in this one. The socket's own status reads are slowed to never, so every message after the first
    comes from the workers' announcements."""
    settings.PLAYGROUND_BATCH_CHUNK_SIZE = 50
    monkeypatch.setattr(consumer, "RECOVER_SECONDS", 600.0)
    state, token = await database_sync_to_async(jobs.create_job)(project["id"], None, [("dump.yaml", dump(1000))])
    ws, first = await watch(state["id"], token)
    assert first["type"] == "state" and first["job"]["status"] == "queued"
    workers.start()
    messages = await until_finished(ws, timeout=120)
    assert messages[0]["type"] == "progress" and messages[0]["job"]["status"] == "running", workers.output()
    final = messages[-1]["job"]
    assert final["status"] == "done" and final["done"] == final["total"] == 1000
    assert final["denied"] == denied_count(1000)
    dones = [m["job"]["done"] for m in messages]
    assert dones == sorted(dones)


def _pool_children(process: subprocess.Popen) -> list[int]:
    """The prefork pool processes of a Celery worker (its children)."""
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    return [int(pid) for pid in children.read_text().split()] if children.exists() else []


def test_a_pool_process_killed_mid_chunk_is_delivered_again_and_taken_over(project, workers, settings):
    """kill -9 of the pool process running a chunk, nobody reading the job: the broker delivers the message again
    (acks late, rejected on a lost worker), the delivery waits out the dead process's lease and takes the chunk
    over. The job ends with exact totals, the chunk on its second attempt."""
    settings.PLAYGROUND_BATCH_CHUNK_SIZE = 3000
    worker = workers.start(concurrency=1)
    state, _ = jobs.create_job(project["id"], None, [("dump.yaml", dump(6000))])
    deadline = time.monotonic() + 120
    running = None
    while running is None and time.monotonic() < deadline:
        running = BatchChunk.objects.filter(job_id=state["id"], status=BatchChunk.RUNNING).first()
        time.sleep(0.01)
    assert running is not None, workers.output()
    children = _pool_children(worker)
    assert len(children) == 1, workers.output()
    os.kill(children[0], signal.SIGKILL)
    lost = BatchChunk.objects.get(id=running.id)
    assert lost.status == BatchChunk.RUNNING and lost.attempts == 1, "the chunk finished before the kill"
    deadline = time.monotonic() + 120
    job = BatchJob.objects.get(id=state["id"])
    while job.status in (BatchJob.QUEUED, BatchJob.RUNNING) and time.monotonic() < deadline:
        time.sleep(0.2)
        job.refresh_from_db()  # the database only: no status read sends anything again
    assert job.status == BatchJob.DONE, (job.status, job.error, workers.output())
    assert job.done == job.total == 6000 and job.summary["denied"] == denied_count(6000)
    assert sum(len(rows) for rows in job.chunks.values_list("rows", flat=True)) == 6000
    lost.refresh_from_db()
    assert lost.status == BatchChunk.DONE and lost.attempts == 2


def test_a_worker_killed_whole_has_its_chunk_run_by_another_with_nobody_looking(project, workers, settings):
    """The worker and its pool are SIGKILLed mid-chunk (its message stays unacknowledged in Redis for an hour);
    a second worker, idle, finds the chunk whose lease ran out on its periodic check and runs it. No status read,
    no socket: the job ends with exact totals, the chunk on its second attempt."""
    settings.PLAYGROUND_BATCH_CHUNK_SIZE = 6000
    first = workers.start(concurrency=1)
    state, _ = jobs.create_job(project["id"], None, [("dump.yaml", dump(6000))])
    deadline = time.monotonic() + 120
    running = None
    while running is None and time.monotonic() < deadline:
        running = BatchChunk.objects.filter(job_id=state["id"], status=BatchChunk.RUNNING).first()
        time.sleep(0.01)
    assert running is not None, workers.output()
    workers.start(concurrency=1)
    workers.kill(first)
    job = BatchJob.objects.get(id=state["id"])
    deadline = time.monotonic() + 120
    while job.status in (BatchJob.QUEUED, BatchJob.RUNNING) and time.monotonic() < deadline:
        time.sleep(0.2)
        job.refresh_from_db()  # the database only
    assert job.status == BatchJob.DONE, (job.status, job.error, workers.output())
    assert job.done == job.total == 6000 and job.summary["denied"] == denied_count(6000)
    lost = BatchChunk.objects.get(id=running.id)
    assert lost.status == BatchChunk.DONE and lost.attempts == 2
