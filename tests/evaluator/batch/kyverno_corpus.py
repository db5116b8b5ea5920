"""A seeded corpus of Pods, Deployments, StatefulSets and Services in 35 namespaces, and a policy set of 20
kyverno/policies policies (tests/data/kyverno-policies) and 3 ValidatingAdmissionPolicies: what
bench/kyverno_batch_bench.py measures, and what test_kyverno_batch_identity.py checks against the digests the
engine gave before it was compiled (kyverno_digests.json)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[3]

POLICIES = [
    "pod-security/baseline/disallow-capabilities",
    "pod-security/baseline/disallow-host-namespaces",
    "pod-security/baseline/disallow-host-path",
    "pod-security/baseline/disallow-host-ports",
    "pod-security/baseline/disallow-host-process",
    "pod-security/baseline/disallow-privileged-containers",
    "pod-security/baseline/disallow-proc-mount",
    "pod-security/baseline/disallow-selinux",
    "pod-security/baseline/restrict-apparmor-profiles",
    "pod-security/baseline/restrict-seccomp",
    "pod-security/baseline/restrict-sysctls",
    "pod-security/restricted/disallow-capabilities-strict",
    "pod-security/restricted/disallow-privilege-escalation",
    "pod-security/restricted/require-run-as-non-root-user",
    "pod-security/restricted/require-run-as-nonroot",
    "pod-security/restricted/restrict-seccomp-strict",
    "pod-security/restricted/restrict-volume-types",
    "best-practices/disallow-latest-tag",
    "best-practices/require-pod-requests-limits",
    "best-practices/require-probes",
]

_WORKLOADS = [
    {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["deployments"]},
    {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["statefulsets"]},
]
_SERVICES = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["services"]}]
_VAPS = [
    ("replica-limit", _WORKLOADS, [{"expression": "object.spec.replicas <= 5", "message": "at most 5 replicas"}]),
    (
        "require-team-label",
        _WORKLOADS,
        [{"expression": "has(object.metadata.labels) && 'team' in object.metadata.labels", "message": "team label"}],
    ),
    (
        "no-nodeport",
        _SERVICES,
        [{"expression": "!has(object.spec.type) || object.spec.type != 'NodePort'", "message": "no NodePort"}],
    ),
]


def vaps() -> list[dict]:
    out: list[dict] = []
    for name, rules, validations in _VAPS:
        out.append(
            {
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingAdmissionPolicy",
                "metadata": {"name": name},
                "spec": {"matchConstraints": {"resourceRules": rules}, "validations": validations},
            }
        )
        out.append(
            {
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "ValidatingAdmissionPolicyBinding",
                "metadata": {"name": f"{name}-binding"},
                "spec": {"policyName": name, "validationActions": ["Deny"]},
            }
        )
    return out


def kyverno_policies() -> list[dict]:
    folder = ROOT / "tests" / "data" / "kyverno-policies"
    out: list[dict] = []
    for path in POLICIES:
        name = path.rsplit("/", 1)[1]
        out += [d for d in yaml.safe_load_all((folder / path / f"{name}.yaml").read_text()) if d]
    return out


def policy_set() -> list[dict]:
    return kyverno_policies() + vaps()


def _container(rng: random.Random, name: str) -> dict[str, Any]:
    registry = rng.choice(["docker.io/", "ghcr.io/acme/", "", "quay.io/org/", "registry.k8s.io/"])
    tag = rng.choice(["latest", "1.2.3", "v2", "", "stable"])
    container: dict[str, Any] = {"name": name, "image": f"{registry}app-{rng.randrange(40)}{':' + tag if tag else ''}"}
    if rng.random() < 0.6:
        container["resources"] = {
            "requests": {"cpu": f"{rng.choice([50, 100, 250])}m", "memory": f"{rng.choice([64, 128])}Mi"},
            "limits": {"memory": f"{rng.choice([128, 256])}Mi"},
        }
    if rng.random() < 0.5:
        container["livenessProbe"] = {"httpGet": {"path": "/healthz", "port": 8080}}
        container["readinessProbe"] = {"tcpSocket": {"port": 8080}}
    security: dict[str, Any] = {}
    roll = rng.random()
    if roll < 0.1:
        security["privileged"] = True
    elif roll < 0.5:
        security.update(
            runAsNonRoot=True,
            allowPrivilegeEscalation=False,
            capabilities={"drop": ["ALL"]},
            seccompProfile={"type": "RuntimeDefault"},
        )
    elif roll < 0.6:
        security["capabilities"] = {"add": [rng.choice(["NET_ADMIN", "SYS_TIME", "CHOWN"])]}
    elif roll < 0.65:
        security["runAsUser"] = 0
    if security:
        container["securityContext"] = security
    if rng.random() < 0.2:
        container["ports"] = [{"containerPort": 8080, **({"hostPort": 8080} if rng.random() < 0.3 else {})}]
    return container


def _pod_spec(rng: random.Random) -> dict[str, Any]:
    containers = [_container(rng, "app")]
    if rng.random() < 0.3:
        containers.append(_container(rng, "sidecar"))
    spec: dict[str, Any] = {"containers": containers}
    if rng.random() < 0.2:
        spec["initContainers"] = [_container(rng, "init")]
    volumes: list[dict] = [{"name": "token", "projected": {"sources": []}}]
    roll = rng.random()
    if roll < 0.1:
        volumes.append({"name": "host", "hostPath": {"path": "/var/log"}})
    elif roll < 0.4:
        volumes.append({"name": "scratch", "emptyDir": {}})
    elif roll < 0.5:
        volumes.append({"name": "cfg", "configMap": {"name": "cfg"}})
    spec["volumes"] = volumes
    if rng.random() < 0.05:
        spec["hostNetwork"] = True
    if rng.random() < 0.3:
        spec["securityContext"] = {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}
    return spec


def objects(count: int, seed: int = 20) -> list[dict]:
    """`count` objects: Pods, Deployments, StatefulSets, Services in 35 namespaces (seeded)."""
    rng = random.Random(seed)
    namespaces = [f"ns-{i:02d}" for i in range(35)]
    out: list[dict] = []
    for i in range(count):
        namespace = rng.choice(namespaces)
        labels = {"app": f"app-{i % 50}"}
        if rng.random() < 0.5:
            labels["team"] = rng.choice(["a", "b", "c"])
        kind = rng.choices(["Pod", "Deployment", "StatefulSet", "Service"], weights=[4, 3, 1, 2])[0]
        meta = {"name": f"{kind.lower()}-{i}", "namespace": namespace, "labels": labels}
        if kind == "Pod":
            out.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": _pod_spec(rng)})
        elif kind == "Service":
            spec: dict[str, Any] = {"selector": {"app": labels["app"]}, "ports": [{"port": 80, "targetPort": 8080}]}
            if rng.random() < 0.2:
                spec["type"] = "NodePort"
            out.append({"apiVersion": "v1", "kind": "Service", "metadata": meta, "spec": spec})
        else:
            template = {"metadata": {"labels": {"app": labels["app"]}}, "spec": _pod_spec(rng)}
            spec = {"replicas": rng.randrange(1, 8), "selector": {"matchLabels": {"app": labels["app"]}}}
            spec["template"] = template
            if kind == "StatefulSet":
                spec["serviceName"] = labels["app"]
            out.append({"apiVersion": "apps/v1", "kind": kind, "metadata": meta, "spec": spec})
    return out


MUTATE = [
    "add-labels",
    "add-node-affinity",
    "add-safe-to-evict",
    "replace-image-registry",
    "add-default-resources",
    "remove-hostpath-volumes",
    "add-imagepullsecrets",
    "add-default-securitycontext",
    "always-pull-images",
    "add-tolerations",
]


def mutate_policies() -> list[dict]:
    folder = ROOT / "tests" / "data" / "kyverno-mutate"
    return [d for name in MUTATE for d in yaml.safe_load_all((folder / name / f"{name}.yaml").read_text()) if d]


def digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=repr).encode()).hexdigest()[:16]
