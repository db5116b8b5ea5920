"""One changed request's full results under both policy sets (traces, AdmissionReview, audit Event): the
compare page's drill-down, recomputed on demand by the engine (evaluator.batch.impact.explain), never stored.
Runs in the supervised evaluation workers (results.py calls it through playground/evaluation/pool.py, bounded
in time and memory), so it imports the engine only, never Django."""

from __future__ import annotations

from typing import Any

from evaluator.batch import impact
from evaluator.json_safe import json_safe


def both(documents: dict[str, Any], request: dict[str, Any], kubernetes_version: str | None) -> dict[str, Any]:
    """{"base": result, "head": result}: `simulate`'s whole answer for the request on each side."""
    return json_safe(
        impact.explain(documents["base"], documents["head"], request, kubernetes_version=kubernetes_version)
    )
