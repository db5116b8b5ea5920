"""rbac.authorization.k8s.io/v1 defaulting (pkg/apis/rbac/v1/defaults.go): the roleRef's apiGroup, and each
subject's apiGroup by kind (ServiceAccount: the core group "", User and Group: rbac.authorization.k8s.io)."""

from __future__ import annotations

from evaluator.k8s.defaulting.fields import Recorder, child, is_zero_string, items

RBAC_GROUP = "rbac.authorization.k8s.io"


def _binding(obj: dict, rec: Recorder) -> None:
    role_ref = child(obj, "roleRef")
    if role_ref is not None and is_zero_string(role_ref.get("apiGroup")):
        rec.set(role_ref, "apiGroup", RBAC_GROUP, "roleRef.")
    for i, subject in items(obj, "subjects"):
        if is_zero_string(subject.get("apiGroup")) and subject.get("kind") in ("User", "Group"):
            rec.set(subject, "apiGroup", RBAC_GROUP, f"subjects[{i}].")


DEFAULTERS = {"RoleBinding": _binding, "ClusterRoleBinding": _binding}
