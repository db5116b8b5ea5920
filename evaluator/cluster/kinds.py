"""Which kinds a cluster read may touch: the allow-list (as `resource.group`, the names RBAC rules use) and
the policy kinds a "load policies" reads. Secrets are never read, whatever an allow-list says."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "ADMISSION_POLICIES",
    "KYVERNO_POLICIES",
    "POLICY_RESOURCES",
    "CRDS",
    "NAMESPACES",
    "DEFAULT_ALLOWED",
    "NEVER",
    "allowed_set",
]

ADMISSION_POLICIES = [
    "validatingadmissionpolicies.admissionregistration.k8s.io",
    "validatingadmissionpolicybindings.admissionregistration.k8s.io",
    "mutatingadmissionpolicies.admissionregistration.k8s.io",
    "mutatingadmissionpolicybindings.admissionregistration.k8s.io",
    "validatingwebhookconfigurations.admissionregistration.k8s.io",
    "mutatingwebhookconfigurations.admissionregistration.k8s.io",
]
KYVERNO_POLICIES = [
    "clusterpolicies.kyverno.io",
    "policies.kyverno.io",
    "policyexceptions.kyverno.io",
    "validatingpolicies.policies.kyverno.io",
    "namespacedvalidatingpolicies.policies.kyverno.io",
    "mutatingpolicies.policies.kyverno.io",
    "namespacedmutatingpolicies.policies.kyverno.io",
    "generatingpolicies.policies.kyverno.io",
    "namespacedgeneratingpolicies.policies.kyverno.io",
    "deletingpolicies.policies.kyverno.io",
    "namespaceddeletingpolicies.policies.kyverno.io",
    "imagevalidatingpolicies.policies.kyverno.io",
    "namespacedimagevalidatingpolicies.policies.kyverno.io",
    "policyexceptions.policies.kyverno.io",
]
POLICY_RESOURCES = ADMISSION_POLICIES + KYVERNO_POLICIES
CRDS = "customresourcedefinitions.apiextensions.k8s.io"
NAMESPACES = "namespaces"
# Objects a policy commonly acts on, and the usual param kind (ConfigMap). Never Secrets.
WORKLOADS = [
    "pods",
    "configmaps",
    "services",
    "serviceaccounts",
    "limitranges",
    "resourcequotas",
    "persistentvolumeclaims",
    "deployments.apps",
    "statefulsets.apps",
    "daemonsets.apps",
    "replicasets.apps",
    "jobs.batch",
    "cronjobs.batch",
    "ingresses.networking.k8s.io",
    "networkpolicies.networking.k8s.io",
    "roles.rbac.authorization.k8s.io",
    "rolebindings.rbac.authorization.k8s.io",
    "clusterroles.rbac.authorization.k8s.io",
    "clusterrolebindings.rbac.authorization.k8s.io",
]
DEFAULT_ALLOWED = [*POLICY_RESOURCES, CRDS, NAMESPACES, *WORKLOADS]
NEVER = frozenset({"secrets"})


def allowed_set(names: Iterable[str]) -> frozenset[str]:
    """The allow-list as lower-case `resource.group` names, without what is never read."""
    return frozenset(n.strip().lower() for n in names if n.strip()) - NEVER
