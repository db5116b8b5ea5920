"""Audit-log uploads as replay items, read by the engine's streaming reader (evaluator.batch.impact.AuditLog):
each file's items numbered on after the previous file's, what the reader counted and skipped kept per file
(the job's `sources`), its located problems (a malformed line, an unknown resource) kept as warnings. A log
from which nothing can be replayed is refused, saying why (no request bodies: the policy logs at Metadata
level), never run as "0 changes"."""

from __future__ import annotations

import io
from typing import Any

from evaluator.batch.impact import AuditLog
from playground.core.errors import ServiceError

WARNINGS_KEPT = 200


def _stream(data: bytes | str) -> io.BytesIO:
    return io.BytesIO(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)


def read(uploads: list[tuple[str, bytes | str]]) -> tuple[list[dict], list[dict], list[dict]]:
    """(items, sources [{name, requests, ...reader stats}], warnings)."""
    items: list[dict] = []
    sources: list[dict] = []
    warnings: list[dict] = []
    for name, data in uploads:
        log = AuditLog(_stream(data), name)
        first = len(items)
        for item in log:
            items.append({**item, "index": len(items)})
        stats = log.stats()
        sources.append({"name": name, "requests": len(items) - first, "stats": _plain(stats)})
        for problem in _problems(stats):
            if len(warnings) < WARNINGS_KEPT:
                warnings.append({"severity": "warning", "source": name, **problem})
    if not items:
        raise ServiceError("no_requests", _nothing_to_replay(sources), path="file")
    return items, sources, warnings


def _plain(stats: Any) -> dict:
    return dict(stats) if isinstance(stats, dict) else {}


def _problems(stats: Any) -> list[dict]:
    problems = stats.get("errors") if isinstance(stats, dict) else None
    return [p for p in problems or () if isinstance(p, dict)]


def _nothing_to_replay(sources: list[dict]) -> str:
    """Why no request could be replayed, from the readers' counts."""
    reasons = []
    for source in sources:
        stats = source["stats"]
        skipped = stats.get("skipped") if isinstance(stats.get("skipped"), dict) else {}
        said = ", ".join(f"{count:,} {reason}" for reason, count in skipped.items() if count)
        reasons.append(f"{source['name']}: {stats.get('events', 0):,} events" + (f" ({said})" if said else ""))
    return (
        "no request in the audit log can be replayed: "
        + "; ".join(reasons)
        + ". Replay needs create, update and delete events logged at level Request or RequestResponse "
        "(a Metadata-level event holds no request body)"
    )
