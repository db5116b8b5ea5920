"""A seeded, realistic audit log and a policy change to replay it against: the corpus of the impact tests,
the bench (bench/impact_bench.py) and the compare page's sample.

`audit_events(count, seed)` yields `audit.k8s.io/v1` Events as the API server writes them at level
RequestResponse (a few at Metadata, which replay skips): creates, updates and patches of objects created
earlier (their old objects are the responses of earlier events), deletes, subresources (`deployments/scale`,
`pods/status`, `pods/eviction`, `pods/exec`), reads, dry runs and impersonation, by several users and
groups in several namespaces, one event per line (`audit_log_lines`). `policy_change()` is (base, head): the
head flips three policies from Audit to Deny (two ValidatingAdmissionPolicy bindings, one Kyverno
ClusterPolicy) and edits two expressions; the other policies are the same on both sides.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import Iterator
from typing import Any

__all__ = ["audit_events", "audit_log_lines", "policy_change"]

NAMESPACES = ("team-a", "team-b", "team-c", "payments", "web", "data", "kube-system")
USERS = (
    ("alice", ("dev", "team-a", "system:authenticated")),
    ("bob", ("dev", "team-b", "system:authenticated")),
    ("carol", ("sre", "platform-admins", "system:authenticated")),
    (
        "system:serviceaccount:ci:deployer",
        ("system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated"),
    ),
    ("system:serviceaccount:kube-system:replicaset-controller", ("system:serviceaccounts", "system:authenticated")),
)
IMAGES = ("nginx:1.27", "nginx:latest", "registry.example.com/api:v2", "redis:7", "busybox:latest", "postgres:16")
START = dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.UTC)

_VAP = "admissionregistration.k8s.io/v1"


def _vap(
    name: str, resources: list[str], groups: list[str], operations: list[str], validations: list[dict], **spec: Any
) -> dict:
    return {
        "apiVersion": _VAP,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {
                "resourceRules": [
                    {"apiGroups": groups, "apiVersions": ["*"], "operations": operations, "resources": resources}
                ]
            },
            "validations": validations,
            **spec,
        },
    }


def _binding(name: str, actions: list[str]) -> dict:
    return {
        "apiVersion": _VAP,
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": name},
        "spec": {"policyName": name, "validationActions": actions},
    }


def _kyverno_privileged(action: str) -> dict:
    return {
        "apiVersion": "kyverno.io/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": "disallow-privileged"},
        "spec": {
            "validationFailureAction": action,
            "background": True,
            "rules": [
                {
                    "name": "privileged-containers",
                    "match": {"any": [{"resources": {"kinds": ["Pod"]}}]},
                    "validate": {
                        "message": "Privileged mode is disallowed.",
                        "pattern": {"spec": {"containers": [{"=(securityContext)": {"=(privileged)": "false"}}]}},
                    },
                }
            ],
        },
    }


def policy_change() -> tuple[list[dict], list[dict]]:
    """(base, head) policy documents."""
    team_label = [
        {
            "expression": "has(object.metadata.labels) && 'team' in object.metadata.labels",
            "message": "every workload needs a team label",
        }
    ]
    latest = [
        {
            "expression": "object.spec.template.spec.containers.all(c, !c.image.endsWith(':latest'))",
            "message": "images must not use the latest tag",
        }
    ]
    replicas_base = [
        {
            "expression": "object.spec.replicas <= 10",
            "messageExpression": "'at most 10 replicas, not ' + string(object.spec.replicas)",
        }
    ]
    replicas_head = [
        {
            "expression": "object.spec.replicas <= 6",
            "messageExpression": "'at most 6 replicas, not ' + string(object.spec.replicas)",
        }
    ]
    cm_base = [{"expression": "!has(object.data) || object.data.size() <= 8", "message": "too many keys"}]
    cm_head = [{"expression": "!has(object.data) || object.data.size() <= 4", "message": "too many keys"}]
    protect = [
        {
            "expression": "request.userInfo.groups.exists(g, g == 'platform-admins' || g == 'system:serviceaccounts')",
            "message": "only platform admins delete in kube-system",
        }
    ]
    scale = [{"expression": "object.spec.replicas <= 20", "message": "scale at most to 20"}]
    no_exec = [
        {
            "expression": "!object.command.exists(c, c == 'sh' || c == 'bash') || request.userInfo.groups.exists(g, g == 'sre')",
            "message": "interactive shells are for SRE",
        }
    ]
    common = [
        _vap(
            "protect-kube-system",
            ["*"],
            ["*"],
            ["DELETE"],
            protect,
            matchConditions=[{"name": "kube-system", "expression": "request.namespace == 'kube-system'"}],
        ),
        _binding("protect-kube-system", ["Deny"]),
        _vap("scale-limit", ["deployments/scale"], ["apps"], ["UPDATE"], scale),
        _binding("scale-limit", ["Deny"]),
        _vap("no-shell", ["pods/exec"], [""], ["CONNECT"], no_exec),
        _binding("no-shell", ["Warn"]),
    ]
    base = [
        _vap("require-team-label", ["deployments"], ["apps"], ["CREATE", "UPDATE"], team_label),
        _binding("require-team-label", ["Audit"]),
        _vap("no-latest-tag", ["deployments"], ["apps"], ["CREATE", "UPDATE"], latest),
        _binding("no-latest-tag", ["Audit"]),
        _vap("replica-limit", ["deployments"], ["apps"], ["CREATE", "UPDATE"], replicas_base),
        _binding("replica-limit", ["Deny"]),
        _vap("configmap-keys", ["configmaps"], [""], ["CREATE", "UPDATE"], cm_base),
        _binding("configmap-keys", ["Deny"]),
        _kyverno_privileged("Audit"),
        *common,
    ]
    head = [
        _vap("require-team-label", ["deployments"], ["apps"], ["CREATE", "UPDATE"], team_label),
        _binding("require-team-label", ["Deny"]),
        _vap("no-latest-tag", ["deployments"], ["apps"], ["CREATE", "UPDATE"], latest),
        _binding("no-latest-tag", ["Deny"]),
        _vap("replica-limit", ["deployments"], ["apps"], ["CREATE", "UPDATE"], replicas_head),
        _binding("replica-limit", ["Deny"]),
        _vap("configmap-keys", ["configmaps"], [""], ["CREATE", "UPDATE"], cm_head),
        _binding("configmap-keys", ["Deny"]),
        _kyverno_privileged("Enforce"),
        *common,
    ]
    return base, head


class _Cluster:
    """The objects the log has created so far, by kind, so updates and deletes name real ones."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.objects: dict[str, dict[tuple[str, str], dict]] = {"deployments": {}, "configmaps": {}, "pods": {}}
        self.serial = 0

    def name(self, prefix: str) -> str:
        self.serial += 1
        return f"{prefix}-{self.serial}"

    def deployment(self, namespace: str, name: str) -> dict:
        rng = self.rng
        labels = {"app": name}
        if rng.random() < 0.8:
            labels["team"] = namespace
        containers = [{"name": "main", "image": rng.choice(IMAGES), "ports": [{"containerPort": 8080}]}]
        if rng.random() < 0.3:
            containers.append({"name": "sidecar", "image": rng.choice(IMAGES)})
        return {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": namespace, "labels": labels, "uid": f"uid-{name}"},
            "spec": {
                "replicas": rng.choice((1, 2, 3, 3, 4, 5, 8, 12)),
                "selector": {"matchLabels": {"app": name}},
                "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": containers}},
            },
        }

    def configmap(self, namespace: str, name: str) -> dict:
        keys = self.rng.choice((1, 2, 3, 5, 6, 10))
        return {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}"},
            "data": {f"key{i}": f"value{i}" for i in range(keys)},
        }

    def pod(self, namespace: str, name: str) -> dict:
        container: dict[str, Any] = {"name": "main", "image": self.rng.choice(IMAGES)}
        if self.rng.random() < 0.1:
            container["securityContext"] = {"privileged": True}
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}"},
            "spec": {"containers": [container]},
        }


_RESOURCES = {"deployments": ("apps", "v1", "deploy"), "configmaps": ("", "v1", "cm"), "pods": ("", "v1", "pod")}


def _uri(resource: str, namespace: str, name: str = "", sub: str = "", query: str = "") -> str:
    group, version, _ = _RESOURCES.get(resource, ("", "v1", ""))
    base = f"/apis/{group}/{version}" if group else f"/api/{version}"
    path = f"{base}/namespaces/{namespace}/{resource}" + (f"/{name}" if name else "") + (f"/{sub}" if sub else "")
    return path + (f"?{query}" if query else "")


def audit_events(count: int, seed: int = 35) -> Iterator[dict]:
    """`count` events, the same for the same seed."""
    rng = random.Random(seed)
    cluster = _Cluster(rng)
    for serial in range(count):
        when = START + dt.timedelta(seconds=serial * 3 + rng.random())
        yield _event(rng, cluster, serial, when)


def audit_log_lines(count: int, seed: int = 35) -> Iterator[str]:
    """The events as the log file's lines (JSON, one per line, with its newline)."""
    for event in audit_events(count, seed):
        yield json.dumps(event, separators=(",", ":")) + "\n"


def _event(rng: random.Random, cluster: _Cluster, serial: int, when: dt.datetime) -> dict:
    username, groups = rng.choice(USERS)
    roll = rng.random()
    resource = rng.choice(("deployments", "deployments", "configmaps", "pods"))
    existing = cluster.objects[resource]
    event: dict[str, Any] = {
        "kind": "Event",
        "apiVersion": "audit.k8s.io/v1",
        "level": "RequestResponse",
        "auditID": f"{serial:08d}-6f1c-4c4e-9a57-2d2f7f2c9b10",
        "stage": "ResponseComplete",
        "user": {"username": username, "groups": list(groups)},
        "sourceIPs": ["10.0.0.7"],
        "userAgent": "kubectl/v1.33.0",
        "responseStatus": {"metadata": {}, "code": 200},
        "requestReceivedTimestamp": when.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "stageTimestamp": (when + dt.timedelta(milliseconds=12)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "annotations": {"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": ""},
    }
    if rng.random() < 0.02:
        event["impersonatedUser"] = {"username": "dave", "groups": ["dev", "team-c", "system:authenticated"]}
    group, version, prefix = _RESOURCES[resource]
    if roll < 0.35 or len(existing) < 5:
        return _create(rng, cluster, event, resource, prefix)
    key = rng.choice(list(existing))
    namespace, name = key
    obj = existing[key]
    ref = {"resource": resource, "namespace": namespace, "name": name, "apiGroup": group, "apiVersion": version}
    event["objectRef"] = ref
    if roll < 0.55:
        return _update(rng, cluster, event, resource, obj)
    if roll < 0.63:
        return _patch(rng, event, resource, obj)
    if roll < 0.70:
        event.update(verb="delete", requestURI=_uri(resource, namespace, name), responseObject=obj)
        event["requestObject"] = {
            "kind": "DeleteOptions",
            "apiVersion": "meta.k8s.io/v1",
            "propagationPolicy": "Background",
        }
        if namespace != "kube-system" or any(g in ("platform-admins", "system:serviceaccounts") for g in groups):
            del existing[key]
        return event
    if roll < 0.85:
        return _subresource(rng, event, resource, obj)
    if roll < 0.97:
        event.update(
            verb="get",
            level="Metadata" if rng.random() < 0.5 else "RequestResponse",
            requestURI=_uri(resource, namespace, name),
        )
        if event["level"] == "RequestResponse":
            event["responseObject"] = obj
        return event
    event.update(verb="update", level="Metadata", requestURI=_uri(resource, namespace, name))  # no body: skipped
    return event


def _create(rng: random.Random, cluster: _Cluster, event: dict, resource: str, prefix: str) -> dict:
    namespace = rng.choice(NAMESPACES)
    name = cluster.name(prefix)
    obj = getattr(cluster, resource[:-1])(namespace, name)
    group, version, _ = _RESOURCES[resource]
    dry = rng.random() < 0.03
    event.update(
        verb="create",
        requestURI=_uri(resource, namespace, query="dryRun=All" if dry else "fieldManager=kubectl-client-side-apply"),
        objectRef={
            "resource": resource,
            "namespace": namespace,
            "name": name,
            "apiGroup": group,
            "apiVersion": version,
        },
        requestObject=obj,
        responseObject=obj,
        responseStatus={"metadata": {}, "code": 201},
    )
    if not dry:
        cluster.objects[resource][(namespace, name)] = obj
    return event


def _update(rng: random.Random, cluster: _Cluster, event: dict, resource: str, obj: dict) -> dict:
    new = json.loads(json.dumps(obj))
    meta = new["metadata"]
    if resource == "deployments":
        new["spec"]["replicas"] = rng.choice((1, 2, 4, 6, 7, 9, 11))
        if rng.random() < 0.3:
            new["spec"]["template"]["spec"]["containers"][0]["image"] = rng.choice(IMAGES)
        if rng.random() < 0.2:
            meta.setdefault("labels", {})["team"] = meta["namespace"]
    elif resource == "configmaps":
        new["data"] = {f"key{i}": f"v{i}" for i in range(rng.choice((1, 3, 5, 7, 9)))}
    else:
        new.setdefault("metadata", {}).setdefault("labels", {})["touched"] = "yes"
    event.update(
        verb="update", requestURI=_uri(resource, meta["namespace"], meta["name"]), requestObject=new, responseObject=new
    )
    cluster.objects[resource][(meta["namespace"], meta["name"])] = new
    return event


def _patch(rng: random.Random, event: dict, resource: str, obj: dict) -> dict:
    meta = obj["metadata"]
    patch = {"metadata": {"annotations": {"patched-at": event["requestReceivedTimestamp"]}}}
    patched = json.loads(json.dumps(obj))
    patched["metadata"]["annotations"] = {"patched-at": event["requestReceivedTimestamp"]}
    event.update(verb="patch", requestURI=_uri(resource, meta["namespace"], meta["name"]), requestObject=patch)
    if rng.random() < 0.5:
        event["responseObject"] = patched  # else a Request-level patch: applied to the old object
    else:
        event["level"] = "Request"
    obj["metadata"] = patched["metadata"]
    return event


def _subresource(rng: random.Random, event: dict, resource: str, obj: dict) -> dict:
    meta = obj["metadata"]
    namespace, name = meta["namespace"], meta["name"]
    ref = event["objectRef"]
    if resource == "deployments":
        replicas = rng.choice((2, 5, 15, 25))
        scale = {
            "apiVersion": "autoscaling/v1",
            "kind": "Scale",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"replicas": replicas},
        }
        ref["subresource"] = "scale"
        event.update(
            verb="update",
            requestURI=_uri(resource, namespace, name, "scale"),
            requestObject=scale,
            responseObject=scale,
        )
        return event
    if resource == "pods":
        choice = rng.random()
        if choice < 0.4:
            status = json.loads(json.dumps(obj))
            status["status"] = {"phase": rng.choice(("Pending", "Running"))}
            ref["subresource"] = "status"
            event.update(
                verb="update",
                requestURI=_uri("pods", namespace, name, "status"),
                requestObject=status,
                responseObject=status,
            )
            return event
        if choice < 0.7:
            command = rng.choice((("sh",), ("ls", "-l"), ("bash", "-c", "env")))
            query = "&".join(f"command={c}" for c in command) + "&container=main&stdin=true&tty=true"
            ref["subresource"] = "exec"
            event.update(
                verb="create",
                requestURI=_uri("pods", namespace, name, "exec", query),
                responseStatus={"metadata": {}, "code": 101},
            )
            return event
        eviction = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": namespace}}
        ref["subresource"] = "eviction"
        event.update(
            verb="create",
            requestURI=_uri("pods", namespace, name, "eviction"),
            requestObject=eviction,
            responseStatus={"metadata": {}, "code": 201},
        )
        return event
    return _update(rng, _Cluster(rng), event, resource, obj)
