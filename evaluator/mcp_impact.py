"""The MCP `impact` tool's work (evaluator/mcp_server.py): base and head documents over a dump or an audit
log, by the impact engine (evaluator/batch/impact) in this process, as `admission-playground impact` runs it
with `--jobs 1`. Bad input never raises: the located problems come back in `errors`, and a corpus nothing
could be replayed from says so."""

from __future__ import annotations

import io
from typing import Any

from evaluator.batch import compiled, read_objects, with_namespaces
from evaluator.batch.impact import AuditLog, ImpactReport, ImpactSummary, object_items, render, run_impact

MAX_CHANGES = 500  # changed requests an answer lists at most (the summary counts every one)


def _is_error(problem: dict) -> bool:
    return problem.get("severity", "error") == "error"


def _objects_corpus(text: str) -> tuple[list, list[dict], dict, list[dict]]:
    objects, errors = read_objects(text, "objects")
    return (
        list(object_items(objects)),
        objects,
        {"format": "objects", "source": "objects", "objects": len(objects)},
        errors,
    )


def _audit_corpus(text: str) -> tuple[list, list[dict], dict, list[dict]]:
    log = AuditLog(io.BytesIO(text.encode("utf-8", "surrogatepass")), "audit_log")
    items = list(log)
    stats = log.stats()
    errors = list(log.errors)
    if not items:
        why = (
            "it holds no request bodies (level Metadata)" if stats["noRequestBodies"] else "no create, update or delete"
        )
        errors.append({"severity": "error", "source": "audit_log", "message": f"nothing to replay: {why}"})
    return items, [], stats, errors


def impact_of(
    base: list[str], head: list[str], objects: str | None, audit_log: str | None, version: str, max_changes: int
) -> dict[str, Any]:
    """{summary, changes (the first `max_changes`), changesOmitted, source, markdown, errors, kubernetesVersion}."""
    if (objects is None) == (audit_log is None):
        problem = "give the corpus: either objects (a dump) or audit_log (an audit log), not both"
        return {"summary": None, "errors": [{"severity": "error", "source": "corpus", "message": problem}]}
    if objects is not None:
        items, found, source, problems = _objects_corpus(objects)
    else:
        items, found, source, problems = _audit_corpus(audit_log or "")
    base = [*base, *with_namespaces([], found)]
    head = [*head, *with_namespaces([], found)]
    for name, documents in (("base_documents", base), ("head_documents", head)):
        problems += [
            {**p, "source": f"{name}: {p.get('source') or 'document'}"} for p in compiled(documents, version).errors
        ]
    errors = [p for p in problems if _is_error(p)]
    report = ImpactReport(ImpactSummary())
    if not errors:
        keep = max(0, min(int(max_changes), MAX_CHANGES))
        report = run_impact(base, head, items, jobs=1, kubernetes_version=version, max_changes=keep)
    report.source, report.input_errors = source, problems
    data = report.as_dict()
    return {
        "summary": data["summary"] if not errors else None,
        "changes": data["changes"],
        "changesOmitted": data["changesOmitted"],
        "source": source,
        "markdown": render(report, "markdown") if not errors else None,
        "errors": problems,
        "kubernetesVersion": version,
    }
