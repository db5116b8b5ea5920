"""run_parallel: the same rows as a serial run, and a worker killed mid-run costs only a retry."""

from __future__ import annotations

import multiprocessing
import os
import signal

import pytest

from evaluator.batch import Cancelled, ChunkFailed, Summary, run_chunk, run_parallel
from evaluator.batch import parallel

from .policies import DOCUMENTS, mixed_objects


def test_two_jobs_give_the_rows_of_a_serial_run():
    objects = mixed_objects(120)
    progress: list[int] = []
    rows = run_parallel(DOCUMENTS, objects, jobs=2, chunk_size=13, on_progress=progress.append)
    assert rows == run_chunk(DOCUMENTS, objects)
    assert [r["index"] for r in rows] == list(range(120))
    assert progress == sorted(progress) and progress[-1] == 120 and len(progress) == 10  # one call per chunk


def test_one_job_runs_in_this_process():
    objects = mixed_objects(20)
    before = multiprocessing.active_children()
    assert run_parallel(DOCUMENTS, objects, jobs=1, chunk_size=6) == run_chunk(DOCUMENTS, objects)
    assert multiprocessing.active_children() == before


def test_a_killed_worker_has_its_chunk_run_again_and_totals_stay_exact():
    objects = mixed_objects(160)
    killed: list[int] = []
    retried: list[list[int]] = []
    others = {c.pid for c in multiprocessing.active_children()}  # e.g. another suite's evaluation workers

    def kill_a_worker(done: int) -> None:
        if not killed:  # the first chunk is done, others are running or queued: kill one of this run's workers
            worker = next(c for c in multiprocessing.active_children() if c.pid not in others)
            os.kill(worker.pid, signal.SIGKILL)
            killed.append(worker.pid)

    rows = run_parallel(DOCUMENTS, objects, jobs=2, chunk_size=5, on_progress=kill_a_worker, on_retry=retried.append)
    assert killed and retried, "the pool broke and unfinished chunks were retried"
    assert len(retried[0]) < 160 // 5  # the chunk(s) finished before the kill were kept, not run again
    assert [r["index"] for r in rows] == list(range(160))
    assert Summary.from_rows(rows) == Summary.from_rows(run_chunk(DOCUMENTS, objects))


def _always_die(start: int, objects: list) -> list:
    os.kill(os.getpid(), signal.SIGKILL)
    return []


def test_a_chunk_that_kills_its_worker_every_time_is_reported(monkeypatch):
    monkeypatch.setattr(parallel, "_chunk_task", _always_die)  # forked workers inherit the patched module
    with pytest.raises(ChunkFailed, match="died 2 times"):
        run_parallel(DOCUMENTS, mixed_objects(4), jobs=2, chunk_size=2, max_attempts=2, start_method="fork")


def test_spawned_workers_receive_the_objects_and_give_the_same_rows():
    """Without fork (a threaded server should not fork) the objects travel with each chunk."""
    objects = mixed_objects(30)
    rows = run_parallel(DOCUMENTS, objects, jobs=2, chunk_size=8, start_method="spawn")
    assert rows == run_chunk(DOCUMENTS, objects)
    assert parallel._inherited == {}  # nothing kept for a run that is over


@pytest.mark.parametrize("jobs", [1, 2])
def test_cancel_stops_after_the_chunks_that_finished(jobs):
    seen: list[int] = []
    before = {c.pid for c in multiprocessing.active_children()}
    with pytest.raises(Cancelled, match="cancelled after"):
        run_parallel(
            DOCUMENTS,
            mixed_objects(200),
            jobs=jobs,
            chunk_size=5,
            on_progress=seen.append,
            cancelled=lambda: len(seen) >= 2,
        )
    assert len(seen) == 2 and seen[-1] < 200
    assert {c.pid for c in multiprocessing.active_children()} <= before  # the pool is shut down
