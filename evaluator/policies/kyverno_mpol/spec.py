"""MutatingPolicy / NamespacedMutatingPolicy documents (policies.kyverno.io): recognising them and reading
their spec with Kyverno's defaults (api/policies.kyverno.io MutatingPolicySpec getters).

Defaults: failurePolicy Fail, reinvocationPolicy Never, evaluation.admission enabled, mutateExisting off.
MutatingPolicy is served in v1alpha1 (deprecated), v1beta1 and v1; NamespacedMutatingPolicy in v1beta1 and v1
(config/crds/policies.kyverno.io).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.admission.cluster import metadata, name_of as name_of
from evaluator.k8s.kinds import KYVERNO_MUTATING_POLICY_KINDS, KYVERNO_POLICIES_GROUP

GROUP = KYVERNO_POLICIES_GROUP
SERVED = {"MutatingPolicy": ("v1alpha1", "v1beta1", "v1"), "NamespacedMutatingPolicy": ("v1beta1", "v1")}
DEPRECATED = frozenset({"v1alpha1"})


def is_mutating_policy(doc: Any) -> bool:
    return (
        isinstance(doc, Mapping)
        and doc.get("kind") in KYVERNO_MUTATING_POLICY_KINDS
        and str(doc.get("apiVersion") or "").partition("/")[0] == GROUP
    )


def version_issue(doc: Mapping[str, Any]) -> tuple[str, str] | None:
    """("error", kubectl's text) for a version the CRD does not serve, ("warning", text) for a deprecated one."""
    kind = str(doc.get("kind") or "")
    version = str(doc.get("apiVersion") or "").partition("/")[2]
    if version not in SERVED.get(kind, ()):
        return "error", f'no matches for kind "{kind}" in version "{GROUP}/{version}"'
    if version in DEPRECATED:
        return "warning", f"{GROUP}/{version} {kind} is deprecated; use {GROUP}/v1 {kind}"
    return None


def section(parent: Any, key: str) -> Mapping[str, Any]:
    value = parent.get(key) if isinstance(parent, Mapping) else None
    return value if isinstance(value, Mapping) else {}


def spec_of(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    return section(doc, "spec")


def namespace_of(doc: Mapping[str, Any]) -> str:
    """Only a NamespacedMutatingPolicy has a namespace that matters."""
    if doc.get("kind") != "NamespacedMutatingPolicy":
        return ""
    return str(metadata(doc).get("namespace") or "default")


def failure_policy(spec: Mapping[str, Any]) -> str:
    return "Ignore" if spec.get("failurePolicy") == "Ignore" else "Fail"


def reinvocation_policy(spec: Mapping[str, Any]) -> str:
    return "IfNeeded" if spec.get("reinvocationPolicy") == "IfNeeded" else "Never"


def admission_enabled(spec: Mapping[str, Any]) -> bool:
    return section(section(spec, "evaluation"), "admission").get("enabled") is not False


def mutate_existing_enabled(spec: Mapping[str, Any]) -> bool:
    return section(section(spec, "evaluation"), "mutateExisting").get("enabled") is True
