"""A finished job's results: the summary, the affected objects (paged, searchable), one object's full result
(recomputed by the engine, never stored), and the exports (PolicyReport YAML, CSV)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import io

from evaluator import batch
from evaluator.batch.engine import documents_key
from playground.batch import engine
from playground.batch import kinds
from playground.batch.jobs import get_job as any_job, job_state
from playground.batch.models import BatchChunk, BatchJob
from playground.evaluation import pool
from playground.core import edge
from playground.core.errors import ServiceError

PAGE_LIMIT = 200
OUTCOMES = ("denied", "warned", "audited", "error", "mutated", "generated")
EXPORTS = {
    "policyreport": ("application/yaml", "policy-reports.yaml"),
    "csv": ("text/csv; charset=utf-8", "batch-results.csv"),
}


def get_job(job_id: Any, token: str | None) -> BatchJob:
    """A batch job (an impact job's results have their own shape and endpoints: playground/impact)."""
    job = any_job(job_id, token)
    if job.kind != kinds.BATCH:
        raise ServiceError("not_found", "batch job not found (this is an impact job: /api/v1/impact/jobs/…)", 404)
    return job


def _finished(job: BatchJob) -> None:
    if job.status != BatchJob.DONE:
        raise ServiceError(
            "not_finished", f"the job is {job.status}; results are ready when it is done", 409, path="status"
        )


def _rows(job: BatchJob) -> Iterator[dict]:
    for rows in BatchChunk.objects.filter(job=job).order_by("index").values_list("rows", flat=True).iterator():
        yield from rows or ()


def summary(job_id: Any, token: str | None) -> dict:
    job = get_job(job_id, token)
    _finished(job)
    return {"job": job_state(job), "summary": job.summary}


def affected(row: dict) -> bool:
    """Denied, warned, or with any policy outcome other than admitted."""
    return not row["allowed"] or bool(row["warnings"]) or any(o["outcome"] != "admitted" for o in row["policies"])


def _matches(row: dict, query: str, policy: str, outcome: str, namespace: str | None, kind: str) -> bool:
    outcomes = row["policies"]
    if policy and not any(batch.policy_key(o) == policy and o["outcome"] != "admitted" for o in outcomes):
        return False
    if outcome and not (any(o["outcome"] == outcome for o in outcomes) or (outcome == "denied" and not row["allowed"])):
        return False
    if namespace is not None and row["namespace"] != namespace:
        return False
    if kind and row["kind"] != kind:
        return False
    if query:
        words = [row["kind"], row["namespace"], row["name"], row["message"] or "", *row["warnings"]]
        words += [f"{batch.policy_key(o)} {o['message'] or ''}" for o in outcomes]
        return query in " ".join(words).casefold()
    return True


def text_param(params: Any, name: str, default: str = "") -> str:
    """A query parameter as checked text (at most 500 characters)."""
    value = params.get(name, default)
    edge.check_text(value, name)
    return value[:500]


def int_param(params: Any, name: str, default: int, maximum: int) -> int:
    """A query parameter as a whole number from 0 to `maximum`, or a 400 naming it."""
    value = params.get(name)
    if value in (None, ""):
        return default
    if not (value.isascii() and value.isdigit()) or int(value) > maximum:
        raise edge.invalid(f"must be a whole number from 0 to {maximum}", name)
    return int(value)


def affected_objects(job_id: Any, token: str | None, params: Any) -> dict:
    """The affected objects matching the filters (`q` text, `policy`, `outcome`, `namespace`, `kind`), in
    object order, `limit` from `offset`, with the count of all matches."""
    job = get_job(job_id, token)
    _finished(job)
    query = text_param(params, "q").strip().casefold()
    policy, outcome, kind = text_param(params, "policy"), text_param(params, "outcome"), text_param(params, "kind")
    namespace = text_param(params, "namespace") if "namespace" in params else None
    if outcome and outcome not in OUTCOMES:
        raise edge.invalid(f"must be one of {', '.join(OUTCOMES)}", "outcome")
    offset = int_param(params, "offset", 0, 10**9)
    limit = int_param(params, "limit", 50, PAGE_LIMIT)
    items, count = [], 0
    for row in _rows(job):
        if affected(row) and _matches(row, query, policy, outcome, namespace, kind):
            if offset <= count < offset + limit:
                items.append(row)
            count += 1
    return {"count": count, "offset": offset, "limit": limit, "items": items}


def detail(job_id: Any, token: str | None, index: int) -> dict:
    """One object's stored row, the object, and its full result recomputed now (traces included)."""
    job = get_job(job_id, token)
    chunk = None
    if 0 <= index < job.total:
        chunk = BatchChunk.objects.filter(job=job, start__lte=index).order_by("-start").first()
    if chunk is None or index >= chunk.start + chunk.size:
        raise ServiceError("not_found", f"object {index} not found (the job has {job.total})", 404)
    obj = chunk.inputs[index - chunk.start]
    row = chunk.rows[index - chunk.start] if chunk.rows else None
    version = job.kubernetes_version or None
    result = pool.call(engine.explain, job.documents, obj, index, version, key=documents_key(job.documents, version))
    return {"index": index, "row": row, "object": obj, "result": result}


def export(job_id: Any, token: str | None, fmt: str) -> tuple[str, str, str]:
    """(text, content type, file name) of the results as Kyverno PolicyReports (YAML) or CSV."""
    if fmt not in EXPORTS:
        raise ServiceError("unknown_format", f"cannot export {fmt!r}; formats: {', '.join(EXPORTS)}", 404)
    job = get_job(job_id, token)
    _finished(job)
    content_type, filename = EXPORTS[fmt]
    if fmt == "csv":
        return batch.csv_text(_rows(job)), content_type, filename
    out = io.StringIO()
    batch.write_policy_reports(_rows(job), job.documents, out)
    return out.getvalue(), content_type, filename
