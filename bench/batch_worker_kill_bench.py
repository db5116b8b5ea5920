"""A batch job whose worker is killed (kill -9) mid-job against the same job undisturbed: how much later it ends.

Each scenario runs the same job (OBJECTS Deployments through a replica-limit policy, chunks of CHUNK) twice on
a fresh database: undisturbed, then with one worker SIGKILLed once a third of the objects are done. Nobody
reads the job's status or watches it meanwhile (the script reads the job's row only), so the job's own
workers must notice the loss. The figure is the killed run's wall time minus the undisturbed run's; the
totals must come out exact (every object counted once, the denied count as expected) in both.

* `local`: the web server's process pool (PLAYGROUND_BATCH_PROCESSES=2); one pool process is killed. Runs
  on a temporary SQLite database, no services needed.
* `celery-child` / `celery-worker` (with --celery): two `celery worker --concurrency 1` processes on
  PostgreSQL (--database-url) and Redis (REDIS_URL or --redis-url); one worker's pool process is killed
  (the broker delivers its message again), or the whole worker with its pool (its message stays
  unacknowledged; the other worker's sweeper finds the chunk whose lease ran out).

Run:  .venv/bin/python bench/batch_worker_kill_bench.py [--objects 20000] [--quick] [--json]
      [--celery --database-url postgres://postgres@127.0.0.1:5432/bench --redis-url redis://127.0.0.1:6391/0]

Target: every killed run ends exact and at most MAX_EXTRA_SECONDS after its undisturbed run (the default
lease is 10 s, renewed every 3 s).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MAX_EXTRA_SECONDS = 15.0
CHUNK = 1000


def _configure(database_url: str, backend: str, redis_url: str) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ["PLAYGROUND_BATCH_BACKEND"] = backend
    os.environ["PLAYGROUND_BATCH_PROCESSES"] = "2"
    os.environ["PLAYGROUND_BATCH_CHUNK_SIZE"] = str(CHUNK)
    os.environ.setdefault("SECRET_KEY", "batch-worker-kill-bench")
    os.environ["DJANGO_SETTINGS_MODULE"] = "playground.settings"
    if redis_url:
        os.environ["REDIS_URL"] = redis_url
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _project() -> str:
    from playground.services import project_service
    from tests.playground.batch.dumps import two_policy_project

    state, _ = project_service.create_project(**two_policy_project())
    return state["id"]


def _wait(job_id: str, until, timeout: float = 600) -> object:
    from django.db import OperationalError

    from playground.batch.models import BatchJob

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            job = BatchJob.objects.get(id=job_id)
        except OperationalError:  # SQLite locked by a pool thread's write: look again
            time.sleep(0.02)
            continue
        if until(job):
            return job
        time.sleep(0.05)
    raise TimeoutError(f"batch job {job_id} did not get there in {timeout:.0f} s")


def _run_job(project_id: str, objects: int, kill=None) -> dict:
    """One job; `kill()` is called once a third of its objects are done. Wall time from creation to done."""
    from playground.batch import jobs
    from playground.batch.models import BatchJob
    from tests.playground.batch.dumps import denied_count, dump

    upload = dump(objects)
    started = time.perf_counter()
    state, _ = jobs.create_job(project_id, None, [("dump.yaml", upload)])
    killed = None
    if kill is not None:
        _wait(state["id"], lambda job: job.done >= objects // 3)
        killed = kill()
    job = _wait(state["id"], lambda job: job.status not in ("queued", "running"))
    wall = time.perf_counter() - started
    assert isinstance(job, BatchJob)
    rows = sum(len(r) for r in job.chunks.values_list("rows", flat=True))
    attempts = list(job.chunks.values_list("attempts", flat=True))
    exact = (
        job.status == "done"
        and job.done == job.total == objects == rows
        and job.summary["denied"] == denied_count(objects)
    )
    return {
        "wall_seconds": round(wall, 2),
        "exact": exact,
        "status": job.status,
        "chunks_run_again": sum(1 for a in attempts if a > 1),
        "killed_pid": killed,
    }


def _local_pool_pid() -> int:
    from playground.batch import local

    while True:
        pool = local._processes
        if pool is not None and pool._processes and pool._pending_work_items:  # type: ignore[attr-defined]
            return next(iter(pool._processes))  # type: ignore[attr-defined]
        time.sleep(0.005)


def local_scenario(project_id: str, objects: int) -> dict:
    from playground.batch import local

    normal = _run_job(project_id, objects)
    local.wait(timeout=60)

    def kill() -> int:
        pid = _local_pool_pid()
        os.kill(pid, signal.SIGKILL)
        return pid

    killed = _run_job(project_id, objects, kill)
    local.wait(timeout=60)
    return {"scenario": "local", "normal": normal, "killed": killed}


class CeleryWorkers:
    def __init__(self) -> None:
        self.processes: list[subprocess.Popen] = []
        self.log = tempfile.NamedTemporaryFile("w+", suffix=".log", delete=False)

    def start(self) -> subprocess.Popen:
        command = [sys.executable, "-m", "celery", "-A", "playground.celery_app", "worker", "--concurrency", "1"]
        command += ["--pool", "prefork", "--without-gossip", "--without-mingle", "--without-heartbeat"]
        command += ["--loglevel", "WARNING", "--hostname", f"bench{len(self.processes)}@%h"]
        process = subprocess.Popen(
            command, cwd=ROOT, env=dict(os.environ), stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.processes.append(process)
        return process

    def child(self, process: subprocess.Popen) -> int:
        while True:
            path = Path(f"/proc/{process.pid}/task/{process.pid}/children")
            children = path.read_text().split() if path.exists() else []
            if children:
                return int(children[0])
            time.sleep(0.01)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
        self.processes.clear()


def _running_worker(workers: CeleryWorkers) -> subprocess.Popen:
    """A worker whose pool process is computing a chunk (the one that holds a running chunk's lease)."""
    from playground.batch.models import BatchChunk

    while True:
        if BatchChunk.objects.filter(status=BatchChunk.RUNNING).exists():
            return workers.processes[0]
        time.sleep(0.01)


def celery_scenarios(project_id: str, objects: int) -> list[dict]:
    results = []
    for scenario in ("celery-child", "celery-worker"):
        workers = CeleryWorkers()
        try:
            workers.start()
            workers.start()
            time.sleep(8)  # both ready (importing Django and the engine), not timed
            normal = _run_job(project_id, objects)

            def kill() -> int:
                worker = _running_worker(workers)
                if scenario == "celery-child":
                    pid = workers.child(worker)
                    os.kill(pid, signal.SIGKILL)
                    return pid
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait()
                return worker.pid

            killed = _run_job(project_id, objects, kill)
        finally:
            workers.stop()
        results.append({"scenario": scenario, "normal": normal, "killed": killed})
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--objects", type=int, default=20000)
    parser.add_argument("--quick", action="store_true", help="6,000 objects")
    parser.add_argument("--celery", action="store_true", help="also the Celery scenarios (PostgreSQL + Redis)")
    parser.add_argument("--database-url", default="", help="PostgreSQL for --celery (its tables are migrated)")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", ""))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    objects = 6000 if args.quick else args.objects
    with tempfile.TemporaryDirectory() as tmp:
        if args.celery:
            if not (args.database_url.startswith("postgres") and args.redis_url):
                parser.error("--celery needs --database-url postgres://… and --redis-url (or REDIS_URL)")
            _configure(args.database_url, "celery", args.redis_url)
        else:
            _configure(f"sqlite:///{tmp}/bench.sqlite3", "local", "")
        from django.conf import settings

        project_id = _project()
        results = celery_scenarios(project_id, objects) if args.celery else [local_scenario(project_id, objects)]
        lease, beat = settings.PLAYGROUND_BATCH_LEASE_SECONDS, settings.PLAYGROUND_BATCH_HEARTBEAT_SECONDS
    met = True
    for result in results:
        extra = result["killed"]["wall_seconds"] - result["normal"]["wall_seconds"]
        result["extra_seconds"] = round(extra, 2)
        met = met and result["normal"]["exact"] and result["killed"]["exact"] and extra <= MAX_EXTRA_SECONDS
        met = met and result["killed"]["chunks_run_again"] >= 1
    target = (
        f"target: a killed worker's job ends exact within {MAX_EXTRA_SECONDS:g} s of its undisturbed time "
        f"(lease {lease:g} s, heartbeat {beat:g} s) -- {'met' if met else 'MISSED'}"
    )
    if args.json:
        print(json.dumps({"objects": objects, "chunk": CHUNK, "results": results, "target": target}, indent=2))
    else:
        print(
            f"{objects} objects in chunks of {CHUNK}, lease {lease:g} s, heartbeat {beat:g} s, load {os.getloadavg()[0]:.2f}"
        )
        for r in results:
            print(
                f"{r['scenario']:>14}: undisturbed {r['normal']['wall_seconds']:.2f} s, killed "
                f"{r['killed']['wall_seconds']:.2f} s (+{r['extra_seconds']:.2f} s), chunks run again "
                f"{r['killed']['chunks_run_again']}, exact {r['normal']['exact'] and r['killed']['exact']}"
            )
        print(target)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
