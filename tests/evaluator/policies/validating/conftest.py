"""Builders for small VAP scenarios: one policy, its bindings, a ConfigMap request in namespace `default`."""

from __future__ import annotations

import copy
from typing import Any

import pytest


class Builder:
    """Make policies, bindings and requests with only the fields a test cares about."""

    @staticmethod
    def policy(
        name: str = "p", *, validations: list | None = None, failure_policy: str | None = None, **spec: Any
    ) -> dict:
        body: dict[str, Any] = {
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": [""],
                        "apiVersions": ["v1"],
                        "operations": ["CREATE", "UPDATE", "DELETE"],
                        "resources": ["configmaps"],
                    }
                ]
            },
            "validations": validations if validations is not None else [],
        }
        if failure_policy:
            body["failurePolicy"] = failure_policy
        body.update(spec)
        return {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": body,
        }

    @staticmethod
    def binding(name: str = "b", policy: str = "p", actions: list | None = None, **spec: Any) -> dict:
        body = {"policyName": policy, "validationActions": actions or ["Deny"], **spec}
        return {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": name},
            "spec": body,
        }

    @staticmethod
    def configmap(name: str = "cm", namespace: str = "default", data: dict | None = None, **meta: Any) -> dict:
        return {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace, **meta},
            "data": data or {},
        }

    @staticmethod
    def namespace(name: str = "default", labels: dict | None = None, **extra: Any) -> dict:
        meta = {"name": name, **({"labels": labels} if labels else {}), **extra}
        return {"apiVersion": "v1", "kind": "Namespace", "metadata": meta}

    @staticmethod
    def create(obj: dict, **extra: Any) -> dict:
        return {"operation": "CREATE", "object": copy.deepcopy(obj), **extra}

    @staticmethod
    def tuples(result: dict, policy: str | None = None) -> list[dict]:
        return [r for r in result["policies"] if policy is None or r["policy"] == policy]


@pytest.fixture
def vap() -> Builder:
    return Builder()
