"""Audit-log uploads as replay items, read by the engine's streaming reader (evaluator.batch.impact.AuditLog):
each file's items numbered on after the previous file's, what the reader counted and skipped kept per file
(the job's `sources`), its located problems (a malformed line) and each unknown resource (once) kept as
warnings. A log from which nothing can be replayed is refused, saying why (no request bodies: the audit
policy logs at Metadata level), never run as "0 changes"."""

from __future__ import annotations

import io

from evaluator.batch.impact import AuditLog
from playground.core.errors import ServiceError

WARNINGS_KEPT = 200


def _stream(data: bytes | str) -> io.BytesIO:
    return io.BytesIO(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)


def read(uploads: list[tuple[str, bytes | str]]) -> tuple[list[dict], list[dict], list[dict]]:
    """(items, sources [the reader's stats per file], warnings)."""
    items: list[dict] = []
    sources: list[dict] = []
    warnings: list[dict] = []
    for name, data in uploads:
        log = AuditLog(_stream(data), name, start=len(items))
        try:
            items.extend(log)
        except (ValueError, RecursionError) as exc:  # the reader should locate every line; this keeps a 4xx if not
            raise ServiceError(
                "invalid_audit_log",
                f"{name}: the line after line {log.lines} cannot be read: {exc}",
                document=name,
                line=log.lines + 1,
                path="file",
            ) from None
        stats = log.stats()
        sources.append({"name": name, **stats})
        warnings += log.errors
        warnings += [
            {
                "severity": "warning",
                "source": name,
                "line": unknown.get("line"),
                "message": f"unknown resource {unknown['resource']} ({unknown.get('events', 1):,} events): "
                "replayed with the object's own kind",
            }
            for unknown in stats["unknownResources"]
        ]
    if not items:
        raise ServiceError("no_requests", _nothing_to_replay(sources), path="file")
    return items, sources, warnings[:WARNINGS_KEPT]


def _nothing_to_replay(sources: list[dict]) -> str:
    """Why no request could be replayed, from the readers' counts."""
    reasons = []
    for source in sources:
        skipped = ", ".join(f"{count:,} {reason}" for reason, count in source["skipped"].items() if count)
        malformed = f", {source['malformed']:,} malformed lines" if source["malformed"] else ""
        reasons.append(
            f"{source['name']}: {source['events']:,} events{malformed}" + (f" (skipped: {skipped})" if skipped else "")
        )
    bodies = any(source["noRequestBodies"] for source in sources)
    why = (
        "the log holds no request bodies: replay needs create, update and delete events logged at level Request "
        "or RequestResponse (a Metadata-level event has none)"
        if bodies
        else "replay needs create, update, patch and delete events logged at level Request or RequestResponse"
    )
    return f"no request in the audit log can be replayed — {why}; " + "; ".join(reasons)
