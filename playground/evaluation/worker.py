"""The evaluation worker process: runs jobs sent over a pipe, bounded in memory, and never outlives its server.

Django-free (spawned workers import this, its collector and the jobs, nothing else). Three guards end an orphan: the
kernel kills the worker when the thread that started it dies (Linux ``PR_SET_PDEATHSIG``), a read on the pipe
fails once the server's end is gone, and a watchdog thread exits when the parent process id changes.
Memory is bounded with ``RLIMIT_AS``: an allocation beyond it raises MemoryError, which is reported and
ends the worker (its heap may be in any state); the pool then starts a fresh one.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import resource
import signal
import threading
import time

from playground.evaluation.collector import IdleCollector

PR_SET_PDEATHSIG = 1
WATCHDOG_SECONDS = 1.0
MEMORY_EXIT_CODE = 3


def _die_with_parent(parent_pid: int) -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the watchdog and the pipe still end the worker
        pass
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(0)

    def watchdog() -> None:
        while True:
            time.sleep(WATCHDOG_SECONDS)
            if os.getppid() != parent_pid:
                os._exit(0)

    threading.Thread(target=watchdog, name="parent-watchdog", daemon=True).start()


def _limit_memory(memory_bytes: int) -> None:
    if memory_bytes > 0:
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        except (ValueError, OSError):  # a lower hard limit is already set: keep it
            pass


def _lower_priority(niceness: int) -> None:
    """Yield the CPU to the server process, which saves and acknowledges every edit."""
    try:
        os.nice(niceness)
    except OSError:
        pass


def _picklable(error: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}")


def main(conn, parent_pid: int, memory_bytes: int, niceness: int, warm_up) -> None:
    """Worker entry point: ``("ready",)`` once warm, then ``("ok", value)`` / ``("error", exception)`` per job."""
    _die_with_parent(parent_pid)
    _lower_priority(niceness)
    if warm_up is not None:
        warm_up()
    _limit_memory(memory_bytes)  # after the warm-up: the limit is for one evaluation's growth
    collector = IdleCollector()
    conn.send(("ready",))
    while True:
        try:
            function, args = conn.recv()
        except (EOFError, OSError):  # the server is gone
            os._exit(0)
        try:
            reply = ("ok", function(*args))
        except MemoryError:
            reply = None
        except Exception as error:  # the job's own failure: the caller decides what it means
            reply = ("error", _picklable(error))
        if reply is None:
            try:
                conn.send(("memory",))
            finally:
                os._exit(MEMORY_EXIT_CODE)
        try:
            conn.send(reply)
        except MemoryError:
            conn.send(("memory",))
            os._exit(MEMORY_EXIT_CODE)
        except Exception as error:  # an unpicklable result
            conn.send(("error", RuntimeError(f"result could not be sent: {error}")))
        collector.between_jobs(job_waiting=conn.poll(0))
