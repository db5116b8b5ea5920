"""Shared pieces of the converters: which objects are cluster state (documents) and which are requests, the
names a project gives them, and object texts."""

from __future__ import annotations

from typing import Any

from evaluator.formats.bounded_yaml import dump, load_all

# Kinds that describe the cluster a request meets (policies, bindings, their params' namespaces, RBAC,
# CRDs); any other object in a bundle is a request to decide.
CLUSTER_KINDS = {
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
    "CustomResourceDefinition",
    "Namespace",
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
}
POLICY_GROUPS = ("kyverno.io/", "policies.kyverno.io/", "admissionregistration.k8s.io/")


def is_object(doc: Any) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("kind"), str) and isinstance(doc.get("apiVersion"), str)


def is_cluster_state(doc: dict, param_names: set[str] = frozenset()) -> bool:  # type: ignore[assignment]
    return (
        doc.get("kind") in CLUSTER_KINDS
        or str(doc.get("apiVersion")).startswith(POLICY_GROUPS)
        or (doc.get("metadata") or {}).get("name") in param_names
    )


def param_names(docs: list[dict]) -> set[str]:
    """Names bindings give as their param (those objects are cluster state, not requests)."""
    names = set()
    for doc in docs:
        if doc.get("kind") in ("ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicyBinding"):
            name = ((doc.get("spec") or {}).get("paramRef") or {}).get("name")
            if name:
                names.add(name)
    return names


def expand_lists(docs: list[Any]) -> list[Any]:
    """`kubectl get -o yaml` gives a List (kind: List or FooList) with items: each item is one object."""
    out = []
    for doc in docs:
        if isinstance(doc, dict) and str(doc.get("kind", "")).endswith("List") and isinstance(doc.get("items"), list):
            out.extend(expand_lists(doc["items"]))
        else:
            out.append(doc)
    return out


def object_key(doc: dict) -> str:
    meta = doc.get("metadata") or {}
    return "/".join(str(p) for p in (meta.get("namespace"), meta.get("name")) if p)


def document_name(doc: dict) -> str:
    return f"{str(doc.get('kind', 'object')).lower()}: {object_key(doc)}"


def request_name(doc: dict) -> str:
    return f"CREATE {doc.get('kind')} {object_key(doc)}"


def object_text(doc: Any) -> str:
    return dump(doc)


def objects_of(text: str, source: str) -> list[Any]:
    return expand_lists(load_all(text, source))


def plain_object(text: str, source: str) -> dict | None:
    """The object a request text holds when it is one plain Kubernetes object (not an AdmissionReview)."""
    try:
        docs = load_all(text, source)
    except ValueError:
        return None
    if len(docs) == 1 and is_object(docs[0]) and docs[0].get("kind") not in ("AdmissionReview",):
        return docs[0]
    return None
