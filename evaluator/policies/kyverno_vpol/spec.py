"""ValidatingPolicy / NamespacedValidatingPolicy documents: recognising them and reading their spec with
Kyverno's defaults (api/policies.kyverno.io, the same fields in v1alpha1, v1beta1 and v1).

Defaults as the API types' getters apply them: validationActions [Deny], evaluation.mode Kubernetes,
failurePolicy Fail, admission and background enabled. v1alpha1 and v1beta1 are served alongside v1; the
fields read here have one shape in all three (the conversion webhook copies them verbatim).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.admission.cluster import metadata, name_of as name_of  # sp.name_of, with the other readers
from evaluator.k8s.kinds import KYVERNO_POLICIES_GROUP, KYVERNO_VALIDATING_POLICY_KINDS, POLICY_EXCEPTION

GROUP = KYVERNO_POLICIES_GROUP
VERSIONS = ("v1alpha1", "v1beta1", "v1")
# Served versions per kind (Kyverno's CRDs: config/crds/policies.kyverno.io); v1alpha1 is deprecated.
SERVED = {
    "ValidatingPolicy": ("v1alpha1", "v1beta1", "v1"),
    "NamespacedValidatingPolicy": ("v1beta1", "v1"),
    "PolicyException": ("v1alpha1", "v1beta1", "v1"),
    "GeneratingPolicy": ("v1alpha1", "v1beta1", "v1"),
    "NamespacedGeneratingPolicy": ("v1beta1", "v1"),
    "DeletingPolicy": ("v1alpha1", "v1beta1", "v1"),
    "NamespacedDeletingPolicy": ("v1beta1", "v1"),
    "MutatingPolicy": ("v1alpha1", "v1beta1", "v1"),
    "NamespacedMutatingPolicy": ("v1beta1", "v1"),
    "ImageValidatingPolicy": ("v1alpha1", "v1beta1", "v1"),
    "NamespacedImageValidatingPolicy": ("v1beta1", "v1"),
}
DEPRECATED = frozenset({"v1alpha1"})
KINDS = KYVERNO_VALIDATING_POLICY_KINDS
EXCEPTION_KIND = POLICY_EXCEPTION


def api_group(doc: Mapping[str, Any]) -> tuple[str, str]:
    api_version = str(doc.get("apiVersion") or "")
    group, _, version = api_version.partition("/")
    return group, version


def is_validating_policy(doc: Any) -> bool:
    return isinstance(doc, Mapping) and doc.get("kind") in KINDS and api_group(doc)[0] == GROUP


def is_cel_exception(doc: Any) -> bool:
    """A policies.kyverno.io PolicyException (kyverno.io PolicyExceptions belong to ClusterPolicies)."""
    return isinstance(doc, Mapping) and doc.get("kind") == EXCEPTION_KIND and api_group(doc)[0] == GROUP


def version_issue(doc: Mapping[str, Any]) -> tuple[str, str] | None:
    """("error", text) for a version the CRD does not serve (kubectl's text), ("warning", text) for a deprecated
    one (the API server's default CRD deprecation warning), else None."""
    kind = str(doc.get("kind") or "")
    _, version = api_group(doc)
    if version not in SERVED.get(kind, VERSIONS):
        return "error", f'no matches for kind "{kind}" in version "{GROUP}/{version}"'
    if version in DEPRECATED:
        return "warning", f"{GROUP}/{version} {kind} is deprecated; use {GROUP}/v1 {kind}"
    return None


def section(parent: Any, key: str) -> Mapping[str, Any]:
    """A nested object of the policy; anything else there reads as unset."""
    value = parent.get(key) if isinstance(parent, Mapping) else None
    return value if isinstance(value, Mapping) else {}


def spec_of(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    return section(doc, "spec")


def namespace_of(doc: Mapping[str, Any]) -> str:
    """Only a Namespaced… policy (NamespacedValidatingPolicy, NamespacedMutatingPolicy, …) has a namespace that
    matters."""
    if not str(doc.get("kind") or "").startswith("Namespaced"):
        return ""
    return str(metadata(doc).get("namespace") or "default")


def validation_actions(spec: Mapping[str, Any]) -> list[str]:
    actions = spec.get("validationActions")
    if isinstance(actions, list) and actions:
        return [str(a) for a in actions]
    return ["Deny"]


def evaluation_mode(spec: Mapping[str, Any]) -> str:
    mode = section(spec, "evaluation").get("mode")
    return str(mode) if mode else "Kubernetes"


def _enabled(spec: Mapping[str, Any], key: str) -> bool:
    return section(section(spec, "evaluation"), key).get("enabled") is not False


def admission_enabled(spec: Mapping[str, Any]) -> bool:
    return _enabled(spec, "admission")


def background_enabled(spec: Mapping[str, Any]) -> bool:
    return _enabled(spec, "background")


def failure_policy(spec: Mapping[str, Any]) -> str:
    return "Ignore" if spec.get("failurePolicy") == "Ignore" else "Fail"


def process(spec: Mapping[str, Any]) -> str:
    """The PolicyReport's `process` property (reportutils.selectProcess)."""
    if background_enabled(spec):
        return "background scan"
    if admission_enabled(spec):
        return "admission review"
    return ""


def autogen_controllers(spec: Mapping[str, Any]) -> list[str] | None:
    """spec.autogen.podControllers.controllers as written (None when unset: every controller)."""
    controllers = section(section(spec, "autogen"), "podControllers").get("controllers")
    if controllers is None:
        return None
    return [str(c) for c in controllers] if isinstance(controllers, list) else []


class Named:
    """`name` of what a Kyverno CEL policy document (`document`) compiles to."""

    document: Mapping[str, Any]

    @property
    def name(self) -> str:
        return name_of(self.document)


class NamedSpec(Named):
    """`name`, `spec` and `namespace` of what a Kyverno CEL policy document compiles to (where `spec` is not
    a field)."""

    @property
    def spec(self) -> Mapping[str, Any]:
        return spec_of(self.document)

    @property
    def namespace(self) -> str:
        return namespace_of(self.document)
