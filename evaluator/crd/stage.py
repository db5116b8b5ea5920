"""Custom resources validated against their CustomResourceDefinition inside the admission chain.

The API server validates an object after mutating admission and before validating admission: the CRD
version's OpenAPI schema (value validation, list-type uniqueness) and every `x-kubernetes-validations`
rule, with transition rules on UPDATE and ratcheting of unchanged values. A failing object is refused
with 422 Invalid, `<Kind>.<group> "<name>" is invalid: [<field error>, ...]`; the validating admission
policies and webhooks never see it. CRDs the API server would refuse on create are refused by the policy
kind (`evaluator/policies/crd`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.admission.cluster import name_of
from evaluator.cel import to_json
from evaluator.crd.custom_resource import validate_custom_resource
from evaluator.crd.definition import estimated_costs
from evaluator.k8s.schemas import is_crd


def _spec(crd: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = crd.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def version_schema(crd: Mapping[str, Any], version: str) -> Mapping[str, Any] | None:
    spec = _spec(crd)
    for v in spec.get("versions") or ():
        if isinstance(v, Mapping) and v.get("name") == version:
            schema = v.get("schema") if isinstance(v.get("schema"), Mapping) else {}
            found = schema.get("openAPIV3Schema")
            if isinstance(found, Mapping):
                return found
    top = spec.get("validation") if isinstance(spec.get("validation"), Mapping) else {}
    found = top.get("openAPIV3Schema")
    return found if isinstance(found, Mapping) else None


def invalid_status(kind: str, group: str, name: str, errors: list[dict]) -> dict[str, Any]:
    """apierrors.NewInvalid: 422 with one cause per field error (the aggregate drops repeated texts)."""
    qualified = f"{kind}.{group}" if group else kind
    texts: list[str] = []
    for e in errors:
        if e["text"] not in texts:
            texts.append(e["text"])
    aggregate = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    message = f'{qualified} "{name}" is invalid: {aggregate}'
    causes = [
        {
            "reason": e["type"],
            "message": e["text"][len(e["field"]) + 2 :] if e["field"] else e["text"],
            "field": e["field"],
        }
        for e in errors
    ]
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "Invalid",
        "details": {"name": name, "group": group, "kind": kind, "causes": causes},
        "code": 422,
    }


class CRDStage:
    def __init__(self, documents: list[Any]):
        self.crds = [d for d in documents if is_crd(d)]
        self._by_kind: dict[tuple[str, str], Mapping[str, Any]] = {}
        self._costs: dict[tuple[str, str], list[dict]] = {}
        for crd in self.crds:
            spec = _spec(crd)
            names = spec.get("names") if isinstance(spec.get("names"), Mapping) else {}
            key = (str(spec.get("group") or ""), str(names.get("kind") or ""))
            self._by_kind.setdefault(key, crd)

    def _estimates(self, crd: Mapping[str, Any], version: str, schema: Mapping[str, Any]) -> list[dict]:
        key = (name_of(crd), version)
        if key not in self._costs:
            try:
                self._costs[key] = estimated_costs(schema)
            except RecursionError:
                self._costs[key] = []
        return self._costs[key]

    def find(self, request: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any], str] | None:
        kind = request.get("kind") if isinstance(request.get("kind"), Mapping) else {}
        crd = self._by_kind.get((str(kind.get("group") or ""), str(kind.get("kind") or "")))
        if crd is None:
            return None
        version = str(kind.get("version") or "")
        schema = version_schema(crd, version)
        return (crd, schema, version) if schema is not None else None

    def run(self, request: Mapping[str, Any]) -> dict[str, Any] | None:
        """None when the request is not for a custom resource of a CRD in the documents."""
        if request.get("subResource") or request.get("operation") not in ("CREATE", "UPDATE"):
            return None
        found = self.find(request)
        if found is None:
            return None
        crd, schema, version = found
        obj = request.get("object")
        old = request.get("oldObject") if request.get("operation") == "UPDATE" else None
        outcome = validate_custom_resource(
            schema, obj, old, root_path=None, is_resource_root=True, ratcheting=old is not None, trace=True
        )
        kind = request.get("kind") or {}
        errors = outcome["errors"]
        rules = [dict(r, value=_json(r.get("value"))) for r in outcome.get("rules") or []]
        status = None
        if errors:
            status = invalid_status(
                str(kind.get("kind") or ""), str(kind.get("group") or ""), _object_name(request), errors
            )
        return {
            "crd": name_of(crd),
            "version": version,
            "allowed": not errors,
            "errors": errors,
            "estimatedCosts": self._estimates(crd, version, schema),
            "warnings": outcome["warnings"],
            "rules": rules,
            "remainingBudget": outcome["remainingBudget"],
            "status": status,
        }


def _object_name(request: Mapping[str, Any]) -> str:
    obj = request.get("object") if isinstance(request.get("object"), Mapping) else {}
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    return str(request.get("name") or meta.get("name") or "")


def _json(value: Any) -> Any:
    try:
        return to_json(value)
    except Exception:  # a value we cannot show must not hide the verdict
        return None
