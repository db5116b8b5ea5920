"""Objects of every defaulted kind, and variants of each with one field made null, absent or of a wrong type,
for checking a faster defaulting against what the original one gave (digests in defaulting_digests.json)."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterator
from typing import Any

_PROBE = {
    "httpGet": {"port": 8080},
    "grpc": {"port": 9090},
    "exec": {"command": ["true"]},
    "initialDelaySeconds": 3,
    "periodSeconds": 0,
}

_CONTAINER = {
    "name": "main",
    "image": "nginx",
    "ports": [{"containerPort": 80}, {"containerPort": 53, "protocol": "UDP", "hostPort": 0}],
    "env": [
        {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
        {"name": "PLAIN", "value": "1"},
        {"name": "KEY", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
    ],
    "livenessProbe": _PROBE,
    "readinessProbe": {"httpGet": {"port": 80, "path": "", "scheme": None}, "timeoutSeconds": 5},
    "startupProbe": {"tcpSocket": {"port": 80}},
    "lifecycle": {"postStart": {"httpGet": {"port": 80}}, "preStop": {"exec": {"command": ["sleep", "5"]}}},
    "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": "100m"}},
    "securityContext": {"runAsNonRoot": True, "capabilities": {"drop": ["ALL"]}},
}

_VOLUMES = [
    {"name": "none"},
    {"name": "secret", "secret": {"secretName": "s"}},
    {"name": "cm", "configMap": {"name": "c", "defaultMode": 0o600}},
    {"name": "dapi", "downwardAPI": {"items": [{"path": "l", "fieldRef": {"fieldPath": "metadata.labels"}}]}},
    {
        "name": "projected",
        "projected": {
            "sources": [
                {"downwardAPI": {"items": [{"path": "n", "fieldRef": {"fieldPath": "metadata.name"}}]}},
                {"serviceAccountToken": {"path": "token"}},
                {"secret": {"name": "s"}},
            ]
        },
    },
    {"name": "host", "hostPath": {"path": "/data"}},
    {"name": "iscsi", "iscsi": {"targetPortal": "1.2.3.4", "iqn": "iqn", "lun": 0}},
    {"name": "rbd", "rbd": {"monitors": ["m"], "image": "i", "pool": ""}},
    {"name": "scaleio", "scaleIO": {"gateway": "g", "system": "s", "secretRef": {"name": "s"}}},
    {"name": "azure", "azureDisk": {"diskName": "d", "diskURI": "u"}},
    {"name": "eph", "ephemeral": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"]}}}},
    {"name": "image", "image": {"reference": "registry.example/data:latest"}},
    {"name": "empty", "emptyDir": {}},
]

_POD_SPEC = {
    "volumes": _VOLUMES,
    "initContainers": [{"name": "init", "image": "busybox:1.36", "resources": {"limits": {"cpu": "1"}}}],
    "containers": [_CONTAINER, {"name": "side", "image": "app@sha256:" + "a" * 64, "imagePullPolicy": ""}],
    "ephemeralContainers": [{"name": "debug", "image": "busybox"}],
}

_META = {"name": "x", "namespace": "default", "labels": {"app": "x"}}
_TEMPLATE = {"metadata": {"labels": {"app": "x"}}, "spec": _POD_SPEC}


def base_objects() -> dict[str, dict]:
    """One object per case: every registered kind, the workloads with their pod templates."""
    return {
        "deployment": {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": _META,
            "spec": {"selector": {"matchLabels": {"app": "x"}}, "template": _TEMPLATE},
        },
        "deployment-small": {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": _META,
            "spec": {
                "replicas": 0,
                "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}},
                "template": {"spec": {"containers": [{"name": "c", "image": "app:1"}]}},
            },
        },
        "deployment-recreate": {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "spec": {"strategy": {"type": "Recreate"}, "revisionHistoryLimit": 0},
        },
        "daemonset": {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": _META,
            "spec": {"updateStrategy": {"rollingUpdate": {}}, "template": _TEMPLATE},
        },
        "statefulset": {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": _META,
            "spec": {
                "serviceName": "db",
                "template": {
                    "spec": {"containers": [{"name": "db", "image": "postgres:16", "ports": [{"containerPort": 5432}]}]}
                },
                "volumeClaimTemplates": [
                    {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"]}},
                    {"metadata": {"name": "logs"}, "spec": {"volumeMode": "Block"}, "status": {}},
                ],
            },
        },
        "statefulset-ondelete": {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "spec": {
                "updateStrategy": {"type": "OnDelete"},
                "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete"},
            },
        },
        "statefulset-rolling": {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "spec": {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 2}}},
        },
        "replicaset": {"apiVersion": "apps/v1", "kind": "ReplicaSet", "spec": {"template": _TEMPLATE}},
        "job": {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "spec": {
                "podFailurePolicy": {
                    "rules": [
                        {
                            "action": "Ignore",
                            "onPodConditions": [{"type": "DisruptionTarget"}, {"type": "X", "status": "False"}],
                        }
                    ]
                },
                "template": {
                    "metadata": {"labels": {"job": "j"}},
                    "spec": {"restartPolicy": "Never", "containers": [_CONTAINER]},
                },
            },
        },
        "job-indexed": {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "j", "labels": {}},
            "spec": {
                "parallelism": 3,
                "backoffLimitPerIndex": 1,
                "completionMode": "Indexed",
                "template": {"metadata": {"labels": {"a": "b"}}},
            },
        },
        "cronjob": {
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "metadata": _META,
            "spec": {
                "schedule": "* * * * *",
                "jobTemplate": {
                    "spec": {
                        "podFailurePolicy": {"rules": [{"onPodConditions": [{"type": "A"}]}]},
                        "template": {"spec": {"containers": [{"name": "c", "image": "busybox:latest"}]}},
                    }
                },
            },
        },
        "cronjob-empty": {"apiVersion": "batch/v1", "kind": "CronJob"},
        "pod": {"apiVersion": "v1", "kind": "Pod", "metadata": _META, "spec": _POD_SPEC},
        "pod-hostnetwork": {
            "apiVersion": "v1",
            "kind": "Pod",
            "spec": {
                "hostNetwork": True,
                "enableServiceLinks": False,
                "containers": [
                    {"name": "c", "image": "c", "ports": [{"containerPort": 80}, {"containerPort": 81, "hostPort": 9}]}
                ],
                "initContainers": [
                    {"name": "i", "image": "i", "ports": [{"containerPort": 70}, {"name": "no-container-port"}]}
                ],
            },
        },
        "podtemplate": {"apiVersion": "v1", "kind": "PodTemplate", "metadata": _META, "template": _TEMPLATE},
        "replicationcontroller": {
            "apiVersion": "v1",
            "kind": "ReplicationController",
            "metadata": {"name": "rc"},
            "spec": {"template": _TEMPLATE},
        },
        "replicationcontroller-notemplate": {
            "apiVersion": "v1",
            "kind": "ReplicationController",
            "spec": {"replicas": 2},
        },
        "service": {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": _META,
            "spec": {
                "ports": [{"port": 80}, {"port": 443, "targetPort": "https", "protocol": "TCP"}, {"name": "no-port"}]
            },
        },
        "service-clientip": {
            "apiVersion": "v1",
            "kind": "Service",
            "spec": {"sessionAffinity": "ClientIP", "type": "LoadBalancer", "sessionAffinityConfig": {"clientIP": {}}},
        },
        "service-none-config": {
            "apiVersion": "v1",
            "kind": "Service",
            "spec": {"type": "NodePort", "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 5}}},
        },
        "service-externalips": {
            "apiVersion": "v1",
            "kind": "Service",
            "spec": {"type": "ClusterIP", "externalIPs": ["1.2.3.4"], "ports": [{"port": 80, "targetPort": 0}]},
        },
        "service-external-name": {"apiVersion": "v1", "kind": "Service", "spec": {"type": "ExternalName"}},
        "secret": {"apiVersion": "v1", "kind": "Secret", "metadata": _META, "data": {}},
        "configmap": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": _META},
        "pvc": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "spec": {"accessModes": ["ReadWriteOnce"]}},
        "pv": {"apiVersion": "v1", "kind": "PersistentVolume", "spec": {"hostPath": {"path": "/p"}}},
        "namespace": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team", "labels": {"a": "b"}}},
        "namespace-relabel": {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": "team", "labels": {"kubernetes.io/metadata.name": "other"}},
            "status": {"phase": "Terminating"},
        },
        "endpoints": {
            "apiVersion": "v1",
            "kind": "Endpoints",
            "subsets": [{"addresses": [{"ip": "1.1.1.1"}], "ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}]}],
        },
        "limitrange": {
            "apiVersion": "v1",
            "kind": "LimitRange",
            "spec": {
                "limits": [
                    {
                        "type": "Container",
                        "max": {"cpu": "2", "memory": "1Gi"},
                        "min": {"cpu": "100m"},
                        "default": {"memory": "512Mi"},
                    },
                    {"type": "Pod", "max": {"cpu": "4"}},
                ]
            },
        },
        "networkpolicy": {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "spec": {
                "podSelector": {},
                "ingress": [{"ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}]}],
                "egress": [{"ports": [{"port": 443}]}],
            },
        },
        "networkpolicy-ingress-only": {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "spec": {}},
        "ingressclass": {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "IngressClass",
            "spec": {"controller": "c", "parameters": {"kind": "K", "name": "n"}},
        },
        "rolebinding": {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "roleRef": {"kind": "Role", "name": "r"},
            "subjects": [
                {"kind": "User", "name": "u"},
                {"kind": "ServiceAccount", "name": "sa"},
                {"kind": "Group", "name": "g", "apiGroup": "x"},
            ],
        },
        "clusterrolebinding": {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "roleRef": {"kind": "ClusterRole", "name": "r", "apiGroup": ""},
            "subjects": [{"kind": "Group", "name": "g"}],
        },
        "hpa": {
            "apiVersion": "autoscaling/v2",
            "kind": "HorizontalPodAutoscaler",
            "spec": {
                "scaleTargetRef": {"kind": "Deployment", "name": "d"},
                "behavior": {"scaleUp": {"selectPolicy": "Min"}},
            },
        },
        "hpa-no-behavior": {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "spec": {"metrics": []}},
        "not-defaulted": {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {}},
    }


_REPLACEMENTS: tuple[tuple[str, Any], ...] = (
    ("absent", None),
    ("null", None),
    ("empty-string", ""),
    ("zero", 0),
    ("string", "x"),
    ("number", 7),
    ("list", []),
    ("object", {}),
)


def _paths(value: Any, path: tuple = ()) -> Iterator[tuple]:
    """Every key or index path inside `value`, parents before children."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*path, key)
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (*path, index)
            yield from _paths(item, (*path, index))


def _replaced(obj: dict, path: tuple, how: str, replacement: Any) -> dict:
    out = copy.deepcopy(obj)
    parent = out
    for step in path[:-1]:
        parent = parent[step]
    if how == "absent":
        if isinstance(parent, list):
            del parent[path[-1]]
        else:
            del parent[path[-1]]
    else:
        parent[path[-1]] = copy.deepcopy(replacement)
    return out


def variants() -> Iterator[tuple[str, str, dict]]:
    """(case, variant name, object): each base object as it is, then with each field replaced in turn."""
    for case, obj in base_objects().items():
        yield case, "as-is", copy.deepcopy(obj)
        for path in _paths(obj):
            if path in (("apiVersion",), ("kind",)):
                continue
            for how, replacement in _REPLACEMENTS:
                yield case, f"{'.'.join(map(str, path))}={how}", _replaced(obj, path, how, replacement)


def digest(obj: Any, paths: Any) -> str:
    """The defaulted object and its recorded paths as one text, key order included."""
    text = json.dumps([obj, list(paths)], default=repr)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def digests(default: Any) -> dict[str, str]:
    """{case: digest of every variant's (object, paths) in turn}, with `default(obj) -> (object, paths)`."""
    per_case: dict[str, Any] = {}
    for case, name, obj in variants():
        result, paths = default(obj)
        per_case.setdefault(case, hashlib.sha1()).update(f"{name}:{digest(result, paths)}\n".encode())
    return {case: h.hexdigest()[:16] for case, h in per_case.items()}
