"""Serving `apiCall` GET requests from the user's documents, like the fake cluster `kyverno test` builds from
its resources and clusterResources: /api/v1/... and /apis/<group>/<version>/... object and list paths."""

from __future__ import annotations

import copy
import re

_PATH = re.compile(
    r"^/(?:api/(?P<core>v1)|apis/(?P<group>[^/]+)/(?P<version>[^/]+))"
    r"(?:/namespaces/(?P<ns>[^/]+))?/(?P<resource>[^/]+)(?:/(?P<name>[^/]+))?/?$"
)


def _resource_of(doc: dict) -> str:
    from evaluator.k8s.restmapping import builtin_mapper, guess_resource

    info = builtin_mapper().resource_for(str(doc.get("apiVersion", "")), str(doc.get("kind", "")))
    return info.gvr.resource if info else guess_resource(str(doc.get("kind", "")))


def _group_version(doc: dict) -> tuple[str, str]:
    api = str(doc.get("apiVersion", ""))
    return tuple(api.split("/", 1)) if "/" in api else ("", api)  # type: ignore[return-value]


def _selected(doc: object, group: str, version: str, resource: str, ns: str | None, name: str | None) -> bool:
    """Whether a document is the object (or a member of the collection) the path names."""
    if not isinstance(doc, dict) or _group_version(doc) != (group, version) or _resource_of(doc) != resource:
        return False
    meta = doc.get("metadata") or {}
    if ns is not None and (meta.get("namespace") or "default") != ns:
        return False
    return not name or meta.get("name") == name


def get(documents: list[dict], url_path: str) -> tuple[bool, object]:
    """(found, body). A collection path always answers with a List (possibly empty)."""
    path = url_path.split("?", 1)[0]
    m = _PATH.match(path)
    if not m:
        return False, None
    group, version = ("", "v1") if m.group("core") else (m.group("group"), m.group("version"))
    ns, resource, name = m.group("ns"), m.group("resource"), m.group("name")
    items = [copy.deepcopy(doc) for doc in documents if _selected(doc, group, version, resource, ns, name)]
    if name:
        return (True, items[0]) if items else (False, None)
    kind = (items[0].get("kind") if items else resource.capitalize()) + "List"
    return True, {
        "apiVersion": f"{group}/{version}" if group else version,
        "kind": kind,
        "metadata": {},
        "items": items,
    }
