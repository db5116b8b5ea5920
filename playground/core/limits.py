"""Size limits on what a project may hold (1 MiB a document, 5 MiB a project, 200 documents and 200
requests by default): 413 beyond."""

from __future__ import annotations

from django.conf import settings

from playground.core.errors import ServiceError


def document_limit() -> int:
    return settings.PLAYGROUND_MAX_DOCUMENT_BYTES


def project_limit() -> int:
    return settings.PLAYGROUND_MAX_PROJECT_BYTES


def text_size(text: str) -> int:
    return len(text.encode("utf-8"))


def check_text(text: str, name: str | None = None) -> None:
    size = text_size(text)
    if size > document_limit():
        raise ServiceError(
            "too_large",
            f"document is {size} bytes; the limit is {document_limit()} bytes a document",
            413,
            document=name,
        )


def check_total(sizes) -> None:
    total = sum(sizes)
    if total > project_limit():
        raise ServiceError(
            "too_large", f"project is {total} bytes; the limit is {project_limit()} bytes a project", 413
        )


def check_count(count: int, kind: str) -> None:
    """At most PLAYGROUND_MAX_ITEMS documents (and as many sample requests) in a project or an evaluation."""
    if count > settings.PLAYGROUND_MAX_ITEMS:
        raise ServiceError(
            "too_large", f"{kind}: {count} items; the limit is {settings.PLAYGROUND_MAX_ITEMS}", 413, path=kind
        )
