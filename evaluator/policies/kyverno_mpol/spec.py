"""MutatingPolicy / NamespacedMutatingPolicy documents (policies.kyverno.io): recognising them and reading
their spec with Kyverno's defaults (api/policies.kyverno.io MutatingPolicySpec getters).

Defaults: failurePolicy Fail, reinvocationPolicy Never, evaluation.admission enabled, mutateExisting off.
MutatingPolicy is served in v1alpha1 (deprecated), v1beta1 and v1; NamespacedMutatingPolicy in v1beta1 and v1
(config/crds/policies.kyverno.io).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.k8s.kinds import KYVERNO_MUTATING_POLICY_KINDS, KYVERNO_POLICIES_GROUP
from evaluator.policies.kyverno_vpol import spec as vpol_spec

GROUP = KYVERNO_POLICIES_GROUP


def is_mutating_policy(doc: Any) -> bool:
    return (
        isinstance(doc, Mapping)
        and doc.get("kind") in KYVERNO_MUTATING_POLICY_KINDS
        and str(doc.get("apiVersion") or "").partition("/")[0] == GROUP
    )


version_issue = vpol_spec.version_issue
section = vpol_spec.section
spec_of = vpol_spec.spec_of
namespace_of = vpol_spec.namespace_of
failure_policy = vpol_spec.failure_policy
admission_enabled = vpol_spec.admission_enabled
name_of = vpol_spec.name_of
Named = vpol_spec.Named
NamedSpec = vpol_spec.NamedSpec


def reinvocation_policy(spec: Mapping[str, Any]) -> str:
    return "IfNeeded" if spec.get("reinvocationPolicy") == "IfNeeded" else "Never"


def mutate_existing_enabled(spec: Mapping[str, Any]) -> bool:
    return section(section(spec, "evaluation"), "mutateExisting").get("enabled") is True
