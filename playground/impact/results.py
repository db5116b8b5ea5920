"""A finished impact job's results: the report (summary, what each side was, what the reader skipped), the
changed requests (paged, filtered), one changed request with its request, and every output of the engine
(text, JSON, Markdown, JUnit, CSV) as a download."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from evaluator.batch import impact
from evaluator.batch.engine import documents_key
from playground.batch.models import BatchChunk, BatchJob
from playground.batch.results import int_param, text_param
from playground.core import edge
from playground.core.errors import ServiceError
from playground.evaluation import pool
from playground.impact import explain
from playground.impact.jobs import impact_job, state

PAGE_LIMIT = 200
EXPORTS = {
    "text": ("text/plain; charset=utf-8", "impact.txt"),
    "json": ("application/json", "impact.json"),
    "markdown": ("text/markdown; charset=utf-8", "impact.md"),
    "junit": ("application/xml", "impact-junit.xml"),
    "csv": ("text/csv; charset=utf-8", "impact.csv"),
}


def _finished(job: BatchJob) -> None:
    if job.status != BatchJob.DONE:
        raise ServiceError(
            "not_finished", f"the job is {job.status}; results are ready when it is done", 409, path="status"
        )


def _changes(job: BatchJob) -> Iterator[dict]:
    for rows in BatchChunk.objects.filter(job=job).order_by("index").values_list("rows", flat=True).iterator():
        yield from rows or ()


def _source(job: BatchJob) -> dict:
    """What the corpus's reader said (the report's `source`, evaluator/batch/impact/SCHEMA.md): a dump's object
    count, or the audit reader's counts, summed over the files."""
    names = ", ".join(source.get("name", "") for source in job.sources)
    if (job.documents or {}).get("corpus") != "auditLog":
        return {"format": "objects", "source": names, "objects": job.total}
    merged: dict[str, Any] = {"source": names, "skipped": {}, "levels": {}, "unknownResources": []}
    for source in job.sources:
        for key, value in source.items():
            if key in ("skipped", "levels"):
                for reason, count in value.items():
                    merged[key][reason] = merged[key].get(reason, 0) + count
            elif key == "unknownResources":
                merged[key] += value
            elif isinstance(value, int) and not isinstance(value, bool):
                merged[key] = merged.get(key, 0) + value
            elif key not in merged:
                merged[key] = value
    merged["noRequestBodies"] = all(source.get("noRequestBodies") for source in job.sources)
    return merged


def report(job_id: Any, token: str | None) -> dict:
    """{job, summary, source, inputErrors}: the counts of the whole run."""
    job = impact_job(job_id, token)
    _finished(job)
    return {
        "job": state(job),
        "summary": job.summary,
        "source": _source(job),
        "files": job.sources,
        "inputErrors": job.warnings,
    }


def _matches(change: dict, query: str, category: str, policy: str, namespace: str | None, user: str) -> bool:
    if category and category not in change["categories"]:
        return False
    if policy and policy not in change["changedPolicies"]:
        return False
    if namespace is not None and change["namespace"] != namespace:
        return False
    if user and change["user"] != user:
        return False
    if query:
        words = [change["operation"], change["kind"], change["namespace"], change["name"], change["user"]]
        words += change["changedPolicies"]
        for side in (change["base"], change["head"]):
            words += [side["message"] or "", *side["warnings"], *(o.get("message") or "" for o in side["policies"])]
        return query in " ".join(words).casefold()
    return True


def changes(job_id: Any, token: str | None, params: Any) -> dict:
    """The changed requests matching the filters (`q`, `category`, `policy`, `namespace`, `user`), in request
    order, `limit` from `offset`, with the count of all matches."""
    job = impact_job(job_id, token)
    _finished(job)
    query = text_param(params, "q").strip().casefold()
    category, policy, user = text_param(params, "category"), text_param(params, "policy"), text_param(params, "user")
    namespace = text_param(params, "namespace") if "namespace" in params else None
    if category and category not in impact.CATEGORIES:
        raise edge.invalid(f"must be one of {', '.join(impact.CATEGORIES)}", "category")
    offset = int_param(params, "offset", 0, 10**9)
    limit = int_param(params, "limit", 50, PAGE_LIMIT)
    if not (query or category or policy or user or namespace is not None):
        return _page(job, offset, limit)
    items, count = [], 0
    for change in _changes(job):
        if _matches(change, query, category, policy, namespace, user):
            if offset <= count < offset + limit:
                items.append(change)
            count += 1
    return {"count": count, "offset": offset, "limit": limit, "items": items}


def _page(job: BatchJob, offset: int, limit: int) -> dict:
    """An unfiltered page: each chunk keeps exactly its changed requests, as many as its summary's `changed`, so
    only the chunks the page falls in are read."""
    chunks = BatchChunk.objects.filter(job=job).order_by("index")
    count = sum(part["changed"] for part in chunks.values_list("summary", flat=True) if part)
    items: list[dict] = []
    seen = 0
    for chunk_id, part in chunks.values_list("id", "summary"):
        size = part["changed"] if part else 0
        if seen + size > offset and len(items) < limit:
            rows = BatchChunk.objects.filter(id=chunk_id).values_list("rows", flat=True).first() or []
            items += rows[max(0, offset - seen) : max(0, offset - seen) + limit - len(items)]
        seen += size
    return {"count": count, "offset": offset, "limit": limit, "items": items}


def change(job_id: Any, token: str | None, index: int) -> dict:
    """One request of the corpus: its change (None when both sides answered alike) and the request replayed."""
    job = impact_job(job_id, token)
    _finished(job)
    chunk = None
    if 0 <= index < job.total:
        chunk = BatchChunk.objects.filter(job=job, start__lte=index).order_by("-start").first()
    if chunk is None or index >= chunk.start + chunk.size:
        raise ServiceError("not_found", f"request {index} not found (the job has {job.total})", 404)
    item = chunk.inputs[index - chunk.start]
    found = next((c for c in chunk.rows or () if c["index"] == index), None)
    return {"index": index, "change": found, "request": item["request"], "line": item.get("line")}


def full_results(job_id: Any, token: str | None, index: int) -> dict:
    """One request's full results on both sides, recomputed now in the evaluation workers (traces included)."""
    job = impact_job(job_id, token)
    _finished(job)
    found = change(job_id, token, index)
    version = job.kubernetes_version or None
    key = documents_key(job.documents["head"], version)
    results = pool.call(explain.both, job.documents, found["request"], version, key=key)
    return {"index": index, **results}


def export(job_id: Any, token: str | None, fmt: str) -> tuple[str, str, str]:
    """(text, content type, file name) of the report in one of the engine's formats."""
    if fmt not in EXPORTS:
        raise ServiceError("unknown_format", f"cannot export {fmt!r}; formats: {', '.join(EXPORTS)}", 404)
    job = impact_job(job_id, token)
    _finished(job)
    result = impact.ImpactReport(impact.ImpactSummary.from_dict(job.summary or {}))
    for rows in BatchChunk.objects.filter(job=job).order_by("index").values_list("rows", flat=True).iterator():
        result.add_chunk({"summary": impact.ImpactSummary().as_dict(), "changes": rows or []})
    result.source = _source(job)
    result.input_errors = list(job.warnings)
    content_type, filename = EXPORTS[fmt]
    return impact.render(result, fmt), content_type, filename
