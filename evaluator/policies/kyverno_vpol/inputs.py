"""Build the engine's inputs from an admission request dict or a JSON payload, as Kyverno's
celengine.Request and the vpol compiler's prepareK8sData do: `request` is the whole AdmissionRequest as
JSON (original kind/resource, object and oldObject included), `object`/`oldObject` null when absent,
`namespaceObject` the request namespace's Namespace when one is known."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable

from evaluator.k8s.namespaces import Namespaces
from evaluator.k8s.restmapping import builtin_mapper, guess_resource, parse_api_version

from .context import OfflineContext
from .engine import Inputs


def _gvk_of(obj: Any) -> dict[str, str]:
    obj = obj if isinstance(obj, Mapping) else {}
    group, version = parse_api_version(obj.get("apiVersion")) or ("", "")
    return {"group": group, "version": version, "kind": str(obj.get("kind") or "")}


def gvr_for(gvk: Mapping[str, str], crd_plurals: Mapping[tuple[str, str], str] | None = None) -> dict[str, str]:
    """The resource of a kind: built-in REST mapping, a CRD's plural, else Kyverno's guess."""
    group, version, kind = gvk.get("group", ""), gvk.get("version", ""), gvk.get("kind", "")
    api_version = f"{group}/{version}" if group else version
    plural = (crd_plurals or {}).get((group, kind))
    if plural is None:
        info = builtin_mapper().resource_for(api_version, kind)
        plural = info.gvr.resource if info is not None else guess_resource(kind)
    return {"group": group, "version": version, "resource": plural}


def _user_info(user: Any) -> dict[str, Any]:
    user = user if isinstance(user, Mapping) else {}
    out: dict[str, Any] = {}
    for key in ("username", "uid", "groups", "extra"):
        if user.get(key):
            out[key] = user[key]
    return out


def namespace_lookup(namespaces: Mapping[str, Mapping] | None) -> Callable[[str], Mapping | None]:
    """Namespaces for namespaceSelector: a known one, else one labelled only kubernetes.io/metadata.name
    (what Kyverno's CLI resolver and the API server's automatic label give): the simulation's `Namespaces`."""
    if isinstance(namespaces, Namespaces):
        return namespaces
    model = Namespaces()
    model.update(namespaces or {})
    return model


@dataclass(frozen=True)
class _Target:
    """What an admission request is about, resolved once for the CEL `request` and for matching."""

    operation: str
    object: Any
    old_object: Any
    kind: dict[str, str]
    resource: dict[str, str]
    sub_resource: str
    namespace: str
    name: str

    @classmethod
    def of(cls, request: Mapping[str, Any], crd_plurals: Mapping[tuple[str, str], str]) -> _Target:
        """No object on DELETE, no oldObject but on UPDATE and DELETE; kind, resource, namespace and name
        from the request, else from the object (the old one when there is none)."""
        operation = str(request.get("operation") or "CREATE")
        obj = request.get("object") if operation != "DELETE" else None
        old = request.get("oldObject") if operation in ("UPDATE", "DELETE") else None
        source = obj if isinstance(obj, Mapping) else (old if isinstance(old, Mapping) else {})
        meta = source.get("metadata") if isinstance(source.get("metadata"), Mapping) else {}
        gvk = dict(request.get("kind") or {}) or _gvk_of(source)
        return cls(
            operation,
            obj,
            old,
            gvk,
            dict(request.get("resource") or {}) or gvr_for(gvk, crd_plurals),
            str(request.get("subResource") or ""),
            str(request.get("namespace") or meta.get("namespace") or ""),
            str(request.get("name") or meta.get("name") or ""),
        )

    def cel_request(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The AdmissionRequest as JSON, in its field order, optional fields only when set."""
        sub = self.sub_resource
        out: dict[str, Any] = {"uid": str(request.get("uid") or ""), "kind": self.kind, "resource": self.resource}
        if sub:
            out["subResource"] = sub
        out["requestKind"] = dict(request.get("requestKind") or self.kind)
        out["requestResource"] = dict(request.get("requestResource") or self.resource)
        if sub:
            out["requestSubResource"] = sub
        if self.name:
            out["name"] = self.name
        if self.namespace:
            out["namespace"] = self.namespace
        out.update(
            operation=self.operation,
            userInfo=_user_info(request.get("userInfo")),
            object=self.object,
            oldObject=self.old_object,
            dryRun=bool(request.get("dryRun") or False),
            options=request.get("options"),
        )
        return out

    def match_request(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "resource": self.resource,
            "subResource": self.sub_resource,
            "namespace": self.namespace,
            "name": self.name,
            "operation": self.operation,
            "object": self.object,
            "oldObject": self.old_object,
        }


def kubernetes_inputs(
    request: Mapping[str, Any],
    *,
    context: OfflineContext | None = None,
    namespaces: Mapping[str, Mapping] | None = None,
    namespace_object: Any = "lookup",
) -> Inputs:
    """Inputs for an admission request dict ({operation, object, oldObject, kind?, resource?, namespace?,
    name?, userInfo?, subResource?, dryRun?}). `namespace_object="lookup"` takes it from `namespaces`."""
    context = context or OfflineContext()
    target = _Target.of(request, context.crd_plurals)
    if namespace_object == "lookup":
        namespace_object = (namespaces or {}).get(target.namespace) if target.namespace else None
    return Inputs(
        object=target.object,
        old_object=target.old_object,
        request=target.cel_request(request),
        match_request=target.match_request(),
        namespace_object=namespace_object,
        namespace_lookup=namespace_lookup(namespaces),
        context=context,
    )


def json_inputs(payload: Any, *, context: OfflineContext | None = None) -> Inputs:
    """JSON mode: `object` is the payload; no request, oldObject or namespaceObject."""
    return Inputs(object=payload, context=context or OfflineContext(), payload=True)
