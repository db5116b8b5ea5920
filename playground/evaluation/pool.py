"""One supervised evaluation runtime for the project room, workshops and REST.

``submit(job, *args, key=None)`` runs a job from ``jobs.py`` in a worker process and returns a
``concurrent.futures.Future`` (``run`` awaits it, ``call`` blocks on it). Jobs with the same key go to the same
worker, whose caches then hold that document set's compiled policies, unless that worker is starting again
(seconds on a loaded machine) while another is ready: warm caches are not worth that wait. Jobs without a key
go to the least busy worker. Each worker has a supervisor thread in the server that:

* starts it (warmed up once, before it takes work) and starts it again when it has died, even when idle;
* bounds every job in wall-clock time and, through the worker's ``RLIMIT_AS``, in memory: a worker over
  either is killed and replaced, and the caller gets ``evaluation_limit`` ("evaluation exceeded 10 s /
  512 MiB"). The bounds are a safety net set far above what the CEL cost limits allow, so an expression over
  its cost limit always gets the API server's cost-limit error, however loaded the machine is;
* retries a job once when its worker died under it (the OOM killer, a crash), then fails it with a message;
* recycles a worker that has run ``max_jobs`` jobs or whose resident memory passed ``recycle_mb`` (its caches
  and heap keep the peak of any burst): the job that crossed the limit gets its answer first, then the
  worker is replaced by a fresh one (while it starts, keyed jobs go to a ready worker), so a long-running
  server's workers stay near their steady-state memory instead of their high-water mark;
* skips work its caller abandoned while it was queued (a cancelled future, or one whose `abandoned()` is
  already true, is never started: a queue of superseded edits must not cost a worker each), and stops work
  abandoned while it runs: a job whose caller went away (its awaiting task was cancelled: a client left) or
  whose `abandoned()` predicate turns true (a newer edit superseded it) has its worker killed and replaced
  once it has run ABANDONED_GRACE_SECONDS, so a runaway nobody waits for frees its worker at once instead of
  running to the wall-clock bound. Shorter jobs are left to finish: killing a worker costs its warm caches
  and a restart, far more than the few milliseconds a normal evaluation has left.

A job awaited on the event loop (``run``: the live room, workshops) whose worker is idle is exchanged by the loop
itself (lane.py), under the same bounds: the worker is lent to it (``busy`` is held by whoever talks to the
process) and its supervisor is woken only to start it again or recycle it.

``PLAYGROUND_EVALUATION_PROCESSES=0`` runs jobs in threads of this process instead (tests, debugging): no
bounds beyond the engine's own, no supervision needed.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import multiprocessing
import os
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.reduction import ForkingPickler
from typing import NamedTuple

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

from playground.evaluation import jobs, lane, worker
from playground.core import metrics
from playground.core.errors import ServiceError

logger = logging.getLogger(__name__)

THREADS_WITHOUT_PROCESSES = 4
START_TIMEOUT_SECONDS = 120.0  # importing and warming the engine on a loaded machine
IDLE_CHECK_SECONDS = 1.0
NICENESS = 5
ABANDONED_GRACE_SECONDS = 1.0  # far beyond a normal evaluation (milliseconds), far below the wall-clock bound
POLL_SECONDS = 0.05  # how often a running job's supervisor asks whether it was abandoned


@dataclass(frozen=True)
class Limits:
    processes: int
    timeout_seconds: float
    memory_mb: int
    queue_size: int
    max_jobs: int = 0  # jobs a worker runs before it is recycled (0: never)
    recycle_mb: int = 0  # resident MiB past which a worker is recycled after its job (0: never)

    @classmethod
    def from_settings(cls) -> "Limits":
        return cls(
            settings.PLAYGROUND_EVALUATION_PROCESSES,
            settings.PLAYGROUND_EVALUATION_TIMEOUT_SECONDS,
            settings.PLAYGROUND_EVALUATION_MEMORY_MB,
            settings.PLAYGROUND_EVALUATION_QUEUE,
            settings.PLAYGROUND_EVALUATION_MAX_JOBS,
            settings.PLAYGROUND_EVALUATION_RECYCLE_MB,
        )

    def exceeded(self) -> ServiceError:
        return ServiceError(
            "evaluation_limit",
            f"evaluation exceeded {self.timeout_seconds:g} s / {self.memory_mb} MiB and was stopped (a safety "
            "limit far above what the CEL cost limits allow: look for very large documents or expressions)",
            422,
        )


def resident_mb(pid: int) -> float | None:
    """A process's resident memory in MiB, from /proc (Linux); None where it cannot be read."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return _statm_mb(statm.read())
    except (OSError, ValueError, IndexError):
        return None


def _statm_mb(statm: bytes) -> float:
    """The resident MiB /proc/<pid>/statm gives (its second field, in pages)."""
    return int(statm.split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


class _ResidentMemory:
    """`resident_mb` of one process after each of its jobs, from a /proc file opened once: an open, a read and
    a close each time cost more than the rest of the job's bookkeeping in the server. Its supervisor thread
    alone uses it."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self.fd: int | None = None

    def mb(self, pid: int) -> float | None:
        try:
            if pid != self.pid or self.fd is None:
                self.close()
                self.fd = os.open(f"/proc/{pid}/statm", os.O_RDONLY)
                self.pid = pid
            return _statm_mb(os.pread(self.fd, 256, 0))
        except (OSError, ValueError, IndexError):  # gone (a pid used again is opened afresh), or not Linux
            self.close()
            return None

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
        self.pid = self.fd = None


def _failed() -> ServiceError:
    return ServiceError(
        "evaluation_failed",
        "the evaluation worker stopped twice while running this evaluation; it was not retried again",
        503,
    )


def _busy() -> ServiceError:
    return ServiceError("busy", "too many evaluations are waiting; try again shortly", 503)


class _Died(Exception):
    """The worker process ended while it ran a job."""


class Abandoned(Exception):
    """The job was given up by its caller while it ran; its worker was stopped and replaced."""


class _Job(NamedTuple):
    """A job for a worker's supervisor: the future it answers, what to run, whether its caller gave it up, and
    its attempts (a worker that dies under attempt 1 is started again for attempt 2)."""

    future: Future
    function: Callable
    args: tuple
    abandoned: Callable[[], bool] | None = None
    attempts: tuple[int, ...] = (1, 2)


def _asks(abandoned: Callable[[], bool] | None) -> bool:
    try:
        return abandoned is not None and bool(abandoned())
    except Exception:  # a caller's predicate must never take the supervisor down
        logger.exception("an abandoned() predicate failed")
        return False


class _Worker:
    """One worker process and the supervisor thread that owns it (and alone talks to it)."""

    def __init__(self, index: int, limits: Limits):
        self.index = index
        self.limits = limits
        self.jobs: queue.Queue = queue.Queue()
        self.pending = 0  # queued + running, for least-busy routing
        self.pending_lock = threading.Lock()
        self.restarts = 0
        self.recycled = 0  # replaced at a job or memory limit (not counted in restarts: nothing went wrong)
        self.jobs_run = 0  # by the current process
        self.process = None
        self.conn = None
        self.ready = False  # the current process finished its warm-up
        self.resident = _ResidentMemory()
        self.lane_resident = _ResidentMemory()  # the event loop's, for jobs it exchanges itself (lane.py)
        # Held by whoever talks to the process: the supervisor thread, or the event loop for a job it lent.
        self.busy = threading.Lock()
        self.stopping = False
        self.thread = threading.Thread(target=self._supervise, name=f"evaluation-worker-{index}", daemon=True)
        self.thread.start()

    # -- called from any thread --------------------------------------------------------------------------

    def submit(self, job: _Job) -> None:
        with self.pending_lock:
            if self.pending >= self.limits.queue_size:
                job.future.set_exception(_busy())
                return
            self.pending += 1
        self.jobs.put(job)

    def lend(self) -> bool:
        """Lend the idle, ready process to the caller (the event loop, lane.py) for one job: True when it is
        now the caller's until `give_back`. Never waits: a worker with jobs queued or under way is not lent."""
        if self.stopping or self.pending or not self.available() or not self.busy.acquire(blocking=False):
            return False
        if self.conn is None or not self.ready:  # it changed hands meanwhile
            self.busy.release()
            return False
        with self.pending_lock:
            self.pending += 1
        return True

    def give_back(self, killed: bool) -> None:
        """The lent job is over. The supervisor is woken only when it has something to do: start the process
        again (`killed`), or recycle it (checked here, with the loop's own reading of its memory)."""
        due = not killed and self._recycle_reason(self.lane_resident) is not None
        with self.pending_lock:
            self.pending -= 1
        self.busy.release()
        if killed or due:
            self.jobs.put(())

    def stop(self) -> None:
        self.stopping = True
        self.jobs.put(None)

    def available(self) -> bool:
        """Warmed up and alive: a job sent now starts without waiting for a (re)start."""
        process = self.process
        return self.ready and process is not None and process.is_alive()

    def health(self) -> dict:
        process = self.process
        return {
            "pid": process.pid if process is not None else None,
            "alive": process is not None and process.is_alive(),
            "ready": self.ready,
            "restarts": self.restarts,
            "recycled": self.recycled,
            "jobs": self.jobs_run,
            "residentMb": round(mb, 1) if process is not None and (mb := resident_mb(process.pid)) else None,
            "pending": self.pending,
        }

    # -- the supervisor thread ---------------------------------------------------------------------------

    def _supervise(self) -> None:
        while not self.stopping:
            try:
                item = self.jobs.get(timeout=IDLE_CHECK_SECONDS)
            except queue.Empty:
                item = ()
            if item is None:
                break
            with self.busy:
                self._handle(item)
        self._kill()

    def _handle(self, item: _Job | tuple) -> None:
        """One job, or () (idle, or woken after a lent job): the process started again if it died, recycled
        if due."""
        try:
            self._ensure_started()
        except _Died:
            logger.error("evaluation worker %d could not start", self.index)
        if not isinstance(item, _Job):
            self._recycle_if_due()
            return
        try:
            if not item.future.set_running_or_notify_cancel():  # cancelled while queued
                return
            if _asks(item.abandoned):  # superseded while queued
                item.future.set_exception(Abandoned("the evaluation was abandoned before it started"))
            else:
                self._run(item)
                self._recycle_if_due()
        finally:
            with self.pending_lock:
                self.pending -= 1

    def _recycle_reason(self, resident: _ResidentMemory) -> str | None:
        """Why the worker is due to be replaced (its job count or memory limit), or None."""
        process = self.process
        if process is None:
            return None
        limits = self.limits
        if limits.max_jobs and self.jobs_run >= limits.max_jobs:
            return f"it ran {self.jobs_run} evaluations"
        if limits.recycle_mb and (mb := resident.mb(process.pid)) is not None and mb > limits.recycle_mb:
            return f"its resident memory is {mb:.0f} MiB (limit {limits.recycle_mb} MiB)"
        return None

    def _recycle_if_due(self) -> None:
        """After a job was answered: replace the worker when it reached its job count or memory limit."""
        process = self.process
        if process is None or not process.is_alive():
            return
        reason = self._recycle_reason(self.resident)
        if reason is None:
            return
        logger.info("evaluation worker %d (pid %s) recycled: %s", self.index, process.pid, reason)
        self._kill()
        self.process = None  # not a death: _ensure_started starts the next without counting a restart
        self.recycled += 1
        try:
            self._ensure_started()
        except _Died:
            logger.error("evaluation worker %d could not start", self.index)

    def _ensure_started(self) -> None:
        if self.process is not None and self.process.is_alive():
            return
        if self.stopping:  # the server is going: a worker started now would die reading its start-up data
            raise _Died()
        if self.process is not None:
            logger.warning(
                "evaluation worker %d (pid %s) ended with exit code %s; starting a new one",
                self.index,
                self.process.pid,
                self.process.exitcode,
            )
            self.restarts += 1
            self._kill()
        context = multiprocessing.get_context("spawn")  # never fork a running server
        parent_conn, child_conn = context.Pipe()
        process = context.Process(
            target=worker.main,
            name=f"evaluation-worker-{self.index}",
            daemon=True,
            args=(child_conn, os.getpid(), self.limits.memory_mb * 1024 * 1024, NICENESS, jobs.warm_up),
        )
        self.ready = False
        process.start()
        child_conn.close()  # only the worker holds its end: it sees EOF when the server goes
        self.process, self.conn = process, parent_conn
        self.jobs_run = 0
        try:
            ready = parent_conn.poll(START_TIMEOUT_SECONDS) and parent_conn.recv() == ("ready",)
        except (EOFError, OSError):
            ready = False
        if not ready:
            self._kill()
            raise _Died("the worker did not become ready")
        self.ready = True

    def _run(self, job: _Job) -> None:
        for attempt in job.attempts:
            if attempt == 2 and _asks(job.abandoned):
                job.future.set_exception(Abandoned("the evaluation was abandoned"))
                return
            try:
                if attempt == 2:
                    self._ensure_started()
                reply = self._exchange(job.function, job.args, job.abandoned)
            except _Died:
                self.died_under(job.function, attempt)
                continue
            self.settle(job.future, job.function, reply)
            return
        job.future.set_exception(_failed())

    def died_under(self, function, attempt: int) -> None:
        logger.warning(
            "evaluation worker %d died during %s (attempt %d)",
            self.index,
            getattr(function, "__name__", function),
            attempt,
        )

    def settle(self, future: Future, function, reply: tuple) -> None:
        """Answer `future` with the worker's reply to `function`."""
        if reply[0] == "ok":
            future.set_result(reply[1])
        elif reply[0] == "error":
            future.set_exception(reply[1])
        elif reply[0] == "abandoned":
            logger.info(
                "evaluation worker %d stopped: %s was abandoned while it ran",
                self.index,
                getattr(function, "__name__", function),
            )
            future.set_exception(Abandoned("the evaluation was abandoned while it ran; its worker was replaced"))
        else:  # "timeout" / "memory": the worker was over its bounds; it is replaced, the job not retried
            logger.warning(
                "evaluation worker %d exceeded its %s bound in %s",
                self.index,
                reply[0],
                getattr(function, "__name__", function),
            )
            future.set_exception(self.limits.exceeded())

    def _exchange(self, function, args: tuple, abandoned: Callable[[], bool] | None = None) -> tuple:
        if self.conn is None or self.process is None or not self.process.is_alive():
            self._ensure_started()
        conn = self.conn
        assert conn is not None
        try:
            conn.send((function, args))
            self.jobs_run += 1
            started = time.monotonic()
            deadline = started + self.limits.timeout_seconds
            while not conn.poll(min(POLL_SECONDS, max(0.0, deadline - time.monotonic()))):
                now = time.monotonic()
                if now >= deadline:
                    self._kill()
                    return ("timeout",)
                if now - started >= ABANDONED_GRACE_SECONDS and _asks(abandoned):
                    self._kill()
                    return ("abandoned",)
            reply = conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            self._kill()
            raise _Died() from None
        if reply == ("memory",):
            self._kill()
        return reply

    def _kill(self) -> None:
        self.ready = False
        self.resident.close()
        process, conn = self.process, self.conn
        if process is not None and process.is_alive():
            process.kill()
        if process is not None:
            process.join(timeout=5)
        if conn is not None:
            conn.close()
        self.conn = None
        if process is not None and not process.is_alive():
            self.process = process  # keep it for health() until a new one starts


class EvaluationPool:
    """Worker processes (``limits.processes`` of them) with routing by key."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.workers = [_Worker(i, limits) for i in range(limits.processes)]
        self.threads = (
            None if self.workers else ThreadPoolExecutor(THREADS_WITHOUT_PROCESSES, thread_name_prefix="evaluate")
        )

    def submit(self, function, *args, key: str | None = None, abandoned: Callable[[], bool] | None = None) -> Future:
        if self.threads is not None:
            return self.threads.submit(function, *args)
        future: Future = Future()
        self.choose(key).submit(_Job(future, function, args, abandoned))
        return future

    def choose(self, key: str | None) -> _Worker:
        """The worker for a job: by key (its caches hold that document set), unless that one is starting
        again while another is ready; without a key, the least busy."""
        if key is None:
            return min(self.workers, key=lambda w: w.pending)
        digest = hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest()
        chosen = self.workers[int.from_bytes(digest, "big") % len(self.workers)]
        if not chosen.available():
            ready = [w for w in self.workers if w.available()]
            if ready:
                chosen = min(ready, key=lambda w: w.pending)
        return chosen

    def slots(self) -> int:
        return len(self.workers) or THREADS_WITHOUT_PROCESSES

    def health(self) -> dict:
        if self.threads is not None:
            return {"status": "ok", "mode": "threads", "workers": []}
        workers = [w.health() for w in self.workers]
        # A worker not started yet (no pid) is fine: it starts within a second.
        healthy = all(w["alive"] or w["pid"] is None for w in workers)
        return {"status": "ok" if healthy else "error", "mode": "processes", "workers": workers}

    def shutdown(self) -> None:
        for w in self.workers:
            w.stop()
        for w in self.workers:
            w.thread.join(timeout=10)
        if self.threads is not None:
            self.threads.shutdown(wait=False, cancel_futures=True)


_POOL: EvaluationPool | None = None
_LOCK = threading.Lock()
_LIMITS: Limits | None = None  # the settings' limits, read once (every job asks for the pool)


@receiver(setting_changed)
def _settings_changed(setting: str, **kwargs) -> None:
    global _LIMITS
    if setting.startswith("PLAYGROUND_EVALUATION_"):
        _LIMITS = None


def pool() -> EvaluationPool:
    """The process's pool, made from the settings (made again when they changed: tests override them)."""
    global _POOL, _LIMITS
    limits = _LIMITS
    if limits is None:
        limits = _LIMITS = Limits.from_settings()
    with _LOCK:
        if _POOL is None or _POOL.limits != limits:
            if _POOL is not None:
                _POOL.shutdown()
            _POOL = EvaluationPool(limits)
        return _POOL


def submit(job, *args, key: str | None = None, abandoned: Callable[[], bool] | None = None) -> Future:
    return metrics.observe_evaluation(job, pool().submit(job, *args, key=key, abandoned=abandoned))


async def run(job, *args, key: str | None = None, abandoned: Callable[[], bool] | None = None):
    """Await a job. Cancelling the awaiting task (a client left) abandons it: not started if queued, stopped if
    it runs on. `abandoned()` (asked from the supervisor thread) does the same while the caller still awaits:
    the job then raises Abandoned. A job for an idle worker is exchanged by the event loop itself (lane.py)."""
    lent = _lend(job, args, key)
    if lent is not None:
        return await _on_loop(*lent, abandoned)
    left = threading.Event()

    def gone() -> bool:
        return left.is_set() or _asks(abandoned)

    future = submit(job, *args, key=key, abandoned=gone)
    try:
        return await asyncio.wrap_future(future)
    except asyncio.CancelledError:
        left.set()
        raise


def _lend(job, args: tuple, key: str | None) -> tuple[_Worker, object, tuple, bytes] | None:
    """(worker, job, args, the job pickled) when the worker this job goes to is idle and lends itself to the
    event loop, and the job fits its pipe; else None (the supervisor thread takes it)."""
    evaluation_pool = pool()
    if evaluation_pool.threads is not None:
        return None
    worker = evaluation_pool.choose(key)
    if not worker.lend():
        return None
    try:
        pickled = bytes(ForkingPickler.dumps((job, args)))
    except BaseException:
        worker.give_back(killed=False)
        raise
    if len(pickled) > lane.MAX_JOB_BYTES:
        worker.give_back(killed=False)
        return None
    return worker, job, args, pickled


async def _on_loop(worker: _Worker, job, args: tuple, pickled: bytes, abandoned: Callable[[], bool] | None):
    """The lent worker's job, run to its end even when the caller leaves (it is then given up after its grace
    second, as the supervisor would)."""
    left = False

    def gone() -> bool:
        return left or _asks(abandoned)

    future: Future = metrics.observe_evaluation(job, Future())
    started: list[bool] = []  # the exchange began: from then on it gives the worker back itself
    exchange = asyncio.ensure_future(_exchange_on_loop(worker, job, args, pickled, gone, future, started))

    def settled(done: asyncio.Future) -> None:
        if not started:  # cancelled before it began (its event loop closed): the worker was never used
            worker.give_back(killed=False)
        if not done.cancelled():
            done.exception()  # retrieved: the caller may have left

    exchange.add_done_callback(settled)
    try:
        return await asyncio.shield(exchange)
    except asyncio.CancelledError:
        left = True
        raise


async def _exchange_on_loop(
    worker: _Worker, job, args: tuple, pickled: bytes, gone, future: Future, started: list[bool]
):
    started.append(True)
    reply = None
    worker.jobs_run += 1
    conn = worker.conn  # the server's shutdown may close it meanwhile: the job then finds it gone (Died)
    try:
        if conn is None:
            raise lane.Died()
        reply = await lane.answer(
            conn, pickled, worker.limits.timeout_seconds, gone, ABANDONED_GRACE_SECONDS, POLL_SECONDS
        )
    except lane.Died:
        pass
    finally:
        stopped = reply is None or reply[0] not in ("ok", "error")  # over a bound, given up, dead: replaced
        if stopped:
            worker._kill()
        worker.give_back(killed=stopped)
    if reply is None:  # died under the job: retried once, by the supervisor (which starts a new process)
        worker.died_under(job, 1)
        if worker.stopping:  # the server is going: no supervisor is left to retry it
            raise _failed()
        worker.submit(_Job(future, job, args, gone, attempts=(2,)))
        return await asyncio.wrap_future(future)
    worker.settle(future, job, reply)
    return future.result()


def call(job, *args, key: str | None = None):
    """Run a job and wait for it (REST views, in their request thread)."""
    return submit(job, *args, key=key).result()


def warm_up() -> None:
    """Start the workers now (each loads the engine once) rather than on the first edit."""
    pool()


def slots() -> int:
    return pool().slots()


def health() -> dict:
    return pool().health() if _POOL is not None else {"status": "ok", "mode": "not started", "workers": []}


def shutdown() -> None:
    global _POOL
    with _LOCK:
        if _POOL is not None:
            _POOL.shutdown()
        _POOL = None


def wait_until_started(timeout: float = START_TIMEOUT_SECONDS) -> bool:
    """Block until every worker runs (tests and benchmarks that must not time the start)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        report = pool().health()
        if report["mode"] == "threads" or all(w["alive"] and w["ready"] for w in report["workers"]):
            return True
        time.sleep(0.05)
    return False
