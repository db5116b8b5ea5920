"""Listing a live cluster, against a fake API server with recorded discovery and list responses."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
import yaml

from evaluator.batch.cluster import Resource, list_namespaces, list_objects, matched_resources, selectors_of

from .policies import DOCUMENTS

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "data" / "batch" / "cluster"
TOKEN = "fake-token-for-the-test"
ROUTES = {
    "/api": "api.json",
    "/apis": "apis.json",
    "/api/v1": "api_v1.json",
    "/apis/apps/v1": "apis_apps_v1.json",
    "/apis/batch/v1": "apis_batch_v1.json",
    "/api/v1/pods": "pods.json",
    "/api/v1/configmaps": "configmaps.json",
    "/api/v1/namespaces": "namespaces.json",
}
STATEFULSETS = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: statefulset-replicas}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["*"], operations: ["*"], resources: ["statefulsets"]}
  validations: [{expression: "object.spec.replicas <= 3"}]
"""


class FakeAPIServer(BaseHTTPRequestHandler):
    requests: list[tuple[str, str, dict, str | None]] = []

    def log_message(self, *args) -> None:  # quiet
        pass

    def _send(self, code: int, body: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        url = urlparse(self.path)
        query = parse_qs(url.query)
        self.requests.append(("GET", url.path, query, self.headers.get("Authorization")))
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            return self._send(
                401, b'{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Unauthorized","code":401}'
            )
        if url.path == "/apis/apps/v1/deployments":
            page = "deployments_page2.json" if query.get("continue") else "deployments_page1.json"
            return self._send(200, (FIXTURES / page).read_bytes())
        if url.path == "/apis/apps/v1/statefulsets":
            return self._send(403, (FIXTURES / "forbidden_statefulsets.json").read_bytes())
        if url.path in ROUTES:
            return self._send(200, (FIXTURES / ROUTES[url.path]).read_bytes())
        self._send(404, b'{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}')

    def _refuse(self) -> None:
        self.requests.append((self.command, urlparse(self.path).path, {}, None))
        self._send(405, b"{}")

    do_POST = do_PUT = do_PATCH = do_DELETE = _refuse


@pytest.fixture
def api_server() -> Iterator[str]:
    FakeAPIServer.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeAPIServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def kubeconfig(tmp_path: Path, api_server: str) -> Path:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "fake", "cluster": {"server": api_server}},
            {"name": "gone", "cluster": {"server": "http://127.0.0.1:9"}},
        ],
        "users": [{"name": "reader", "user": {"token": TOKEN}}],
        "contexts": [
            {"name": "fake", "context": {"cluster": "fake", "user": "reader"}},
            {"name": "gone", "context": {"cluster": "gone", "user": "reader"}},
        ],
        "current-context": "fake",
    }
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump(config))
    return path


def test_lists_the_kinds_the_policies_match_read_only(kubeconfig: Path):
    objects, errors = list_objects(str(kubeconfig), documents=DOCUMENTS + "---\n" + STATEFULSETS)
    assert sorted((o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]) for o in objects) == [
        ("ConfigMap", "default", "kube-root-ca.crt"),
        ("Deployment", "default", "web"),
        ("Deployment", "team-a", "api"),  # the second page
        ("Pod", "default", "debug"),
    ]
    deployment = next(o for o in objects if o["metadata"]["name"] == "web")
    assert deployment["apiVersion"] == "apps/v1" and "managedFields" not in deployment["metadata"]
    assert deployment["spec"]["replicas"] == 9
    assert errors == [
        {
            "severity": "error",
            "message": "cannot list statefulsets.apps: 403 Forbidden: statefulsets.apps is forbidden: User "
            '"system:serviceaccount:default:reader" cannot list resource "statefulsets" in API group "apps" at the '
            "cluster scope",
            "source": "cluster",
            "document": None,
            "line": None,
        }
    ]
    calls = FakeAPIServer.requests
    assert {method for method, *_ in calls} == {"GET"}
    assert all(auth == f"Bearer {TOKEN}" for *_, auth in calls)
    lists = [(path, query) for _, path, query, _ in calls if path.count("/") >= 3 and not path.endswith("/v1")]
    assert [p for p, _ in lists].count("/apis/apps/v1/deployments") == 2
    assert all(q["limit"] == ["500"] for _, q in lists)
    assert "/apis/batch/v1/jobs" not in [p for p, _ in lists]  # no policy matches jobs
    assert "/api/v1/secrets" not in [p for p, _ in lists]


def test_kinds_override_the_policies(kubeconfig: Path):
    objects, errors = list_objects(str(kubeconfig), kinds=["Namespace"])
    assert errors == [] and [o["metadata"]["name"] for o in objects] == ["default", "team-a"]
    assert all(o["kind"] == "Namespace" and o["apiVersion"] == "v1" for o in objects)


def test_namespaces_for_selectors(kubeconfig: Path):
    namespaces, errors = list_namespaces(str(kubeconfig))
    assert errors == [] and namespaces[1]["metadata"]["labels"]["environment"] == "dev"


def test_an_unreachable_cluster_and_a_bad_kubeconfig_are_errors(kubeconfig: Path, tmp_path: Path):
    objects, errors = list_objects(str(kubeconfig), "gone", documents=DOCUMENTS)
    assert objects == [] and errors[0]["message"].startswith("discovery failed: ")
    objects, errors = list_objects(str(kubeconfig), "nope", documents=DOCUMENTS)
    assert objects == [] and errors[0]["message"].startswith(f"cannot use kubeconfig {kubeconfig}: ")
    objects, errors = list_objects(str(tmp_path / "missing"), documents=DOCUMENTS)
    assert objects == [] and errors[0]["message"].startswith("cannot use kubeconfig")


def test_resource_selection_one_version_per_group_no_subresources():
    discovered = [
        Resource("apps", "v1", "deployments", "Deployment", True),
        Resource("apps", "v1beta1", "deployments", "Deployment", True),
        Resource("", "v1", "pods", "Pod", True),
        Resource("", "v1", "namespaces", "Namespace", False),
        Resource("batch", "v1", "jobs", "Job", True),
    ]
    preferred = {"": "v1", "apps": "v1", "batch": "v1"}
    every = selectors_of(
        {
            "apiVersion": "kyverno.io/v1",
            "kind": "ClusterPolicy",
            "metadata": {"name": "p"},
            "spec": {"rules": [{"name": "r", "match": {"any": [{"resources": {"kinds": ["*"]}}]}}]},
        }
    )
    assert [(r.group, r.version, r.resource) for r in matched_resources(discovered, preferred, every)] == [
        ("", "v1", "namespaces"),
        ("", "v1", "pods"),
        ("apps", "v1", "deployments"),  # the preferred version only
        ("batch", "v1", "jobs"),
    ]
    cluster_scoped = selectors_of(
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": "p"},
            "spec": {
                "matchConstraints": {
                    "resourceRules": [
                        {
                            "apiGroups": ["*"],
                            "apiVersions": ["*"],
                            "operations": ["CREATE"],
                            "resources": ["*"],
                            "scope": "Cluster",
                        }
                    ]
                }
            },
        }
    )
    assert [r.resource for r in matched_resources(discovered, preferred, cluster_scoped)] == ["namespaces"]
    deletes_only = selectors_of(
        {
            "apiVersion": "kyverno.io/v1",
            "kind": "ClusterPolicy",
            "metadata": {"name": "p"},
            "spec": {
                "rules": [
                    {"name": "r", "match": {"any": [{"resources": {"kinds": ["Pod"], "operations": ["DELETE"]}}]}}
                ]
            },
        }
    )
    assert matched_resources(discovered, preferred, deletes_only) == []


def test_cli_batch_from_the_fake_cluster(kubeconfig: Path, tmp_path: Path):
    (tmp_path / "p.yaml").write_text(DOCUMENTS)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "evaluator",
            "batch",
            "-f",
            str(tmp_path / "p.yaml"),
            "--kubeconfig",
            str(kubeconfig),
            "--context",
            "fake",
            "-o",
            "json",
            "--jobs",
            "2",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr  # two objects denied
    summary = json.loads(done.stdout)
    assert summary["objects"] == 4
    assert summary["policies"]["replicas"]["denied"] == 1  # web has 9 replicas
    assert summary["policies"]["ClusterPolicy/no-privileged-pods"]["denied"] == 1  # the privileged debug pod
    assert summary["policies"]["configmap-data"]["admitted"] == 1
    assert set(summary["namespaces"]) == {"default", "team-a"}
