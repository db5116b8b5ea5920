"""Listing a live cluster, against a fake API server with recorded discovery and list responses."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.batch.cluster import (
    Resource,
    list_namespaces,
    list_objects,
    matched_resources,
    read_cluster,
    selectors_of,
)
from evaluator.cli.batch import reading_progress
from tests.fake_apiserver import TOKEN, FakeCluster, serving, write_kubeconfig

from .policies import DOCUMENTS

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "data" / "batch" / "cluster"
LISTS = {
    "pods": ["pods.json"],
    "configmaps": ["configmaps.json"],
    "namespaces": ["namespaces.json"],
    "deployments.apps": ["deployments_page1.json", "deployments_page2.json"],
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


def recorded_cluster() -> FakeCluster:
    """The fake API server (tests/fake_apiserver.py) holding the recorded discovery and lists: Deployments
    come one per page, listing StatefulSets is forbidden."""
    cluster = FakeCluster(forbidden={"statefulsets.apps"}, page_size={"deployments.apps": 1})
    for name in ("api_v1.json", "apis_apps_v1.json", "apis_batch_v1.json"):
        discovery = json.loads((FIXTURES / name).read_text())
        group, _, version = discovery["groupVersion"].rpartition("/")
        for entry in discovery["resources"]:
            if "/" in entry["name"]:
                continue
            resource = cluster.add(
                group, version, entry["name"], entry["kind"], entry["namespaced"], verbs=tuple(entry["verbs"])
            )
            for listed in LISTS.get(resource.label(), ()):
                resource.items += json.loads((FIXTURES / listed).read_text())["items"]
    return cluster


@pytest.fixture
def cluster() -> FakeCluster:
    return recorded_cluster()


@pytest.fixture
def kubeconfig(tmp_path: Path, cluster: FakeCluster) -> Iterator[Path]:
    with serving(cluster) as url:
        yield write_kubeconfig(tmp_path / "kubeconfig", url)


def test_lists_the_kinds_the_policies_match_read_only(kubeconfig: Path, cluster: FakeCluster):
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
    calls = cluster.requests
    assert {method for method, *_ in calls} == {"GET"}
    assert all(auth == f"Bearer {TOKEN}" for *_, auth in calls)
    lists = [(path, query) for _, path, query, _ in calls if path.count("/") >= 3 and not path.endswith("/v1")]
    assert [p for p, _ in lists].count("/apis/apps/v1/deployments") == 2
    assert all(q["limit"] == ["500"] for _, q in lists)
    assert "/apis/batch/v1/jobs" not in [p for p, _ in lists]  # no policy matches jobs
    assert "/api/v1/secrets" not in [p for p, _ in lists]


def test_secrets_are_never_listed_even_when_a_policy_matches_every_kind(kubeconfig: Path, cluster: FakeCluster):
    every = {
        "apiVersion": "kyverno.io/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": "p"},
        "spec": {"rules": [{"name": "r", "match": {"any": [{"resources": {"kinds": ["*"]}}]}}]},
    }
    objects, errors = list_objects(str(kubeconfig), documents=[every])
    assert {o["kind"] for o in objects} >= {"Pod", "Deployment", "Namespace"}
    assert {"severity": "warning", "message": "not listing secrets: Secrets are never read"}.items() <= errors[
        0
    ].items()
    assert not any("secrets" in path for path in cluster.paths())


EVERY_KIND = {
    "apiVersion": "kyverno.io/v1",
    "kind": "ClusterPolicy",
    "metadata": {"name": "p"},
    "spec": {"rules": [{"name": "r", "match": {"any": [{"resources": {"kinds": ["*"]}}]}}]},
}


def test_one_broken_api_group_costs_only_its_kinds(tmp_path: Path):
    """An aggregated API whose server is down answers 503 to its discovery: that group is reported with the
    reason, every other group is still discovered and listed."""
    cluster = recorded_cluster()
    cluster.add("metrics.k8s.io", "v1beta1", "podmetrics", "PodMetrics", True, verbs=("get", "list", "create"))
    cluster.broken_groups = {"metrics.k8s.io"}
    with serving(cluster) as url:
        objects, namespaces, errors = read_cluster(
            str(write_kubeconfig(tmp_path / "kubeconfig", url)), documents=[EVERY_KIND]
        )
    assert {o["kind"] for o in objects} >= {"Pod", "Deployment", "ConfigMap", "Namespace"}
    assert [n["metadata"]["name"] for n in namespaces] == ["default", "team-a"]
    broken = [e for e in errors if "metrics.k8s.io" in e["message"]]
    assert broken == [
        {
            "severity": "error",
            "message": "cannot list API group metrics.k8s.io: its discovery failed, so none of its kinds was read: "
            "503 Service Unavailable: the server is currently unable to handle the request",
            "source": "cluster",
            "document": None,
            "line": None,
        }
    ]
    assert "/apis/metrics.k8s.io/v1beta1/podmetrics" not in cluster.paths()
    assert "/apis/apps/v1/deployments" in cluster.paths()  # the groups after the broken one still read


def test_reading_reports_progress_per_page_and_kind(kubeconfig: Path):
    heard: list[tuple[str, int, int | None]] = []
    objects, _, _ = read_cluster(str(kubeconfig), kinds=["Deployment"], progress=lambda *a: heard.append(a))
    assert len(objects) == 2
    # Deployments come one per page; the fake server announces the total (remainingItemCount)
    assert heard[:2] == [("deployments.apps", 1, 2), ("deployments.apps", 2, 2)]
    assert heard[-1][0] == "namespaces"
    out = io.StringIO()
    draw = reading_progress(out)
    for step in heard:
        draw(*step)
    lines = out.getvalue().split("\n")  # one line per kind, redrawn (\r) per page
    assert lines[0] == "\rreading deployments.apps: 1/2\x1b[K\rreading deployments.apps: 2/2\x1b[K"
    assert lines[1] == "\rreading namespaces: 2\x1b[K"  # one page: the list says no total


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
