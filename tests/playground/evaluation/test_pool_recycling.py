"""Evaluation workers recycled at a job count or a resident-memory limit: the evaluation that crosses the limit
gets its answer, then its worker is replaced by a fresh one (not counted as a restart: nothing went wrong)."""

from __future__ import annotations

import pytest

from playground.evaluation import jobs, pool
from tests.playground.evaluation import jobs_for_tests as t
from tests.playground.evaluation.test_pool import gone, wait_for


@pytest.fixture
def recycling(settings):
    settings.PLAYGROUND_EVALUATION_PROCESSES = 1
    settings.PLAYGROUND_EVALUATION_TIMEOUT_SECONDS = 10
    settings.PLAYGROUND_EVALUATION_MEMORY_MB = 1024
    settings.PLAYGROUND_EVALUATION_MAX_JOBS = 0
    settings.PLAYGROUND_EVALUATION_RECYCLE_MB = 0
    yield settings
    pool.shutdown()


def worker() -> dict:
    return pool.health()["workers"][0]


def test_a_worker_past_its_job_count_is_replaced_after_answering(recycling):
    recycling.PLAYGROUND_EVALUATION_MAX_JOBS = 2
    assert pool.wait_until_started()
    pids = [pool.call(t.pid) for _ in range(5)]  # every call answered, the 2nd and 4th crossing the limit
    assert pids[0] == pids[1] != pids[2] == pids[3] != pids[4]
    assert len(set(pids)) == 3
    assert wait_for(lambda: gone(pids[0]) and gone(pids[2]))
    assert pool.call(jobs.evaluate_cel, "1 + 2", {})["result"] == 3
    assert wait_for(lambda: worker()["recycled"] == 3)  # the 6th job crossed it again
    assert worker()["restarts"] == 0
    assert pool.health()["status"] == "ok"


def test_a_worker_past_its_memory_limit_is_replaced_after_answering(recycling):
    recycling.PLAYGROUND_EVALUATION_RECYCLE_MB = 200
    assert pool.wait_until_started()
    first = pool.call(t.hold, 10)
    assert worker()["residentMb"] < 200
    assert pool.call(t.hold, 10) == first  # still under the limit: the same worker, its caches kept
    assert pool.call(t.hold, 250) == first  # the job that crossed it is answered by the worker it grew
    assert wait_for(lambda: gone(first))
    assert pool.wait_until_started()
    second = pool.call(t.pid)
    assert second != first and second == worker()["pid"]
    assert worker()["residentMb"] < 200  # a fresh worker, at its start-up size
    assert worker()["recycled"] == 1 and worker()["restarts"] == 0  # counted before the fresh worker started


def test_a_very_low_memory_limit_replaces_the_worker_after_every_job_and_fails_none(recycling):
    recycling.PLAYGROUND_EVALUATION_RECYCLE_MB = 1
    assert pool.wait_until_started()
    results = [pool.call(jobs.evaluate_cel, f"{n} * 2", {})["result"] for n in range(3)]
    assert results == [0, 2, 4]
    pids = [pool.call(t.pid) for _ in range(3)]
    assert len(set(pids)) == 3  # a fresh worker for each
    assert wait_for(lambda: worker()["recycled"] == 6)  # counted once the answered job's worker is replaced
    assert worker()["restarts"] == 0


def test_resident_memory_read_from_one_open_file_is_what_proc_says_and_follows_a_new_process():
    import os
    import subprocess
    import sys

    memory = pool._ResidentMemory()
    own = memory.mb(os.getpid())
    assert own is not None and abs(own - pool.resident_mb(os.getpid())) < 16
    fd = memory.fd
    assert memory.mb(os.getpid()) is not None and memory.fd == fd  # the same file, read again
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert memory.mb(child.pid) is not None and memory.pid == child.pid
    finally:
        child.kill()
        child.wait()
    assert memory.mb(child.pid) is None and memory.fd is None  # gone: nothing held open
    memory.close()
