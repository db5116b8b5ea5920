"""The one place the web app calls the impact engine (evaluator.batch.impact). Imports no Django: it runs in
the batch workers' processes (the local pool's spawned processes, Celery workers) through
playground/batch/engine.compute."""

from __future__ import annotations

from typing import Any

from evaluator.batch.impact import compare_chunk


def compute(documents: dict[str, Any], items: list[dict], kubernetes_version: str | None) -> dict:
    """One chunk of replay items through both policy sets: {"summary", "changes"} (plain JSON)."""
    return compare_chunk(documents["base"], documents["head"], items, kubernetes_version=kubernetes_version)
