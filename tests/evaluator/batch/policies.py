"""Shared policy sets for the batch tests: admission policies, a Kyverno Enforce and an Audit policy."""

from __future__ import annotations

VAP = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replicas}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
  - {expression: "object.spec.replicas <= 5", message: too many replicas}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replicas-binding}
spec: {policyName: replicas, validationActions: [Deny]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: team-label}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
  - {expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", message: a team label is required}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: team-label-binding}
spec: {policyName: team-label, validationActions: [Warn]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: configmap-data}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - {expression: "object.data.size() < 10"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: configmap-data-binding}
spec: {policyName: configmap-data, validationActions: [Deny]}
"""

KYVERNO = """\
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: no-latest
  annotations: {policies.kyverno.io/category: Best Practices, policies.kyverno.io/severity: medium}
spec:
  validationFailureAction: Audit
  rules:
  - name: pin-images
    match: {any: [{resources: {kinds: [Deployment]}}]}
    validate:
      message: images must not use the latest tag
      pattern: {spec: {template: {spec: {containers: [{image: "!*:latest"}]}}}}
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: no-privileged-pods}
spec:
  validationFailureAction: Enforce
  rules:
  - name: privileged
    match: {any: [{resources: {kinds: [Pod]}}]}
    validate:
      message: privileged pods are not allowed
      pattern: {spec: {containers: [{"=(securityContext)": {"=(privileged)": "false"}}]}}
"""

DOCUMENTS = VAP + "---\n" + KYVERNO


def deployment(
    name: str, replicas: int, *, namespace: str = "default", team: bool = True, image: str = "web:1.0"
) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, **({"labels": {"team": "a"}} if team else {})},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": image}]},
            },
        },
    }


def pod(name: str, privileged: bool, namespace: str = "default") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"containers": [{"name": "c", "image": "busybox:1.36", "securityContext": {"privileged": privileged}}]},
    }


def mixed_objects(count: int) -> list[dict]:
    """A deterministic mix: denied, warned, audited, admitted Deployments; privileged and plain Pods; a
    cluster-scoped Namespace; a ConfigMap without data, on which a policy errs."""
    out: list[dict] = []
    for i in range(count):
        match i % 8:
            case 0:
                out.append(deployment(f"d{i}", 9, namespace="team-a"))
            case 1:
                out.append(deployment(f"d{i}", 1, team=False))
            case 2:
                out.append(deployment(f"d{i}", 2, image="web:latest", namespace="team-b"))
            case 3:
                out.append(pod(f"p{i}", True))
            case 4:
                out.append(pod(f"p{i}", False, namespace="team-a"))
            case 5:
                out.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"ns{i}"}})
            case 6:
                out.append(
                    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}", "namespace": "team-b"}}
                )
            case _:
                out.append(deployment(f"d{i}", 3))
    return out
