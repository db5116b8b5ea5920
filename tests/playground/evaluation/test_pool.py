"""The supervised evaluation pool: dead workers replaced, in-flight jobs retried once, bounds enforced."""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import CancelledError

import pytest

from playground.evaluation import jobs, pool
from playground.core.errors import ServiceError
from tests.playground.evaluation import jobs_for_tests as t


def wait_for(condition, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_killed_worker_is_replaced_and_the_next_evaluation_succeeds(one_worker):
    first = pool.call(t.pid)
    os.kill(first, signal.SIGKILL)  # as the OOM killer would, between two evaluations
    assert wait_for(lambda: pool.health()["workers"][0]["restarts"] >= 1 and pool.health()["status"] == "ok")
    assert pool.call(jobs.evaluate_cel, "1 + 2", {}) == {"result": 3, "type": "int", "cost": 1}
    assert pool.call(t.pid) != first


def test_an_evaluation_whose_worker_died_under_it_is_retried_once(one_worker, tmp_path):
    assert pool.call(t.crash_once, str(tmp_path / "crashed")) == "second attempt"


def test_an_evaluation_that_kills_its_worker_twice_fails_with_a_message(one_worker):
    with pytest.raises(ServiceError) as caught:
        pool.call(t.crash)
    assert caught.value.code == "evaluation_failed" and "stopped twice" in caught.value.message
    assert pool.call(jobs.evaluate_cel, "true", {})["result"] is True


def test_the_wall_clock_bound_kills_the_worker_and_says_so(one_worker, settings):
    settings.PLAYGROUND_EVALUATION_TIMEOUT_SECONDS = 1
    assert pool.wait_until_started()
    started = time.monotonic()
    with pytest.raises(ServiceError) as caught:
        pool.call(t.sleep, 30)
    assert time.monotonic() - started < 10
    assert caught.value.code == "evaluation_limit" and caught.value.status == 422
    assert caught.value.message.startswith("evaluation exceeded 1 s / 512 MiB")
    assert "far above what the CEL cost limits allow" in caught.value.message
    assert pool.call(jobs.evaluate_cel, "2 * 21", {})["result"] == 42


def test_the_memory_bound_stops_an_evaluation_and_the_worker_is_replaced(one_worker, settings):
    settings.PLAYGROUND_EVALUATION_MEMORY_MB = 300
    assert pool.wait_until_started()
    with pytest.raises(ServiceError) as caught:
        pool.call(t.allocate, 1024)
    assert caught.value.code == "evaluation_limit" and "300 MiB" in caught.value.message
    assert pool.call(t.allocate, 10) == 10 * 1024 * 1024


def test_work_abandoned_while_queued_never_runs(one_worker, tmp_path):
    marker = tmp_path / "ran"
    busy = pool.submit(t.sleep, 1.5)
    abandoned = pool.submit(t.touch, str(marker))
    assert abandoned.cancel()
    assert busy.result() == 1.5
    assert pool.call(t.pid) > 0  # the queue moved past the abandoned job
    with pytest.raises(CancelledError):
        abandoned.result()
    assert not marker.exists()


def test_work_superseded_while_queued_never_runs(one_worker, tmp_path):
    """A queue of superseded edits (each edit's evaluation behind a slow one) costs nothing: none starts, so
    none runs past its grace second and takes its worker down with it."""
    marker = tmp_path / "ran"
    superseded = threading.Event()
    busy = pool.submit(t.sleep, 1.0)
    queued = pool.submit(t.touch, str(marker), abandoned=superseded.is_set)
    superseded.set()
    assert busy.result() == 1.0
    with pytest.raises(pool.Abandoned):
        queued.result()
    assert not marker.exists()
    assert pool.health()["workers"][0]["restarts"] == 0


def test_a_keyed_job_does_not_wait_for_its_worker_to_start_again(settings):
    """Its worker died (it starts again: seconds on a loaded machine) while another is ready: the job goes
    there, and back to its own worker once that one is ready."""
    settings.PLAYGROUND_EVALUATION_PROCESSES = 2
    try:
        assert pool.wait_until_started()
        own = pool.call(t.pid, key="project-a")
        os.kill(own, signal.SIGKILL)
        assert wait_for(lambda: gone(own))
        other = pool.call(t.pid, key="project-a")
        assert other != own and other in {w["pid"] for w in pool.health()["workers"]}
        assert pool.wait_until_started()
        again = pool.call(t.pid, key="project-a")
        assert again not in {own, other}  # its own worker, started again
    finally:
        pool.shutdown()


def test_the_same_key_goes_to_the_same_worker(settings):
    settings.PLAYGROUND_EVALUATION_PROCESSES = 2
    try:
        assert pool.wait_until_started()
        assert len({pool.call(t.pid, key="project-a") for _ in range(4)}) == 1
        assert pool.health()["mode"] == "processes" and len(pool.health()["workers"]) == 2
    finally:
        pool.shutdown()


def test_workers_exit_when_their_server_is_killed(tmp_path):
    """kill -9 of the server process: its workers go too (no orphans), whatever they were doing."""
    import subprocess
    import sys

    script = tmp_path / "server.py"
    script.write_text(
        "import django, os, sys\n"
        "os.environ['PLAYGROUND_EVALUATION_PROCESSES'] = '2'\n"
        "django.setup()\n"
        "from playground.evaluation import pool\n"
        "from tests.playground.evaluation import jobs_for_tests as t\n"
        "if __name__ == '__main__':\n"
        "    pool.wait_until_started()\n"
        "    pool.submit(t.sleep, 600)\n"  # one worker busy, one idle
        "    pids = {pool.call(t.pid, key=str(i)) for i in range(8)}\n"
        "    print(' '.join(str(p) for p in sorted(set(w['pid'] for w in pool.health()['workers']))), flush=True)\n"
        "    import time; time.sleep(600)\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "playground.settings", "PYTHONPATH": os.getcwd()}
    server = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        line = server.stdout.readline()
        pids = [int(pid) for pid in line.split()]
        assert len(pids) == 2 and not any(gone(pid) for pid in pids)
    finally:
        server.kill()
        server.wait()
    assert wait_for(lambda: all(gone(pid) for pid in pids), 10)


def test_a_superseded_runaway_frees_its_worker_long_before_its_bound(one_worker):
    """A newer edit supersedes a job that runs on: the worker is stopped and replaced, the next job runs."""
    import asyncio

    superseded = False
    runaway_worker = pool.call(t.pid)

    async def scenario() -> float:
        nonlocal superseded
        job = asyncio.ensure_future(pool.run(t.sleep, 60, abandoned=lambda: superseded))
        await asyncio.sleep(0.3)
        assert not job.done()  # running, not yet abandoned
        superseded = True
        started = time.monotonic()
        with pytest.raises(pool.Abandoned):
            await job
        return time.monotonic() - started

    stopped_after = asyncio.run(scenario())
    assert stopped_after < 10  # the 10 s wall-clock bound did not have to fire (and 60 s never ran)
    assert gone(runaway_worker)
    assert pool.call(jobs.evaluate_cel, "6 * 7", {})["result"] == 42  # a fresh worker took the next job
    assert pool.health()["workers"][0]["restarts"] == 1


def test_a_job_whose_caller_left_is_stopped_while_it_runs(one_worker):
    """The awaiting task cancelled (a WebSocket client disconnected) stops a running job too."""
    import asyncio

    runaway_worker = pool.call(t.pid)

    async def scenario() -> None:
        job = asyncio.ensure_future(pool.run(t.sleep, 60))
        await asyncio.sleep(0.3)
        job.cancel()
        with pytest.raises(asyncio.CancelledError):
            await job

    asyncio.run(scenario())
    assert wait_for(lambda: gone(runaway_worker), 10)
    assert pool.call(t.pid) != runaway_worker


def test_a_short_superseded_job_is_left_to_finish(one_worker):
    """Within the grace second a superseded job is not worth a worker: it finishes and the worker stays."""
    worker = pool.call(t.pid)
    superseded = threading.Event()
    job = pool.submit(t.sleep, 0.3, abandoned=superseded.is_set)
    assert wait_for(job.running)
    superseded.set()
    assert job.result() == 0.3
    assert pool.call(t.pid) == worker
