"""A `kubectl get -A -o yaml` dump holds no Namespace objects: every kind and every namespaceSelector must
then see each namespace as the result's warning says, existing with only its kubernetes.io/metadata.name
label, so the totals equal those of the same dump with its Namespace objects (whose other labels no
selector reads)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from evaluator.cli import main

NOT_SYSTEM = {
    "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kube-system"]}]
}
NON_ROOT = "has(object.spec.securityContext.runAsNonRoot) && object.spec.securityContext.runAsNonRoot"

POLICIES = [
    {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "vap-non-root"},
        "spec": {
            "matchConstraints": {
                "namespaceSelector": NOT_SYSTEM,
                "resourceRules": [
                    {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}
                ],
            },
            "validations": [{"expression": NON_ROOT, "message": "must run as non-root"}],
        },
    },
    {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "vap-non-root"},
        "spec": {
            "policyName": "vap-non-root",
            "validationActions": ["Deny"],
            "matchResources": {"namespaceSelector": NOT_SYSTEM},
        },
    },
    {
        "apiVersion": "kyverno.io/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": "kyverno-team-label"},
        "spec": {
            "validationFailureAction": "Enforce",
            "rules": [
                {
                    "name": "team-label",
                    "match": {"any": [{"resources": {"kinds": ["ConfigMap"], "namespaceSelector": NOT_SYSTEM}}]},
                    "validate": {
                        "message": "a team label is required",
                        "pattern": {"metadata": {"labels": {"team": "?*"}}},
                    },
                }
            ],
        },
    },
    {
        "apiVersion": "policies.kyverno.io/v1",
        "kind": "ValidatingPolicy",
        "metadata": {"name": "vpol-no-latest"},
        "spec": {
            "validationActions": ["Deny"],
            "matchConstraints": {
                "namespaceSelector": NOT_SYSTEM,
                "resourceRules": [
                    {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}
                ],
            },
            "validations": [
                {
                    "expression": "object.spec.containers.all(c, !c.image.endsWith(':latest'))",
                    "message": "no latest tag",
                }
            ],
        },
    },
]


def dump(count: int) -> tuple[list[dict], list[dict]]:
    """(objects, the Namespace objects of their namespaces): pods and config maps over ten team namespaces
    and kube-system, some breaking each policy."""
    objects: list[dict] = []
    names = [f"team-{i}" for i in range(10)] + ["kube-system"]
    for i in range(count):
        namespace = names[i % len(names)]
        if i % 2:
            pod_spec: dict = {"containers": [{"name": "c", "image": "nginx:latest" if i % 3 == 0 else "nginx:1.27"}]}
            if i % 5:
                pod_spec["securityContext"] = {"runAsNonRoot": True}
            objects.append(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": f"p{i}", "namespace": namespace},
                    "spec": pod_spec,
                }
            )
        else:
            labels = {"team": "a"} if i % 4 else {}
            meta = {"name": f"c{i}", "namespace": namespace, "labels": labels}
            objects.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {}})
    namespaces = [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": n, "labels": {"kubernetes.io/metadata.name": n, "owner": "platform"}},
        }
        for n in names
    ]
    return objects, namespaces


def _summary(tmp_path: Path, name: str, objects: list[dict], capsys) -> dict:
    (tmp_path / "p.yaml").write_text(yaml.safe_dump_all(POLICIES))
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objects}))
    main(["batch", "-f", str(tmp_path / "p.yaml"), "--objects", str(path), "-o", "json", "--no-progress"])
    return json.loads(capsys.readouterr().out)


def test_a_dump_without_namespace_objects_gives_the_totals_of_one_with_them(tmp_path, capsys):
    objects, namespaces = dump(400)
    without = _summary(tmp_path, "without.yaml", objects, capsys)
    with_them = _summary(tmp_path, "with.yaml", objects + namespaces, capsys)
    assert with_them["objects"] == without["objects"] + len(namespaces)
    assert with_them["kinds"].pop("Namespace")["denied"] == 0
    for key in ("denied", "warned", "audited", "errors", "policies", "kinds"):
        assert without[key] == with_them[key], key
    policies = without["policies"]
    # each policy denied exactly what breaks it outside kube-system, and nothing failed on a missing namespace
    assert without["errors"] == 0
    assert all(p["error"] == 0 and p["denied"] > 0 for p in policies.values()), policies
    expected_root = sum(
        1
        for o in objects
        if o["kind"] == "Pod" and o["metadata"]["namespace"] != "kube-system" and "securityContext" not in o["spec"]
    )
    assert policies["vap-non-root"]["denied"] == expected_root


def test_a_mutating_policy_and_binding_select_a_namespace_the_documents_do_not_hold():
    from evaluator.simulation import simulate

    rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}]
    selector = {"matchLabels": {"kubernetes.io/metadata.name": "team-1"}}
    label = "Object{metadata: Object.metadata{labels: {'seen': 'yes'}}}"
    documents = [
        {
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": "p"},
            "spec": {
                "matchConstraints": {"namespaceSelector": selector, "resourceRules": rules},
                "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": label}}],
            },
        },
        {
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingAdmissionPolicyBinding",
            "metadata": {"name": "b"},
            "spec": {"policyName": "p", "matchResources": {"namespaceSelector": selector}},
        },
    ]
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "team-1"}}
    result = simulate(documents, configmap)
    assert result["allowed"] is True, result["status"]
    assert result["patchedObject"]["metadata"]["labels"] == {"seen": "yes"}
    other = simulate(documents, dict(configmap, metadata={"name": "cm", "namespace": "team-2"}))
    assert other["allowed"] is True and not other["mutation"]["mutations"]
