"""The one place the web app calls the batch engine (evaluator.batch), in whatever process runs a chunk.

The engine compiles a job's policy set once per process and keeps it by content hash
(evaluator.batch.engine.compiled), so a Celery worker or pool process that takes many chunks of a job
compiles once.
"""

from __future__ import annotations

from typing import Any

from evaluator import batch
from evaluator.batch.impact import compare_chunk


def compute(documents: Any, objects: list[dict], start: int, kubernetes_version: str | None) -> list[dict] | dict:
    """The rows of one chunk (objects numbered from `start`); for an impact job (documents {"base", "head"}),
    the chunk's impact summary and changed requests: {"summary", "changes"} (playground/impact: its replay items
    through both policy sets)."""
    if isinstance(documents, dict):
        return compare_chunk(documents["base"], documents["head"], objects, kubernetes_version=kubernetes_version)
    rows = batch.run_chunk(documents, objects, start=start, kubernetes_version=kubernetes_version)
    return [dict(row) for row in rows]


def explain(documents: list[dict], obj: dict, index: int, kubernetes_version: str | None) -> dict:
    """One object's full result (traces, AdmissionReview, audit Event): a drill-down, run like any interactive
    evaluation in the supervised evaluation workers (playground/evaluation/pool.py), bounded in time and memory."""
    return batch.explain(documents, obj, index=index, kubernetes_version=kubernetes_version)
