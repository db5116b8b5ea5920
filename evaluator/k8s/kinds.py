"""The kind names and API groups the engine reads, defined once.

Every module that recognises a document by its kind imports the name from here, so a kind's spelling (and
which group serves it) is written once. Kubernetes facts only: which engine package handles a kind is
decided by the policy packages themselves (`evaluator/policies/`).
"""

from __future__ import annotations

ADMISSION_GROUP = "admissionregistration.k8s.io"
APIEXTENSIONS_GROUP = "apiextensions.k8s.io"
KYVERNO_GROUP = "kyverno.io"
KYVERNO_POLICIES_GROUP = "policies.kyverno.io"

# admissionregistration.k8s.io
VALIDATING_POLICY = "ValidatingAdmissionPolicy"
VALIDATING_BINDING = "ValidatingAdmissionPolicyBinding"
MUTATING_POLICY = "MutatingAdmissionPolicy"
MUTATING_BINDING = "MutatingAdmissionPolicyBinding"
VALIDATING_WEBHOOK_CONFIGURATION = "ValidatingWebhookConfiguration"
MUTATING_WEBHOOK_CONFIGURATION = "MutatingWebhookConfiguration"

# The admission policy kinds the API server defaults and validates on create (admission/validation.py).
ADMISSION_POLICY_KINDS = frozenset({VALIDATING_POLICY, MUTATING_POLICY})
ADMISSION_BINDING_KINDS = frozenset({VALIDATING_BINDING, MUTATING_BINDING})
ADMISSION_KINDS = ADMISSION_POLICY_KINDS | ADMISSION_BINDING_KINDS

# apiextensions.k8s.io
CUSTOM_RESOURCE_DEFINITION = "CustomResourceDefinition"

# kyverno.io
KYVERNO_CLUSTER_POLICY = "ClusterPolicy"
KYVERNO_POLICY = "Policy"
KYVERNO_POLICY_KINDS = frozenset({KYVERNO_CLUSTER_POLICY, KYVERNO_POLICY})
POLICY_EXCEPTION = "PolicyException"

# policies.kyverno.io (Kyverno's CEL policy types; PolicyException is spelled as above)
KYVERNO_VALIDATING_POLICY = "ValidatingPolicy"
KYVERNO_NAMESPACED_VALIDATING_POLICY = "NamespacedValidatingPolicy"
KYVERNO_VALIDATING_POLICY_KINDS = frozenset({KYVERNO_VALIDATING_POLICY, KYVERNO_NAMESPACED_VALIDATING_POLICY})
KYVERNO_GENERATING_POLICY = "GeneratingPolicy"
KYVERNO_GENERATING_POLICY_KINDS = frozenset({KYVERNO_GENERATING_POLICY, "NamespacedGeneratingPolicy"})
KYVERNO_DELETING_POLICY = "DeletingPolicy"
KYVERNO_DELETING_POLICY_KINDS = frozenset({KYVERNO_DELETING_POLICY, "NamespacedDeletingPolicy"})
KYVERNO_MUTATING_POLICY = "MutatingPolicy"
KYVERNO_NAMESPACED_MUTATING_POLICY = "NamespacedMutatingPolicy"
KYVERNO_MUTATING_POLICY_KINDS = frozenset({KYVERNO_MUTATING_POLICY, KYVERNO_NAMESPACED_MUTATING_POLICY})

NAMESPACE = "Namespace"

# rbac.authorization.k8s.io: the authorizer's documents
RBAC_GROUP = "rbac.authorization.k8s.io"
RBAC_KINDS = frozenset({"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"})
