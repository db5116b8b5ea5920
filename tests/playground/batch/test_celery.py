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
from django.conf import settings as django_settings

from playground.batch import jobs
from tests.playground.batch.dumps import denied_count, dump

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[3]


def _database_url() -> str:
    db = django_settings.DATABASES["default"]
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"


@pytest.fixture
def worker(settings, tmp_path):
    redis_url = os.environ.get("REDIS_URL", "").strip()
    if not redis_url:
        pytest.skip("needs REDIS_URL for the Celery broker (run `make test-postgres`)")
    settings.PLAYGROUND_BATCH_BACKEND = "celery"
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "REDIS_URL": redis_url,
        "PLAYGROUND_BATCH_BACKEND": "celery",
        "DJANGO_SETTINGS_MODULE": "playground.settings",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or "celery-test",
        "PYTHONPATH": str(ROOT),
    }
    log = tmp_path / "worker.log"
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
                "2",
                "--pool",
                "prefork",
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    yield log
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def test_a_job_runs_on_a_celery_worker_with_exact_totals(project, worker, settings):
    settings.PLAYGROUND_BATCH_CHUNK_SIZE = 25
    state, token = jobs.create_job(project["id"], None, [("dump.yaml", dump(210))])
    deadline = time.monotonic() + 120
    while state["status"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.2)
        state = jobs.status(state["id"], token)
    assert state["status"] == "done", (state, worker.read_text()[-3000:])
    assert state["done"] == state["total"] == 210
    from playground.batch.models import BatchJob

    job = BatchJob.objects.get(id=state["id"])
    assert job.summary["denied"] == denied_count(210)
    assert job.summary["policies"]["max-replicas"]["denied"] == denied_count(210)
    assert set(job.chunks.values_list("attempts", flat=True)) == {1}
    assert "playground.batch.run_chunk" in worker.read_text()
