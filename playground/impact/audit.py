"""Audit-log uploads as replay items, read by the engine's streaming reader (evaluator.batch.impact.AuditLog):
each file's items numbered on after the previous file's, what the reader counted and skipped kept per file
(the job's `sources`), its located problems (a malformed line) and each unknown resource (once) kept as
warnings. A log from which nothing can be replayed is refused, saying why (no request bodies: the audit
policy logs at Metadata level), never run as "0 changes"."""

from __future__ import annotations

import io
import zlib

from django.conf import settings

from evaluator.batch.impact import AuditLog
from playground.core.errors import ServiceError

WARNINGS_KEPT = 200
GZIP_MAGIC = b"\x1f\x8b"


def inflated(data: bytes | str, name: str) -> bytes:
    """The log's bytes, a gzip upload inflated here under the upload limit (PLAYGROUND_BATCH_MAX_BYTES), so a
    small archive cannot unfold into gigabytes in the web process."""
    if isinstance(data, str):
        return data.encode("utf-8", "surrogatepass")
    if data[:2] != GZIP_MAGIC:
        return data
    limit = settings.PLAYGROUND_BATCH_MAX_BYTES
    out, rest = bytearray(), data
    try:
        while rest[:2] == GZIP_MAGIC:  # one member after another, as gzip writes appended logs
            member = zlib.decompressobj(16 + zlib.MAX_WBITS)
            out += member.decompress(rest, limit + 1 - len(out))
            if len(out) > limit or member.unconsumed_tail:
                raise ServiceError(
                    "too_large", f"{name}: the log inflates past {limit:,} bytes; the limit is {limit:,} bytes", 413
                )
            if not member.eof:
                raise ServiceError("invalid_audit_log", f"{name}: the gzip data ends before its end", path="file")
            rest = member.unused_data
    except zlib.error as exc:
        raise ServiceError("invalid_audit_log", f"{name}: not readable gzip data: {exc}", path="file") from None
    return bytes(out)


def read(uploads: list[tuple[str, bytes | str]]) -> tuple[list[dict], list[dict], list[dict]]:
    """(items, sources [the reader's stats per file], warnings)."""
    items: list[dict] = []
    sources: list[dict] = []
    warnings: list[dict] = []
    for name, data in uploads:
        log = AuditLog(
            io.BytesIO(inflated(data, name)), name, start=len(items), max_bytes=settings.PLAYGROUND_BATCH_MAX_BYTES
        )
        try:
            for item in log:
                items.append(item)
                if len(items) > settings.PLAYGROUND_BATCH_MAX_OBJECTS:
                    raise ServiceError(
                        "too_large",
                        f"more than {settings.PLAYGROUND_BATCH_MAX_OBJECTS:,} requests; replay the log in parts",
                        413,
                    )
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
