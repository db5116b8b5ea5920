"""A fake Kubernetes API server for the cluster-reading tests (CLI, services, REST, browser).

It serves discovery (`/api`, `/apis`, each group version) generated from the resources it holds, `get` and
`list` (all namespaces or one, `labelSelector` equality terms, `limit`/`continue` pages, `remainingItemCount`
unless switched off), and can be told to forbid a resource (403 Status, as RBAC answers), to be slow on one
(for timeouts), to hold a huge list, or to fail a group's discovery (503, as an aggregated API whose server is
down). Every request is recorded; any method but GET is answered 405 and
recorded too, so a test can assert that nothing else was ever sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import yaml

TOKEN = "fake-token-for-the-test"


@dataclass
class FakeResource:
    group: str
    version: str
    resource: str
    kind: str
    namespaced: bool
    verbs: tuple[str, ...] = ("create", "delete", "get", "list", "patch", "update", "watch")
    items: list[dict] = field(default_factory=list)

    def label(self) -> str:
        return f"{self.resource}.{self.group}" if self.group else self.resource


@dataclass
class FakeCluster:
    resources: list[FakeResource] = field(default_factory=list)
    forbidden: set[str] = field(default_factory=set)  # resource labels answered 403
    slow: dict[str, float] = field(default_factory=dict)  # resource label -> seconds to wait before answering
    page_size: dict[str, int] = field(default_factory=dict)  # resource label -> largest page, whatever limit says
    remaining_count: bool = True
    broken_groups: set[str] = field(default_factory=set)  # API groups whose discovery answers 503
    requests: list[tuple[str, str, dict, str | None]] = field(default_factory=list)

    def add(self, group: str, version: str, resource: str, kind: str, namespaced: bool, items=(), **kw) -> FakeResource:
        found = FakeResource(group, version, resource, kind, namespaced, items=list(items), **kw)
        self.resources.append(found)
        return found

    def put(self, label: str, obj: dict) -> None:
        """Add or replace an object (by namespace and name), giving it a new resourceVersion."""
        resource = next(r for r in self.resources if r.label() == label)
        meta = obj.setdefault("metadata", {})
        meta["resourceVersion"] = str(int(time.time() * 1000) % 10**9 + len(resource.items))
        key = (meta.get("namespace"), meta.get("name"))
        resource.items = [i for i in resource.items if (i["metadata"].get("namespace"), i["metadata"]["name"]) != key]
        resource.items.append(obj)

    def paths(self) -> list[str]:
        return [path for _, path, _, _ in self.requests]


def _status(code: int, reason: str, message: str) -> dict:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }


def _matches(labels: dict, selector: str) -> bool:
    for term in filter(None, (t.strip() for t in selector.split(","))):
        if "!=" in term:
            key, value = term.split("!=", 1)
            if labels.get(key.strip()) == value.strip():
                return False
        elif "=" in term:
            key, value = term.replace("==", "=").split("=", 1)
            if labels.get(key.strip()) != value.strip():
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True


class _Handler(BaseHTTPRequestHandler):
    cluster: FakeCluster

    def log_message(self, *args) -> None:  # quiet
        pass

    def _send(self, code: int, data: dict) -> None:
        body = json.dumps(data).encode()
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
            pass

    def do_GET(self) -> None:
        url = urlparse(self.path)
        query = parse_qs(url.query)
        self.cluster.requests.append(("GET", url.path, query, self.headers.get("Authorization")))
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            return self._send(401, _status(401, "Unauthorized", "Unauthorized"))
        answer = self._discovery(url.path)
        if answer is not None and "__status__" in answer:
            return self._send(
                503, _status(503, "ServiceUnavailable", "the server is currently unable to handle the request")
            )
        if answer is not None:
            return self._send(200, answer)
        self._resource(url.path, query)

    def _discovery(self, path: str) -> dict | None:
        resources = self.cluster.resources
        if path == "/api":
            return {"kind": "APIVersions", "versions": ["v1"]}
        if path == "/apis":
            groups: dict[str, list[str]] = {}
            for r in resources:
                if r.group and r.version not in groups.setdefault(r.group, []):
                    groups[r.group].append(r.version)
            return {
                "kind": "APIGroupList",
                "apiVersion": "v1",
                "groups": [
                    {
                        "name": g,
                        "versions": [{"groupVersion": f"{g}/{v}", "version": v} for v in vs],
                        "preferredVersion": {"groupVersion": f"{g}/{vs[0]}", "version": vs[0]},
                    }
                    for g, vs in groups.items()
                ],
            }
        parts = path.strip("/").split("/")
        group, version = ("", parts[1]) if parts[0] == "api" and len(parts) == 2 else (None, None)
        if parts[0] == "apis" and len(parts) == 3:
            group, version = parts[1], parts[2]
        if group is None:
            return None
        if group in self.cluster.broken_groups:  # an aggregated API whose server is down
            return {"__status__": 503}
        served = [r for r in resources if (r.group, r.version) == (group, version)]
        return {
            "kind": "APIResourceList",
            "groupVersion": f"{group}/{version}" if group else version,
            "resources": [
                {"name": r.resource, "namespaced": r.namespaced, "kind": r.kind, "verbs": list(r.verbs)} for r in served
            ]
            + [
                {"name": f"{r.resource}/status", "namespaced": r.namespaced, "kind": r.kind, "verbs": ["get"]}
                for r in served
            ],
        }

    def _resource(self, path: str, query: dict) -> None:
        parts = path.strip("/").split("/")
        group, version, rest = ("", parts[1], parts[2:]) if parts[0] == "api" else (parts[1], parts[2], parts[3:])
        namespace = None
        if len(rest) >= 3 and rest[0] == "namespaces":
            namespace, rest = rest[1], rest[2:]
        resource = next(
            (r for r in self.cluster.resources if (r.group, r.version, r.resource) == (group, version, rest[0])), None
        )
        if resource is None or len(rest) > 2:
            return self._send(404, _status(404, "NotFound", "the server could not find the requested resource"))
        label = resource.label()
        if label in self.cluster.slow:
            time.sleep(self.cluster.slow[label])
        verb = "get" if len(rest) == 2 else "list"
        if label in self.cluster.forbidden:
            scope = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
            return self._send(
                403,
                _status(
                    403,
                    "Forbidden",
                    (
                        f'{label} is forbidden: User "system:serviceaccount:default:reader" cannot {verb} resource '
                        f'"{resource.resource}" in API group "{group}" {scope}'
                    ),
                ),
            )
        items = [i for i in resource.items if namespace is None or i["metadata"].get("namespace") == namespace]
        if verb == "get":
            found = [i for i in items if i["metadata"]["name"] == rest[1]]
            if not found:
                return self._send(404, _status(404, "NotFound", f'{label} "{rest[1]}" not found'))
            return self._send(200, {"apiVersion": resource_api(resource), "kind": resource.kind, **found[0]})
        selector = (query.get("labelSelector") or [""])[0]
        if selector:
            items = [i for i in items if _matches(i["metadata"].get("labels") or {}, selector)]
        start = int((query.get("continue") or ["0"])[0])
        limit = int((query.get("limit") or ["0"])[0]) or len(items) or 1
        limit = min(limit, self.cluster.page_size.get(label, limit))
        page = items[start : start + limit]
        meta: dict = {"resourceVersion": "1000"}
        if start + limit < len(items):
            meta["continue"] = str(start + limit)
            if self.cluster.remaining_count and not selector:
                meta["remainingItemCount"] = len(items) - start - limit
        self._send(
            200, {"kind": f"{resource.kind}List", "apiVersion": resource_api(resource), "metadata": meta, "items": page}
        )

    def _refuse(self) -> None:
        self.cluster.requests.append((self.command, urlparse(self.path).path, {}, self.headers.get("Authorization")))
        self._send(405, _status(405, "MethodNotAllowed", "the fake API server only reads"))

    do_POST = do_PUT = do_PATCH = do_DELETE = _refuse


def resource_api(resource: FakeResource) -> str:
    return f"{resource.group}/{resource.version}" if resource.group else resource.version


@contextmanager
def serving(cluster: FakeCluster) -> Iterator[str]:
    """The server's URL while it runs."""
    handler = type("Handler", (_Handler,), {"cluster": cluster})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def write_kubeconfig(path: Path, server: str) -> Path:
    """A kubeconfig with context `fake` (the server, current), `gone` (nothing listens) and `stranger` (a
    token the server refuses)."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "fake", "cluster": {"server": server}},
            {"name": "gone", "cluster": {"server": "http://127.0.0.1:9"}},
        ],
        "users": [{"name": "reader", "user": {"token": TOKEN}}, {"name": "stranger", "user": {"token": "wrong"}}],
        "contexts": [
            {"name": "fake", "context": {"cluster": "fake", "user": "reader"}},
            {"name": "gone", "context": {"cluster": "gone", "user": "reader"}},
            {"name": "stranger", "context": {"cluster": "fake", "user": "stranger"}},
        ],
        "current-context": "fake",
    }
    path.write_text(yaml.safe_dump(config))
    return path


def _meta(name: str, namespace: str | None = None, labels: dict | None = None, rv: str = "100") -> dict:
    meta: dict = {
        "name": name,
        "resourceVersion": rv,
        "uid": f"uid-{name}",
        "creationTimestamp": "2026-01-01T00:00:00Z",
        "managedFields": [{"manager": "kubectl", "operation": "Apply"}],
    }
    if namespace:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = labels
    return meta


def _deployment(name: str, namespace: str, replicas: int, labels: dict) -> dict:
    return {
        "metadata": _meta(name, namespace, labels),
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": name, "image": "nginx"}]},
            },
        },
        "status": {"replicas": replicas},
    }


REPLICAS_POLICY = {
    "metadata": _meta("max-replicas"),
    "spec": {
        "failurePolicy": "Fail",
        "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
        "matchConstraints": {
            "resourceRules": [
                {
                    "apiGroups": ["apps"],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE", "UPDATE"],
                    "resources": ["deployments"],
                }
            ]
        },
        "validations": [
            {
                "expression": "object.spec.replicas <= int(params.data.maxReplicas)",
                "messageExpression": "'replicas must be at most ' + params.data.maxReplicas",
            }
        ],
    },
}
REPLICAS_BINDING = {
    "metadata": _meta("max-replicas-binding"),
    "spec": {
        "policyName": "max-replicas",
        "validationActions": ["Deny"],
        "paramRef": {"name": "replica-limit", "namespace": "policy-params", "parameterNotFoundAction": "Deny"},
        "matchResources": {"namespaceSelector": {"matchLabels": {"environment": "prod"}}},
    },
}
PRIVILEGED_POLICY = {
    "metadata": _meta("no-latest-tag"),
    "spec": {
        "validationFailureAction": "Enforce",
        "rules": [
            {
                "name": "no-latest",
                "match": {"any": [{"resources": {"kinds": ["Pod"]}}]},
                "validate": {
                    "message": "the latest tag is not allowed",
                    "pattern": {"spec": {"containers": [{"image": "!*:latest"}]}},
                },
            }
        ],
    },
}
CRD = {
    "metadata": _meta("widgets.example.com"),
    "spec": {
        "group": "example.com",
        "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "properties": {"size": {"type": "integer"}},
                                "x-kubernetes-validations": [
                                    {"rule": "self.size <= 10", "message": "size must be at most 10"}
                                ],
                            }
                        },
                    }
                },
            }
        ],
    },
}


def sample_cluster(deployments: int = 0) -> FakeCluster:
    """A small cluster: three namespaces (two labelled), Deployments of two teams, a ConfigMap param, a Secret
    (never to be read), a VAP with its binding, a Kyverno ClusterPolicy, a CRD; StatefulSets are forbidden.
    `deployments` adds that many more Deployments in namespace `bulk` (a huge list)."""
    cluster = FakeCluster(forbidden={"statefulsets.apps"})
    cluster.add(
        "",
        "v1",
        "namespaces",
        "Namespace",
        False,
        [
            {"metadata": _meta("default", labels={"kubernetes.io/metadata.name": "default"})},
            {"metadata": _meta("team-a", labels={"environment": "prod", "team": "a"})},
            {"metadata": _meta("team-b", labels={"environment": "dev", "team": "b"})},
            {"metadata": _meta("policy-params")},
        ],
    )
    cluster.add(
        "",
        "v1",
        "configmaps",
        "ConfigMap",
        True,
        [
            {"metadata": _meta("replica-limit", "policy-params"), "data": {"maxReplicas": "5"}},
        ],
    )
    cluster.add(
        "",
        "v1",
        "secrets",
        "Secret",
        True,
        [
            {"metadata": _meta("db-password", "team-a"), "data": {"password": "aHVudGVyMg=="}},
        ],
    )
    cluster.add(
        "",
        "v1",
        "pods",
        "Pod",
        True,
        [
            {"metadata": _meta("debug", "team-a"), "spec": {"containers": [{"name": "c", "image": "busybox:latest"}]}},
        ],
    )
    items = [
        _deployment("web", "team-a", 9, {"app": "web", "team": "a"}),
        _deployment("api", "team-a", 2, {"app": "api", "team": "a"}),
        _deployment("batch", "team-b", 1, {"app": "batch", "team": "b"}),
    ] + [_deployment(f"bulk-{i}", "bulk", 1, {"app": "bulk"}) for i in range(deployments)]
    cluster.add("apps", "v1", "deployments", "Deployment", True, items)
    cluster.add("apps", "v1", "statefulsets", "StatefulSet", True, [])
    cluster.add(
        "admissionregistration.k8s.io",
        "v1",
        "validatingadmissionpolicies",
        "ValidatingAdmissionPolicy",
        False,
        [REPLICAS_POLICY],
    )
    cluster.add(
        "admissionregistration.k8s.io",
        "v1",
        "validatingadmissionpolicybindings",
        "ValidatingAdmissionPolicyBinding",
        False,
        [REPLICAS_BINDING],
    )
    cluster.add("kyverno.io", "v1", "clusterpolicies", "ClusterPolicy", False, [PRIVILEGED_POLICY])
    cluster.add("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", False, [CRD])
    return cluster
