"""The objects of a live cluster a policy set could act on, for a batch run of the web app: the resources the
policies match for a CREATE (cluster.py's selection) or the kinds given, read through evaluator/cluster's `ClusterReader`
(allow-listed, never Secrets, capped), and the cluster's namespaces, whose labels namespaceSelectors read."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from evaluator.batch.cluster import Resource as Listed, matched_resources, selectors_of
from evaluator.cluster.errors import ClusterError
from evaluator.cluster.kinds import NAMESPACES
from evaluator.cluster.reader import ClusterReader, Resource

__all__ = ["objects_for"]


def _matched(reader: ClusterReader, documents: Any) -> list[Resource]:

    served = {(r.group, r.resource): r for r in reader.resources() if "create" in r.verbs}
    listed = [Listed(r.group, r.version, r.resource, r.kind, r.namespaced) for r in served.values()]
    preferred = {r.group: r.version for r in served.values()}
    return [served[(m.group, m.resource)] for m in matched_resources(listed, preferred, selectors_of(documents))]


def objects_for(
    reader: ClusterReader,
    documents: Any,
    *,
    kinds: Iterable[str] | None = None,
    namespace: str | None = None,
    selector: str | None = None,
    cap: int,
) -> tuple[list[dict], list[dict], list[ClusterError]]:
    """(objects, the cluster's Namespace objects, errors naming each kind not read): every kind whole or not
    at all, `cap` objects in all."""
    errors: list[ClusterError] = []
    resources: list[Resource] = []
    if kinds is None:
        resources = _matched(reader, documents)
    else:
        for kind in kinds:
            try:
                resources.append(reader.resolve(kind))
            except ClusterError as exc:
                errors.append(exc)
    objects: list[dict] = []
    for resource in resources:
        try:
            objects += reader.list(resource, namespace, selector, cap - len(objects))
        except ClusterError as exc:
            errors.append(exc)
    namespaces: list[dict] = []
    found = reader.find(NAMESPACES)
    if found is not None:
        try:
            namespaces = reader.list(found, cap=cap)
        except ClusterError as exc:
            errors.append(exc)
    return objects, namespaces, errors
