"""The values CEL sees, built as the server builds them (cel.CreateAdmissionRequest, CreateNamespaceObject).

`request` is the admission.k8s.io/v1 AdmissionRequest serialised with its omitempty rules: uid is the
empty string, kind/resource are the *matched* (equivalent) ones, requestKind/requestResource the
originals. `namespaceObject` keeps only spec, status and a subset of metadata (no managedFields,
ownerReferences, ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_NAMESPACE_META_FIELDS = (
    "name",
    "generateName",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "finalizers",
)


def _texts(value: Any, keys: tuple[str, str, str]) -> dict[str, str]:
    """`keys` of a kind or resource as text ("" when absent)."""
    value = value if type(value) is dict or isinstance(value, Mapping) else {}
    get = value.get
    group, version, name = keys
    return {group: str(get(group) or ""), version: str(get(version) or ""), name: str(get(name) or "")}


def _gvk(value: Any) -> dict[str, str]:
    return _texts(value, ("group", "version", "kind"))


def _gvr(value: Any) -> dict[str, str]:
    return _texts(value, ("group", "version", "resource"))


def _user_info(user: Any) -> dict[str, Any]:
    user = user if type(user) is dict or isinstance(user, Mapping) else {}
    info: dict[str, Any] = {}
    if user.get("username"):
        info["username"] = str(user["username"])
    if user.get("uid"):
        info["uid"] = str(user["uid"])
    if user.get("groups"):
        info["groups"] = [str(g) for g in user["groups"]]
    if user.get("extra"):
        info["extra"] = {str(k): [str(x) for x in (v or [])] for k, v in dict(user["extra"]).items()}
    return info


def cel_request(request: Mapping[str, Any], kind: Any, resource: Any) -> dict[str, Any]:
    """cel.CreateAdmissionRequest(attrs, equivalentGVR=resource, equivalentKind=kind) as plain data."""
    result: dict[str, Any] = {
        "uid": "",
        "kind": _gvk(kind),
        "resource": _gvr(resource),
    }
    sub = str(request.get("subResource") or "")
    if sub:
        result["subResource"] = sub
    result["requestKind"] = _gvk(request.get("kind"))
    result["requestResource"] = _gvr(request.get("resource"))
    if sub:
        result["requestSubResource"] = sub
    if request.get("name"):
        result["name"] = str(request["name"])
    if request.get("namespace"):
        result["namespace"] = str(request["namespace"])
    result["operation"] = str(request.get("operation") or "")
    result["userInfo"] = _user_info(request.get("userInfo"))
    result["dryRun"] = bool(request.get("dryRun") or False)
    options = request.get("options")
    if type(options) is dict or isinstance(options, Mapping):
        result["options"] = options
    return result


class RequestViews:
    """The CEL `request` values of one admission request, built once per distinct (kind, resource)."""

    def __init__(self, request: Mapping[str, Any]):
        self.request = request
        self._base: dict[str, Any] | None = None  # built on the first view: many requests need none
        self._views: dict[tuple, dict[str, Any]] = {}

    def view(self, kind: Any, resource: Any) -> dict[str, Any]:
        base = self._base
        if base is None:
            request = self.request
            base = self._base = cel_request(request, request.get("kind"), request.get("resource"))
        if kind == base["kind"] and resource == base["resource"]:
            return base
        gvk, gvr = _gvk(kind), _gvr(resource)
        key = (gvk["group"], gvk["version"], gvk["kind"], gvr["group"], gvr["version"], gvr["resource"])
        found = self._views.get(key)
        if found is None:
            found = dict(base)
            found["kind"], found["resource"] = gvk, gvr
            self._views[key] = found
        return found


def namespace_object(namespace: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """cel.CreateNamespaceObject: spec, status and a metadata subset (creationTimestamp null when unset)."""
    if namespace is None:
        return None
    meta = namespace.get("metadata") if isinstance(namespace.get("metadata"), Mapping) else {}
    subset: dict[str, Any] = {}
    for key in _NAMESPACE_META_FIELDS:
        value = meta.get(key)
        if value not in (None, "", 0, [], {}):
            subset[key] = value
    subset.setdefault("creationTimestamp", None)
    return {
        "metadata": subset,
        "spec": dict(namespace.get("spec") or {}),
        "status": dict(namespace.get("status") or {}),
    }


def stored_namespace(namespace: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The Namespace as an informer holds it (no apiVersion/kind), as auditAnnotations receive it."""
    if namespace is None:
        return None
    result = {k: v for k, v in namespace.items() if k not in ("apiVersion", "kind")}
    meta = dict(result.get("metadata") or {})
    meta.setdefault("creationTimestamp", None)
    result["metadata"] = meta
    result.setdefault("spec", {})
    result.setdefault("status", {})
    return result


def versioned_object(obj: Any, request_kind: Any, matched_kind: Any) -> Any:
    """The object as the matched version sees it: with equivalent matching the server converts it;
    for the fields CEL reads this means the apiVersion/kind of the matched kind."""
    if (
        obj is None
        or not (type(obj) is dict or isinstance(obj, Mapping))
        or not (type(matched_kind) is dict or isinstance(matched_kind, Mapping))
        or matched_kind == request_kind
    ):
        return obj
    if _gvk(request_kind) == _gvk(matched_kind):
        return obj
    converted = dict(obj)
    group, version = matched_kind.get("group") or "", matched_kind.get("version") or ""
    converted["apiVersion"] = f"{group}/{version}" if group else version
    converted["kind"] = matched_kind.get("kind") or obj.get("kind")
    return converted


def is_core_namespace(kind: Any) -> bool:
    """A request for a core v1 Namespace: its namespaceObject is null (the request's namespace is the
    object itself, not a namespace that contains it)."""
    kind = kind if type(kind) is dict or isinstance(kind, Mapping) else {}
    return kind.get("group", "") == "" and kind.get("version") == "v1" and kind.get("kind") == "Namespace"
