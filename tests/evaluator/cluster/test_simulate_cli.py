"""`simulate --kubeconfig`: the fake cluster's policies, bindings, params and namespaces decide a request."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_apiserver import FakeCluster, sample_cluster, serving, write_kubeconfig

ROOT = Path(__file__).resolve().parents[3]
REQUEST = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: team-a}
spec:
  replicas: 9
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
"""


@pytest.fixture
def cluster() -> FakeCluster:
    return sample_cluster()


@pytest.fixture
def kubeconfig(tmp_path: Path, cluster: FakeCluster) -> Iterator[Path]:
    with serving(cluster) as url:
        yield write_kubeconfig(tmp_path / "kubeconfig", url)


def simulate(tmp_path: Path, *args: str, request: str = REQUEST) -> subprocess.CompletedProcess:
    (tmp_path / "request.yaml").write_text(request)
    command = [sys.executable, "-m", "evaluator", "simulate", "-f", str(tmp_path / "request.yaml"), *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_the_clusters_policy_binding_param_and_namespace_decide(tmp_path: Path, kubeconfig: Path, cluster):
    done = simulate(tmp_path, "--kubeconfig", str(kubeconfig), "--context", "fake", "-o", "json")
    assert done.returncode == 1, done.stderr  # denied by the cluster's VAP, with its ConfigMap param
    result = json.loads(done.stdout)
    assert result["allowed"] is False and result["errors"] == []
    assert "replicas must be at most 5" in result["status"]["message"]
    assert {method for method, *_ in cluster.requests} == {"GET"}
    assert not any("secrets" in p for p in cluster.paths())
    # in team-b (environment: dev) the binding's namespaceSelector does not match
    done = simulate(
        tmp_path, "--kubeconfig", str(kubeconfig), "-o", "json", request=REQUEST.replace("team-a", "team-b")
    )
    assert done.returncode == 0, done.stderr


def test_cluster_kinds_and_their_failures(tmp_path: Path, kubeconfig: Path, cluster: FakeCluster):
    done = simulate(
        tmp_path,
        "--kubeconfig",
        str(kubeconfig),
        "--cluster-kinds",
        "Pod,StatefulSet,Secret",
        "-n",
        "team-a",
    )
    assert done.returncode == 2  # unusable: two kinds could not be read
    assert "cluster: error: cannot read statefulsets.apps: 403 Forbidden" in done.stderr
    assert "cannot read Secret: secrets is not in this playground's allow-list" in done.stderr
    assert "/api/v1/namespaces/team-a/pods" in cluster.paths()
    done = simulate(tmp_path, "--kubeconfig", str(kubeconfig), "--context", "gone")
    assert done.returncode == 2 and "cannot read discovery: the cluster is unreachable" in done.stderr
