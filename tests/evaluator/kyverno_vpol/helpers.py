"""Small builders for ValidatingPolicy documents and requests used by these tests."""

from __future__ import annotations

import copy


def policy(
    validations, *, name="p", kind="ValidatingPolicy", version="v1", resources=("pods",), group="", actions=None, **spec
):
    rule = {
        "apiGroups": [group],
        "apiVersions": ["v1"],
        "operations": ["CREATE", "UPDATE"],
        "resources": list(resources),
    }
    body = {"matchConstraints": {"resourceRules": [rule]}, "validations": validations, **spec}
    if actions is not None:
        body["validationActions"] = actions
    return {"apiVersion": f"policies.kyverno.io/{version}", "kind": kind, "metadata": {"name": name}, "spec": body}


def pod(name="web", namespace="default", labels=None, image="nginx:1.27"):
    meta = {"name": name, "namespace": namespace}
    if labels is not None:
        meta["labels"] = labels
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": {"containers": [{"name": "c", "image": image}]},
    }


def deployment(name="web", namespace="default", labels=None):
    template = copy.deepcopy(pod(name, namespace, labels))
    template["metadata"].pop("namespace")
    template["metadata"].pop("name")
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "selector": {"matchLabels": {}},
            "template": {"metadata": template["metadata"], "spec": template["spec"]},
        },
    }


def create(obj):
    return {"operation": "CREATE", "object": obj}
