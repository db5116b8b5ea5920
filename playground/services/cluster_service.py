"""Load from a connected cluster into a project (issue 37): counts first, then policies, bindings, CRDs,
namespaces, params and chosen objects as ordinary documents marked with their `origin`; refresh them; turn one
into a CREATE or UPDATE sample request.

The cluster is read before any database write and outside any transaction (a slow cluster holds no lock);
what was read is then saved in one transaction. A kind that failed (forbidden, too large, timed out) is
reported and saves nothing; the kinds that were read whole are saved. Reading is evaluator/cluster's: GET only,
allow-listed kinds, never Secrets, bounded in time and size."""

from __future__ import annotations

import datetime as dt
from typing import Any

import yaml
from django.conf import settings
from django.db import transaction

from evaluator.cluster.client import cluster_label
from evaluator.cluster import (
    DEFAULT_ALLOWED,
    ClusterError,
    ClusterReader,
    Connection,
    ObjectQuery,
    ReadOnlyClient,
    Selection,
    allowed_set,
    count,
    load,
    origin_of,
    sample_request,
)
from playground.collab import authority
from playground.core import limits
from playground.core.access import authorize
from playground.core.database import release_connection
from playground.core.errors import ServiceError, not_found
from playground.models import Document
from playground.services import document_service
from playground.services.project_service import bump_version, get_project

__all__ = ["enabled", "status", "preview", "load_into", "refresh", "sample_request_from", "selection_of"]


def connection() -> Connection:
    mode = settings.PLAYGROUND_CLUSTER
    if mode not in ("in-cluster", "kubeconfig"):
        raise ServiceError("cluster_not_configured", "no cluster is connected (set PLAYGROUND_CLUSTER)", 404)
    return Connection(
        kubeconfig=settings.PLAYGROUND_CLUSTER_KUBECONFIG,
        context=settings.PLAYGROUND_CLUSTER_CONTEXT or None,
        in_cluster=mode == "in-cluster",
        timeout=settings.PLAYGROUND_CLUSTER_TIMEOUT_SECONDS,
        deadline=settings.PLAYGROUND_CLUSTER_DEADLINE_SECONDS,
    )


def allowed() -> frozenset[str]:
    return allowed_set(settings.PLAYGROUND_CLUSTER_KINDS or DEFAULT_ALLOWED)


def enabled() -> bool:
    return settings.PLAYGROUND_CLUSTER in ("in-cluster", "kubeconfig")


def status() -> dict:
    """Whether a cluster is connected, and what may be read from it (no call to the cluster)."""
    if not enabled():
        return {"enabled": False}
    current = connection()
    return {
        "enabled": True,
        "cluster": cluster_label(current),
        "kinds": sorted(allowed()),
        "maxObjects": settings.PLAYGROUND_CLUSTER_MAX_OBJECTS,
    }


def _unavailable(exc: ClusterError) -> ServiceError:
    """The whole read failed (no connection, discovery refused): 502 naming what and why."""
    return ServiceError(f"cluster_{exc.reason}", exc.message, 502, path=exc.what)


def _read(work):
    """Run `work(reader)` with a fresh read-only client; a connection-wide failure is a 502. The pooled
    database connection goes back meanwhile: a slow cluster holds no database slot."""
    release_connection()
    client = ReadOnlyClient(connection())
    try:
        with client:
            return work(ClusterReader(client, allowed()))
    except ClusterError as exc:
        raise _unavailable(exc) from None


def selection_of(body: dict) -> Selection:
    """A validated request body (api/serializers.py ClusterSelectionSerializer) as a Selection."""
    objects = [
        ObjectQuery(o["kind"], o.get("namespace") or None, o.get("labelSelector") or None)
        for o in body.get("objects") or ()
    ]
    selection = Selection(
        policies=bool(body.get("policies")),
        crds=bool(body.get("crds")),
        namespaces=bool(body.get("namespaces")),
        params=bool(body.get("params")),
        objects=objects,
    )
    if selection.empty():
        raise ServiceError("invalid_request", "choose something to load: policies, crds, namespaces, params or objects")
    return selection


def preview(selection: Selection) -> dict:
    """How many objects each kind of the selection holds, before loading any."""
    cap = settings.PLAYGROUND_CLUSTER_MAX_OBJECTS
    counted, errors = _read(lambda reader: count(reader, selection, cap))
    total = sum(c["count"] for c in counted)
    return {"kinds": counted, "total": total, "maxObjects": cap, "errors": [e.to_dict() for e in errors]}


def _text(obj: dict) -> str:
    return yaml.safe_dump(obj, sort_keys=False, allow_unicode=True)


def _name(origin: dict) -> str:
    where = f"{origin['namespace']}/" if origin.get("namespace") else ""
    return f"{origin['kind']}/{where}{origin['name']}"[:200]


def _key(origin: dict | None) -> tuple | None:
    if not origin:
        return None
    return (origin.get("cluster"), origin.get("resource"), origin.get("namespace"), origin.get("name"))


def load_into(*, project_id: str, token: str | None, selection: Selection) -> dict:
    """Read the selection, then save it: a document per object, one already loaded (same cluster, kind,
    namespace, name) is replaced in place. Returns {added, updated, errors, version}."""
    authorize(get_project(project_id), token)
    cap = settings.PLAYGROUND_CLUSTER_MAX_OBJECTS
    loaded, errors = _read(lambda reader: load(reader, selection, cap))
    texts = [(obj, origin, _text(obj)) for obj, origin in loaded]
    for obj, origin, text in texts:
        limits.check_text(text, _name(origin))
    added = updated = 0
    with transaction.atomic():
        project = bump_version(project_id, token)
        existing = {_key(d.origin): d for d in Document.objects.select_for_update().filter(project_id=project_id)}
        new = [(origin, text) for _, origin, text in texts if _key(origin) not in existing]
        limits.check_count(len(existing) + len(new), "documents")
        position = max((d.position for d in existing.values()), default=-1) + 1
        for _, origin, text in texts:
            document = existing.get(_key(origin))
            if document is None:
                Document.objects.create(
                    project=project,
                    name=_name(origin),
                    text=text,
                    origin=origin,
                    position=position,
                    version=project.version,
                )
                position += 1
                added += 1
            else:
                _replace(project, document, text, origin)
                updated += 1
        document_service.check_project_total(project_id)  # over the limit: the whole load is undone
    return {
        "added": added,
        "updated": updated,
        "errors": [e.to_dict() for e in errors],
        "version": project.version,
    }


def _replace(project, document: Document, text: str, origin: dict) -> None:
    if text != document.text:
        old, document.text = document.text, text
        authority.record_replacement(project, "document", document, old)
    document.origin = origin
    document.version = project.version
    document.save(update_fields=["text", "origin", "version", "collab_version", "updated"])


def refresh(*, project_id: str, token: str | None, document_ids: list[int] | None = None) -> dict:
    """Read every loaded document's object again (or those of `document_ids`) and save the new texts together.
    An object gone from the cluster, or loaded from another cluster, is reported and its document kept; any
    other failure saves nothing."""
    authorize(get_project(project_id), token)
    documents = [d for d in Document.objects.filter(project_id=project_id) if d.origin]
    if document_ids is not None:
        documents = [d for d in documents if d.pk in set(document_ids)]
    when = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")

    def read(reader: ClusterReader) -> tuple[list, list[dict]]:
        fresh, gone = [], []
        for document in documents:
            origin = document.origin
            if origin.get("cluster") != reader.client.label:  # never silently replaced by another cluster's object
                gone.append(
                    {
                        "document": document.pk,
                        "kind": origin.get("resource"),
                        "reason": "other_cluster",
                        "message": f"{document.name} was loaded from cluster {origin.get('cluster')}, not "
                        f"{reader.client.label}: load it again to replace it",
                    }
                )
                continue
            try:
                resource = reader.resolve(f"{origin['apiVersion']}/{origin['kind']}")
                obj = reader.get(resource, origin.get("namespace"), origin["name"])
            except ClusterError as exc:
                if exc.reason != "not_found":
                    raise
                gone.append({"document": document.pk, **exc.to_dict()})
                continue
            fresh.append((document.pk, obj, origin_of(obj, resource, reader.client.label or origin["cluster"], when)))
        return fresh, gone

    fresh, gone = _read(read)
    with transaction.atomic():
        project = bump_version(project_id, token)
        rows = {d.pk: d for d in Document.objects.select_for_update().filter(pk__in=[pk for pk, _, _ in fresh])}
        changed = 0
        for pk, obj, origin in fresh:
            document = rows.get(pk)
            if document is None:  # deleted meanwhile
                continue
            text = _text(obj)
            limits.check_text(text, document.name)
            changed += text != document.text
            _replace(project, document, text, origin)
        document_service.check_project_total(project_id)  # over the limit: the whole refresh is undone
    return {"refreshed": len(fresh), "changed": changed, "errors": gone, "version": project.version}


def sample_request_from(
    *, project_id: str, token: str | None, operation: str, document_id: int | None = None, ref: dict | None = None
) -> dict:
    """A CREATE or UPDATE sample request of a loaded document's object (`document_id`) or of an object read
    from the cluster now (`ref`: kind, namespace, name). Returns {"item", "version"}."""
    authorize(get_project(project_id), token)
    if (document_id is None) == (ref is None):
        raise ServiceError("invalid_request", "give documentId or object (kind, namespace, name), not both")
    if document_id is not None:
        obj = _document_object(project_id, document_id)
    else:
        assert ref is not None

        def read(reader: ClusterReader) -> dict:
            try:
                return reader.get(reader.resolve(ref["kind"]), ref.get("namespace") or None, ref["name"])
            except ClusterError as exc:
                code = {"not_found": 404, "not_allowed": 400, "invalid": 400}.get(exc.reason, 502)
                raise ServiceError(f"cluster_{exc.reason}", exc.message, code, path=exc.what) from None

        obj = _read(read)
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = f"{operation} {obj.get('kind')}/{meta.get('name')}"
    return document_service.add_item(
        project_id=project_id, token=token, target="request", name=name, text=_text(sample_request(obj, operation))
    )


def _document_object(project_id: str, document_id: int) -> dict[str, Any]:
    document = (
        Document.objects.filter(project_id=project_id, pk=document_id).first() if 0 < document_id < 2**63 else None
    )
    if document is None:
        raise not_found("document")
    try:
        obj = yaml.safe_load(document.text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ServiceError(
            "invalid_document",
            f"{document.name}: not one YAML object ({getattr(exc, 'problem', exc)})",
            document=document.name,
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
        ) from None
    if not isinstance(obj, dict) or not obj.get("kind") or not isinstance(obj.get("metadata"), dict):
        raise ServiceError("invalid_document", f"{document.name}: not a Kubernetes object", document=document.name)
    return obj
