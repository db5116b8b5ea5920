"""Telling a batch job's watchers (consumer.py, ws/batch/<id>/) that its progress changed.

A chunk is stored, a job starts, finishes, fails or is cancelled in sync code: a Celery worker process
(the Redis channel layer carries the news to the web processes) or a thread of the local pool in the web
process (the in-memory layer, which lives on the event loop of this process's sockets and is not safe to
touch from another thread). So `changed()` sends a small event to the group `batch.<job_id>` once the
transaction that made the change commits (services/broadcast.py: no watcher reads a state that could still
be rolled back).
The event says only which job changed: the watcher reads the state itself, at most a few times a second
however many chunks end meanwhile (consumer.py coalesces), because only it sees every worker's events.

A failing channel layer is logged and never fails the chunk or the request that made the change: the
watcher also reads the state every few seconds (its recovery beat), and the page falls back to polling.
"""

from __future__ import annotations

from playground.services import broadcast

EVENT = "batch.progress"  # handled by BatchJobConsumer.batch_progress


def group_name(job_id: str) -> str:
    return f"batch.{job_id}"


def changed(job_id: str) -> None:
    """Tell the job's watchers once the current transaction commits (at once outside one)."""
    broadcast.after_commit(
        group_name(job_id), {"type": EVENT, "job": job_id}, f"tell the watchers of batch job {job_id}"
    )
