"""What differs between the two kinds of job the runner runs, and nothing else.

A batch job's chunk computes a list of rows (evaluator.batch), summed by `Summary`; an impact job's chunk
(playground/impact) computes `{"summary": ImpactSummary dict, "changes": [changed requests]}`, its summary
counted by the engine over every request of the chunk (only the changed requests are kept). The runner
stores the rows (changes) and the chunk's summary the same way for both, and merges the summaries with the
job kind's own merge.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from evaluator.batch import Summary

BATCH, IMPACT = "batch", "impact"


def rows_and_summary(computed: list | dict) -> tuple[list[dict], dict]:
    """(rows to store, the chunk's summary) of what a chunk's compute returned."""
    if isinstance(computed, dict):
        return list(computed["changes"]), dict(computed["summary"])
    return computed, Summary.from_rows(computed).as_dict()


def denied(summary: dict) -> int:
    """What the progress line counts as the job runs: denials (batch), newly denied requests (impact)."""
    return int(summary.get("denied", summary.get("newlyDenied", 0)))


def merged(kind: str, parts: Iterable[Any]) -> dict:
    """The job's summary from its chunks' summaries."""
    if kind == IMPACT:
        from evaluator.batch.impact import ImpactSummary

        impact = ImpactSummary()
        for part in parts:
            impact.merge(ImpactSummary.from_dict(part))
        return impact.as_dict()
    summary = Summary()
    for part in parts:
        summary.merge(Summary.from_dict(part))
    return summary.as_dict()
