"""The one place the web app calls the batch engine (evaluator.batch), in whatever process runs a chunk.

The engine compiles a job's policy set once per process and keeps it by content hash
(evaluator.batch.engine.compiled), so a Celery worker or pool process that takes many chunks of a job
compiles once.
"""

from __future__ import annotations

from evaluator import batch


def compute(documents: list[dict], objects: list[dict], start: int, kubernetes_version: str | None) -> list[dict]:
    """The rows of one chunk (objects numbered from `start`)."""
    rows = batch.run_chunk(documents, objects, start=start, kubernetes_version=kubernetes_version)
    return [dict(row) for row in rows]
