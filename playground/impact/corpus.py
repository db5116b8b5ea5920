"""An impact job's corpus: the uploads (or pasted text) as replay items (evaluator.batch.impact items), read
with the batch upload's limits. A dump's objects are each a CREATE (as a batch job admits them); an audit
log's create/update/delete requests are replayed as the API server received them, its skipped events counted
with their reason. A dump unreadable anywhere refuses the job with the first problem located; a malformed
audit line is counted and located, and the rest still replays, as the CLI does."""

from __future__ import annotations

import zlib
from typing import Any

from django.conf import settings

from evaluator.batch.impact import object_items
from playground.batch import inputs
from playground.core import edge
from playground.core.errors import ServiceError

OBJECTS, AUDIT = "objects", "auditLog"
KINDS = (OBJECTS, AUDIT)


def clean_kind(kind: Any) -> str | None:
    """The corpus kind asked for, or None to tell from the content."""
    if kind in (None, ""):
        return None
    if kind not in KINDS:
        raise edge.invalid(f"must be one of {', '.join(KINDS)} (left out: told from the content)", "corpus")
    return kind


def _looks_like_audit(data: bytes | str) -> bool:
    """An audit log's first record is an audit.k8s.io Event (JSON lines) or EventList (gzip or not)."""
    head = data[:4096]
    if isinstance(head, bytes):
        if head[:2] == b"\x1f\x8b":
            try:
                head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data[:65536], 4096)
            except zlib.error:
                return False
        head = head.decode("utf-8", "replace")
    return head.lstrip().startswith("{") and "audit.k8s.io/" in head


def read(uploads: list[tuple[str, bytes | str]], kind: str | None) -> tuple[str, list[dict], list[dict], list[dict]]:
    """(corpus kind, items, sources [{name, objects|requests, ...}], warnings) of the uploads."""
    if not uploads:
        raise edge.invalid("give the corpus: upload a dump or an audit log (field `file`) or paste it (`text`)", "file")
    limit = settings.PLAYGROUND_BATCH_MAX_BYTES
    size = sum(len(data) for _, data in uploads)
    if size > limit:
        raise ServiceError("too_large", f"the corpus is {size:,} bytes; the limit is {limit:,} bytes", 413)
    for _, data in uploads:
        if isinstance(data, str) and edge.text_problem(data):
            raise edge.invalid(edge.text_problem(data) or "", "text")
    if kind is None:
        audit = [name for name, data in uploads if _looks_like_audit(data)]
        if audit and len(audit) < len(uploads):
            raise edge.invalid(
                f"{audit[0]} is an audit log and the rest are not: compare over dumps or over audit logs, not both",
                "file",
            )
        kind = AUDIT if audit else OBJECTS
    if kind == OBJECTS:
        objects, sources = inputs.read_inputs(uploads)
        return kind, list(object_items(objects)), sources, []
    from playground.impact import audit

    items, sources, warnings = audit.read(uploads)
    return kind, items, sources, warnings
