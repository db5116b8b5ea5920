"""A batch job's objects read from the connected cluster (issue 37) instead of an upload: the kinds the chosen
policies match (or those named), optionally one namespace and a label selector, read-only and capped at
PLAYGROUND_BATCH_MAX_OBJECTS. A kind that could not be read becomes a warning of the job naming it and why;
an unreachable cluster refuses the job (502)."""

from __future__ import annotations

from django.conf import settings

from evaluator.cluster import ClusterError, ClusterReader, ReadOnlyClient
from evaluator.batch.cluster import objects_for
from playground.core.database import release_connection
from playground.core.errors import ServiceError
from playground.services import cluster_service


def read(documents: list[dict], spec: dict) -> tuple[list[dict], list[dict], list[dict], list[dict]]:
    """(objects, namespaces, sources [{name, objects}], warnings) for `documents`' policies."""
    connection = cluster_service.connection()
    release_connection()  # a slow cluster holds no database slot
    client = ReadOnlyClient(connection)
    try:
        with client:
            reader = ClusterReader(client, cluster_service.allowed())
            objects, namespaces, errors = objects_for(
                reader,
                documents,
                kinds=spec.get("kinds") or None,
                namespace=spec.get("namespace") or None,
                selector=spec.get("labelSelector") or None,
                cap=settings.PLAYGROUND_BATCH_MAX_OBJECTS,
            )
            name = f"cluster {client.label or 'in-cluster'}"
    except ClusterError as exc:
        raise ServiceError(f"cluster_{exc.reason}", exc.message, 502, path=exc.what) from None
    if not objects and not errors:
        raise ServiceError("invalid_objects", "the cluster holds no object of the kinds these policies match")
    warnings = [{"severity": "warning", "source": "cluster", "message": e.message} for e in errors]
    return objects, namespaces, [{"name": name, "objects": len(objects)}], warnings
