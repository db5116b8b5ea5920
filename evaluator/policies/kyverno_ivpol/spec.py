"""ImageValidatingPolicy / NamespacedImageValidatingPolicy documents (policies.kyverno.io v1alpha1, v1beta1,
v1): recognising them and reading their spec with Kyverno's defaults.

Defaults as the API types' getters apply them: validationActions [Deny], evaluation.mode Kubernetes,
failurePolicy Fail, validationConfigurations.verifyDigest true, .required true, .mutateDigest true.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluator.policies.kyverno_vpol import spec as vpol_spec

GROUP = vpol_spec.GROUP
KINDS = frozenset({"ImageValidatingPolicy", "NamespacedImageValidatingPolicy"})

spec_of = vpol_spec.spec_of
name_of = vpol_spec.name_of
failure_policy = vpol_spec.failure_policy
validation_actions = vpol_spec.validation_actions
evaluation_mode = vpol_spec.evaluation_mode
admission_enabled = vpol_spec.admission_enabled
is_cel_exception = vpol_spec.is_cel_exception
Named = vpol_spec.Named
NamedSpec = vpol_spec.NamedSpec


def is_image_validating_policy(doc: Any) -> bool:
    return isinstance(doc, Mapping) and doc.get("kind") in KINDS and vpol_spec.api_group(doc)[0] == GROUP


version_issue = vpol_spec.version_issue


def namespace_of(doc: Mapping[str, Any]) -> str:
    if doc.get("kind") != "NamespacedImageValidatingPolicy":
        return ""
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), Mapping) else {}
    return str(meta.get("namespace") or "default")


def _config(spec: Mapping[str, Any], key: str) -> bool:
    """validationConfigurations.<key>: true unless written false."""
    config = spec.get("validationConfigurations")
    return not (isinstance(config, Mapping) and config.get(key) is False)


def verify_digest(spec: Mapping[str, Any]) -> bool:
    return _config(spec, "verifyDigest")


def mutate_digest(spec: Mapping[str, Any]) -> bool:
    return _config(spec, "mutateDigest")


def required(spec: Mapping[str, Any]) -> bool:
    return _config(spec, "required")
