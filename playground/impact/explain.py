"""One changed request's full results under both policy sets (traces, AdmissionReview, audit Event): the
compare page's drill-down, recomputed on demand, never stored. Runs in the supervised evaluation workers
(results.py calls it through playground/evaluation/pool.py, bounded in time and memory), so it imports the
engine only, never Django."""

from __future__ import annotations

from typing import Any

from evaluator.batch import compiled
from evaluator.json_safe import json_safe


def both(documents: dict[str, Any], request: dict[str, Any], kubernetes_version: str | None) -> dict[str, Any]:
    """{"base": result, "head": result}: `simulate`'s whole answer for the request on each side."""
    return {side: json_safe(compiled(documents[side], kubernetes_version).run(request)) for side in ("base", "head")}
