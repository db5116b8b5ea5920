"""The MutatingAdmissionPolicy and binding Kyverno generates from a MutatingPolicy
(pkg/controllers/admissionpolicygenerator/generate-map.go, pkg/admissionpolicy/builder.go).

Only a cluster-scoped MutatingPolicy with `spec.autogen.mutatingAdmissionPolicy.enabled: true` gets one, and
not when `evaluation.useServerSideApply` is set or its pod-controller autogen makes variants; Kyverno writes
the reason in the policy's status instead. The API version is the newest the cluster serves (v1 from 1.36,
v1beta1 from 1.34, v1alpha1 from 1.32; before that there is no MutatingAdmissionPolicy API to write to).

The MAP (`mpol-<name>`) copies the resourceRules of matchConstraints (nothing else of them), the
matchConditions after those of the CEL PolicyExceptions naming the policy (negated, `!(<expression>)`),
variables, mutations, failurePolicy (when set) and reinvocationPolicy (Never when unset); labels
`app.kubernetes.io/managed-by: kyverno` (and `reports.kyverno.io/disabled: "true"` when the policy has that
label). The binding (`mpol-<name>-binding`) only names the policy.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from evaluator.policies.kyverno_vpol.spec import is_cel_exception

from . import autogen, spec as sp

_GROUP = "admissionregistration.k8s.io"
_SKIP = "skip generating MutatingAdmissionPolicy: "
_NO_API = _SKIP + "requested but no MutatingAdmissionPolicy API/informers are available."
_EXCLUDE_REPORTING = "reports.kyverno.io/disabled"
_RULE_FIELDS = ("resourceNames", "operations", "apiGroups", "apiVersions", "resources", "scope")


def is_admission_policy(document: Mapping[str, Any]) -> bool:
    """A policy, binding or webhook configuration (admissionregistration.k8s.io, Kyverno's groups): left out of
    the generated MAP's own simulation, which keeps the cluster's other objects (namespaces, params, CRDs)."""
    group = str(document.get("apiVersion") or "").rpartition("/")[0]
    return group in (_GROUP, sp.GROUP, "kyverno.io")


def requested(spec: Mapping[str, Any]) -> bool:
    """`spec.autogen.mutatingAdmissionPolicy.enabled: true` (GenerateMutatingAdmissionPolicyEnabled)."""
    return sp.section(sp.section(spec, "autogen"), "mutatingAdmissionPolicy").get("enabled") is True


def api_version(kubernetes_version: str | None) -> str | None:
    """The MutatingAdmissionPolicy version Kyverno writes on a cluster of that release (None: none served)."""
    minor = int(kubernetes_version.split(".")[1]) if kubernetes_version else 10**6
    for introduced, version in ((36, "v1"), (34, "v1beta1"), (32, "v1alpha1")):
        if minor >= introduced:
            return f"{_GROUP}/{version}"
    return None


def skip_reason(policy: Mapping[str, Any], kubernetes_version: str | None = None) -> str | None:
    """None when Kyverno generates a MAP from this MutatingPolicy, else the status message it writes."""
    spec = sp.spec_of(policy)
    if api_version(kubernetes_version) is None and requested(spec):
        return _NO_API
    if not requested(spec):
        return _SKIP + "not enabled."
    if sp.section(spec, "evaluation").get("useServerSideApply") is True:
        return (
            _SKIP + "useServerSideApply is enabled, which mutates atomic fields that a native "
            "MutatingAdmissionPolicy rejects."
        )
    if autogen.variants(spec):
        return _SKIP + "pod controllers autogen is enabled."
    return None


def exceptions_naming(name: str, documents: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """getCELExceptions: the CEL PolicyExceptions with a policyRef of that name (whatever its kind), once per
    such ref."""
    out = []
    for doc in documents:
        if not is_cel_exception(doc):
            continue
        for ref in sp.spec_of(doc).get("policyRefs") or []:
            if isinstance(ref, Mapping) and ref.get("name") == name:
                out.append(doc)
    return out


def _named(items: Any, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """Each mapping of a list with only `fields` (those set), as the Go structs carry them."""
    out = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, Mapping):
            out.append({k: copy.deepcopy(item[k]) for k in fields if item.get(k) not in (None, "", [])})
    return out


def _mutations(items: Any) -> list[dict[str, Any]]:
    out = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, Mapping):
            continue
        mutation: dict[str, Any] = {}
        if item.get("patchType"):
            mutation["patchType"] = item["patchType"]
        for key in ("applyConfiguration", "jsonPatch"):
            holder = item.get(key)
            if isinstance(holder, Mapping):
                expression = holder.get("expression")
                mutation[key] = {"expression": expression} if expression else {}
        out.append(mutation)
    return out


def _map_spec(spec: Mapping[str, Any], exceptions: list[Mapping[str, Any]]) -> dict[str, Any]:
    conditions = []
    for exc in exceptions:
        for condition in sp.spec_of(exc).get("matchConditions") or []:
            if isinstance(condition, Mapping):
                conditions.append(
                    {"name": condition.get("name"), "expression": f"!({condition.get('expression') or ''})"}
                )
    conditions += _named(spec.get("matchConditions"), ("name", "expression"))
    constraints = sp.section(spec, "matchConstraints")
    out: dict[str, Any] = {"matchConstraints": {}}
    rules = _named(constraints.get("resourceRules"), _RULE_FIELDS)
    if rules:
        out["matchConstraints"]["resourceRules"] = rules
    variables = _named(spec.get("variables"), ("name", "expression"))
    mutations = _mutations(spec.get("mutations"))
    for key, value in (("matchConditions", conditions), ("variables", variables), ("mutations", mutations)):
        if value:
            out[key] = value
    if spec.get("failurePolicy"):
        out["failurePolicy"] = spec["failurePolicy"]
    out["reinvocationPolicy"] = spec.get("reinvocationPolicy") or "Never"
    return out


def generate(
    policy: Mapping[str, Any], documents: list[Mapping[str, Any]] = (), kubernetes_version: str | None = None
) -> dict[str, Any]:
    """{"policy": MAP, "binding": binding} or {"skipped": reason}. `documents`: the document set (the CEL
    PolicyExceptions naming the policy are applied); `kubernetes_version`: the cluster's release (the newest
    when None), which decides the API version."""
    reason = skip_reason(policy, kubernetes_version)
    if reason:
        return {"skipped": reason}
    spec = sp.spec_of(policy)
    meta = sp.section(policy, "metadata")
    name = str(meta.get("name") or "")
    owner = {
        "apiVersion": f"{sp.GROUP}/v1beta1",
        "kind": "MutatingPolicy",
        "name": name,
        "uid": str(meta.get("uid") or ""),
    }
    labels = {"app.kubernetes.io/managed-by": "kyverno"}
    policy_labels = meta.get("labels")
    map_labels = dict(labels)
    if isinstance(policy_labels, Mapping) and _EXCLUDE_REPORTING in policy_labels:
        map_labels[_EXCLUDE_REPORTING] = "true"
    version = api_version(kubernetes_version)
    generated = {
        "apiVersion": version,
        "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": "mpol-" + name, "labels": map_labels, "ownerReferences": [owner]},
        "spec": _map_spec(spec, exceptions_naming(name, list(documents))),
    }
    binding = {
        "apiVersion": version,
        "kind": "MutatingAdmissionPolicyBinding",
        "metadata": {"name": f"mpol-{name}-binding", "labels": labels, "ownerReferences": [dict(owner)]},
        "spec": {"policyName": "mpol-" + name},
    }
    return {"policy": generated, "binding": binding}
