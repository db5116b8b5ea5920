"""A cluster object as a sample admission request: CREATE (the object as it would be sent: without what the API
server sets) or UPDATE (an AdmissionReview whose object and oldObject are both the stored object, to edit)."""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["sample_request", "OPERATIONS"]

OPERATIONS = ("CREATE", "UPDATE")
_SERVER_SET = ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink")


def sample_request(obj: dict, operation: str) -> dict[str, Any]:
    if operation not in OPERATIONS:
        raise ValueError(f"operation must be one of {', '.join(OPERATIONS)}, not {operation!r}")
    if operation == "UPDATE":
        return {
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "request": {"operation": "UPDATE", "object": copy.deepcopy(obj), "oldObject": copy.deepcopy(obj)},
        }
    created = {k: copy.deepcopy(v) for k, v in obj.items() if k != "status"}
    meta = created.get("metadata")
    if isinstance(meta, dict):
        created["metadata"] = {k: v for k, v in meta.items() if k not in _SERVER_SET}
    return created
