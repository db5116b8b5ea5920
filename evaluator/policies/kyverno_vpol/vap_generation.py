"""The ValidatingAdmissionPolicy and binding Kyverno generates from a ValidatingPolicy
(pkg/controllers/admissionpolicygenerator/generate-vap.go, pkg/admissionpolicy/builder.go).

Only a cluster-scoped ValidatingPolicy with `spec.autogen.validatingAdmissionPolicy.enabled: true` and no
pod-controller autogen variants gets one. The VAP (`vpol-<name>`) copies matchConstraints, matchConditions,
variables, validations and auditAnnotations; each CEL PolicyException naming the policy adds its
matchConditions negated (`!(<expression>)`), its `images` / `allowedValues` as the variables
`allowedImages` / `allowedValues` (and `exceptions.allowed…` in validations reads them). The binding
(`vpol-<name>-binding`) carries the policy's validationActions (Deny when none).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from . import autogen, spec as sp
from .compiler import exceptions_for

_VAP_API = "admissionregistration.k8s.io/v1"
_SKIP = "skip generating ValidatingAdmissionPolicy: "


def requested(spec: Mapping[str, Any]) -> bool:
    """`spec.autogen.validatingAdmissionPolicy.enabled: true`."""
    config = spec.get("autogen")
    vap = config.get("validatingAdmissionPolicy") if isinstance(config, Mapping) else None
    return isinstance(vap, Mapping) and vap.get("enabled") is True


def skip_reason(policy: Mapping[str, Any]) -> str | None:
    """None when Kyverno generates a VAP from this ValidatingPolicy, else the status message it writes."""
    spec = sp.spec_of(policy)
    if not requested(spec):
        return _SKIP + "not enabled."
    if autogen.variants(spec):
        return _SKIP + "pod controllers autogen is enabled."
    if not isinstance(spec.get("matchConstraints"), Mapping):
        return _SKIP + "the policy has no matchConstraints."
    return None


def _quoted(values: list[Any]) -> str:
    return "[" + ", ".join(f"'{v}'" for v in values) + "]"


def _vap_spec(spec: Mapping[str, Any], exceptions: list[Mapping[str, Any]]) -> dict[str, Any]:
    conditions = copy.deepcopy(list(spec.get("matchConditions") or []))
    variables = copy.deepcopy(list(spec.get("variables") or []))
    validations = copy.deepcopy(list(spec.get("validations") or []))
    for exc in exceptions:
        exc_spec = sp.spec_of(exc)
        for condition in exc_spec.get("matchConditions") or []:
            if isinstance(condition, Mapping):
                conditions.append(
                    {"name": condition.get("name"), "expression": f"!({condition.get('expression') or ''})"}
                )
        if exc_spec.get("images"):
            variables.append({"name": "allowedImages", "expression": _quoted(list(exc_spec["images"]))})
        if exc_spec.get("allowedValues"):
            variables.append({"name": "allowedValues", "expression": _quoted(list(exc_spec["allowedValues"]))})
    for validation in validations:
        if isinstance(validation, dict) and isinstance(validation.get("expression"), str):
            validation["expression"] = (
                validation["expression"]
                .replace("exceptions.allowedImages", "variables.allowedImages")
                .replace("exceptions.allowedValues", "variables.allowedValues")
            )
    out: dict[str, Any] = {"matchConstraints": copy.deepcopy(dict(spec["matchConstraints"]))}
    for key, value in (
        ("variables", variables),
        ("validations", validations),
        ("auditAnnotations", copy.deepcopy(spec.get("auditAnnotations"))),
        ("matchConditions", conditions),
    ):
        if value:
            out[key] = value
    return out


def generate(policy: Mapping[str, Any], exceptions: list[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """{"policy": VAP, "binding": binding} or {"skipped": reason}. `exceptions`: every CEL PolicyException
    of the document set (those naming this policy are applied)."""
    reason = skip_reason(policy)
    if reason:
        return {"skipped": reason}
    spec = sp.spec_of(policy)
    meta = policy.get("metadata") if isinstance(policy.get("metadata"), Mapping) else {}
    name = "vpol-" + str(meta.get("name") or "")
    owner = {
        "apiVersion": policy.get("apiVersion"),
        "kind": policy.get("kind"),
        "name": str(meta.get("name") or ""),
        "uid": str(meta.get("uid") or ""),
    }
    labels = {"app.kubernetes.io/managed-by": "kyverno"}
    vap = {
        "apiVersion": _VAP_API,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name, "labels": labels, "ownerReferences": [owner]},
        "spec": _vap_spec(spec, exceptions_for(policy, list(exceptions))),
    }
    binding = {
        "apiVersion": _VAP_API,
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name + "-binding", "labels": dict(labels), "ownerReferences": [dict(owner)]},
        "spec": {"policyName": name, "validationActions": sp.validation_actions(spec)},
    }
    return {"policy": vap, "binding": binding}
