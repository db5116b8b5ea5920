"""The read-only cluster reader against the fake API server: what it reads, and every way a read fails."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.cluster import (
    ClusterError,
    ClusterReader,
    Connection,
    DEFAULT_ALLOWED,
    ObjectQuery,
    ReadOnlyClient,
    Selection,
    allowed_set,
    count,
    load,
    sample_request,
)
from tests.fake_apiserver import FakeCluster, sample_cluster, serving, write_kubeconfig

ROOT = Path(__file__).resolve().parents[3]
ALLOWED = allowed_set(DEFAULT_ALLOWED)


@pytest.fixture
def cluster() -> FakeCluster:
    return sample_cluster()


@pytest.fixture
def kubeconfig(tmp_path: Path, cluster: FakeCluster) -> Iterator[Path]:
    with serving(cluster) as url:
        yield write_kubeconfig(tmp_path / "kubeconfig", url)


def reader(kubeconfig: Path, context: str | None = None, allowed=ALLOWED, **limits) -> ClusterReader:
    return ClusterReader(ReadOnlyClient(Connection(str(kubeconfig), context, **limits)).open(), allowed)


def test_loads_policies_namespaces_params_and_selected_objects_with_origins(kubeconfig: Path, cluster: FakeCluster):
    selection = Selection(
        policies=True,
        crds=True,
        namespaces=True,
        params=True,
        objects=[ObjectQuery("Deployment", "team-a", "app=web"), ObjectQuery("apps/v1/Deployment", "team-b")],
    )
    loaded, errors = load(reader(kubeconfig, "fake"), selection, cap=100)
    assert errors == []
    names = [(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]) for o, _ in loaded]
    assert names == [
        ("ValidatingAdmissionPolicy", None, "max-replicas"),
        ("ValidatingAdmissionPolicyBinding", None, "max-replicas-binding"),
        ("ClusterPolicy", None, "no-latest-tag"),
        ("CustomResourceDefinition", None, "widgets.example.com"),
        ("Namespace", None, "default"),
        ("Namespace", None, "team-a"),
        ("Namespace", None, "team-b"),
        ("Namespace", None, "policy-params"),
        ("ConfigMap", "policy-params", "replica-limit"),  # the VAP's paramKind
        ("Deployment", "team-a", "web"),
        ("Deployment", "team-b", "batch"),
    ]
    web, origin = loaded[9]
    assert web["apiVersion"] == "apps/v1" and "managedFields" not in web["metadata"]
    assert origin == {
        "cluster": "fake",
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "resource": "deployments.apps",
        "namespace": "team-a",
        "name": "web",
        "resourceVersion": "100",
        "loadedAt": origin["loadedAt"],
    }
    assert {method for method, *_ in cluster.requests} == {"GET"}
    assert "/apis/apps/v1/namespaces/team-a/deployments" in cluster.paths()
    assert not any("secrets" in p for p in cluster.paths())


def test_only_get_is_reachable():
    """The client offers one call, whose HTTP method is fixed; nothing else in the code talks to a cluster."""
    public = {name for name in vars(ReadOnlyClient) if not name.startswith("_")}  # methods; `label` is data
    assert public == {"open", "close", "get", "remaining"}
    calls = []
    for path in [*(ROOT / "evaluator").rglob("*.py"), *(ROOT / "playground").rglob("*.py")]:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "call_api":
                method = node.args[1] if len(node.args) > 1 else None
                calls.append((path.relative_to(ROOT).as_posix(), getattr(method, "value", method)))
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "kubernetes":
                assert path.relative_to(ROOT).as_posix() == "evaluator/cluster/client.py", path
                assert {a.name for a in node.names} <= {"client", "config"}
    assert calls == [("evaluator/cluster/client.py", "GET")]


def test_secrets_are_never_read_even_when_allow_listed(kubeconfig: Path, cluster: FakeCluster):
    everything = reader(kubeconfig, allowed=allowed_set([*DEFAULT_ALLOWED, "secrets"]))
    loaded, errors = load(everything, Selection(objects=[ObjectQuery("Secret"), ObjectQuery("secrets")]), cap=10)
    assert loaded == []
    assert [(e.reason, e.what) for e in errors] == [("not_allowed", "Secret"), ("not_allowed", "secrets")]
    assert "Secrets are never read" in errors[0].message
    assert not any("secrets" in p for p in cluster.paths())


def test_a_kind_off_the_allow_list_is_refused_before_any_call(kubeconfig: Path, cluster: FakeCluster):
    narrow = reader(kubeconfig, allowed=allowed_set(["namespaces"]))
    loaded, errors = load(narrow, Selection(objects=[ObjectQuery("Pod")], namespaces=True), cap=10)
    assert [o["kind"] for o, _ in loaded] == ["Namespace"] * 4
    assert errors[0].to_dict() == {
        "kind": "Pod",
        "reason": "not_allowed",
        "message": "cannot read Pod: pods is not in this playground's allow-list of cluster kinds",
    }
    assert "/api/v1/pods" not in cluster.paths()


def test_counts_before_loading_with_and_without_remaining_item_count(kubeconfig: Path, cluster: FakeCluster):
    cluster.page_size["deployments.apps"] = 1
    selection = Selection(objects=[ObjectQuery("Deployment"), ObjectQuery("Deployment", label_selector="team=a")])
    counted, errors = count(reader(kubeconfig), selection, cap=100)
    assert errors == []
    assert [(c["resource"], c["labelSelector"], c["count"], c["exact"]) for c in counted] == [
        ("deployments.apps", None, 3, True),  # remainingItemCount, one call
        ("deployments.apps", "team=a", 2, True),  # no remainingItemCount with a selector: paged
    ]
    cluster.remaining_count = False
    counted, _ = count(reader(kubeconfig), Selection(objects=[ObjectQuery("Deployment")]), cap=2)
    assert (counted[0]["count"], counted[0]["exact"], counted[0]["overCap"]) == (3, False, True)


def test_a_huge_list_is_refused_past_the_cap_in_pages(tmp_path: Path):
    cluster = sample_cluster(deployments=1200)
    with serving(cluster) as url:
        config = write_kubeconfig(tmp_path / "kubeconfig", url)
        counted, _ = count(reader(config), Selection(objects=[ObjectQuery("Deployment")]), cap=1000)
        assert (counted[0]["count"], counted[0]["overCap"]) == (1203, True)
        loaded, errors = load(reader(config), Selection(namespaces=True, objects=[ObjectQuery("Deployment")]), cap=1000)
    assert [o["kind"] for o, _ in loaded] == ["Namespace"] * 4  # the other kind is whole, the big one not at all
    assert errors[0].reason == "too_large" and errors[0].what == "deployments.apps"
    assert "more than 996 objects" in errors[0].message and "4 taken by the kinds before it" in errors[0].message
    lists = [q for _, p, q, _ in cluster.requests if p == "/apis/apps/v1/deployments"]
    assert lists == [{"limit": ["1"]}, {"limit": ["500"]}]  # the count; the first page announces 1203
    cluster.remaining_count = False
    with serving(cluster) as url:
        config = write_kubeconfig(tmp_path / "kubeconfig", url)
        loaded, errors = load(reader(config), Selection(objects=[ObjectQuery("Deployment")]), cap=700)
    assert loaded == [] and "more than 700 objects" in errors[0].message
    lists = [q for _, p, q, _ in cluster.requests if p == "/apis/apps/v1/deployments"]
    assert len(lists) == 4 and lists[-1] == {"limit": ["500"], "continue": ["500"]}  # stopped in the second page


def test_forbidden_kind_is_named_and_the_rest_loads(kubeconfig: Path):
    loaded, errors = load(
        reader(kubeconfig), Selection(objects=[ObjectQuery("StatefulSet"), ObjectQuery("Pod", "team-a")]), cap=10
    )
    assert [o["metadata"]["name"] for o, _ in loaded] == ["debug"]
    assert errors[0].reason == "forbidden" and errors[0].what == "statefulsets.apps"
    assert errors[0].message == (
        "cannot read statefulsets.apps: 403 Forbidden: statefulsets.apps is forbidden: User "
        '"system:serviceaccount:default:reader" cannot list resource "statefulsets" in API group "apps" at the '
        "cluster scope"
    )


def test_a_slow_kind_times_out_and_a_slow_read_hits_its_deadline(kubeconfig: Path, cluster: FakeCluster):
    cluster.slow["pods"] = 1.5
    loaded, errors = load(
        reader(kubeconfig, timeout=0.3), Selection(namespaces=True, objects=[ObjectQuery("Pod")]), cap=10
    )
    assert len(loaded) == 4 and [(e.what, e.reason) for e in errors] == [("pods", "timeout")]
    slow = reader(kubeconfig, timeout=5, deadline=0.5)
    loaded, errors = load(slow, Selection(objects=[ObjectQuery("Pod"), ObjectQuery("Namespace")]), cap=10)
    assert loaded == [] and [(e.what, e.reason) for e in errors] == [("pods", "timeout"), ("namespaces", "timeout")]
    assert "longer than 0.5 s" in errors[1].message


def test_connection_faults(kubeconfig: Path, tmp_path: Path):
    with pytest.raises(ClusterError) as gone:
        load(reader(kubeconfig, "gone"), Selection(namespaces=True), cap=10)
    assert (gone.value.what, gone.value.reason) == ("discovery", "unreachable")
    with pytest.raises(ClusterError) as refused:
        load(reader(kubeconfig, "stranger"), Selection(namespaces=True), cap=10)
    assert refused.value.reason == "unauthorized" and "401" in refused.value.message
    with pytest.raises(ClusterError) as unknown:
        reader(kubeconfig, "nope")
    assert (unknown.value.what, unknown.value.reason) == (str(kubeconfig), "config")
    assert unknown.value.message.startswith(f"cannot use {kubeconfig}: ")
    with pytest.raises(ClusterError) as missing:
        reader(tmp_path / "missing")
    assert missing.value.reason == "config" and str(tmp_path / "missing") in missing.value.message
    with pytest.raises(ClusterError) as outside:
        ReadOnlyClient(Connection(in_cluster=True)).open()
    assert outside.value.reason == "config" and "in-cluster service account" in outside.value.message


def test_an_answer_too_big_in_bytes_is_refused(kubeconfig: Path, cluster: FakeCluster):
    cluster.put("pods", {"metadata": {"name": "big", "namespace": "team-a", "annotations": {"a": "x" * 9000}}})
    loaded, errors = load(
        reader(kubeconfig, max_response_bytes=8000),
        Selection(objects=[ObjectQuery("Pod"), ObjectQuery("Deployment")]),
        cap=10,
    )
    assert [o["kind"] for o, _ in loaded] == ["Deployment"] * 3
    assert [(e.what, e.reason) for e in errors] == [("pods", "too_large")]
    assert errors[0].message == "cannot read pods: the answer is larger than 8000 bytes"


def test_get_one_object_and_make_sample_requests(kubeconfig: Path):
    read = reader(kubeconfig)
    web = read.get(read.resolve("Deployment"), "team-a", "web")
    assert web["kind"] == "Deployment" and web["spec"]["replicas"] == 9
    created = sample_request(web, "CREATE")
    assert set(created["metadata"]) == {"name", "namespace", "labels"} and "status" not in created
    updated = sample_request(web, "UPDATE")
    assert updated["request"]["operation"] == "UPDATE"
    assert updated["request"]["object"] == updated["request"]["oldObject"] == web
    with pytest.raises(ClusterError) as gone:
        read.get(read.resolve("Deployment"), "team-a", "nope")
    assert gone.value.reason == "not_found" and gone.value.what == "deployments.apps team-a/nope"
    with pytest.raises(ValueError):
        sample_request(web, "DELETE")


def test_a_broken_api_group_costs_only_its_kinds(kubeconfig: Path, cluster: FakeCluster):
    cluster.broken_groups.add("kyverno.io")
    loaded, errors = load(
        reader(kubeconfig), Selection(policies=True, objects=[ObjectQuery("kyverno.io/v1/ClusterPolicy")]), cap=10
    )
    assert [o["kind"] for o, _ in loaded] == ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"]
    assert [(e.what, e.reason) for e in errors] == [
        ("clusterpolicies.kyverno.io", "failed"),
        ("policies.kyverno.io", "failed"),
        ("policyexceptions.kyverno.io", "failed"),
        ("kyverno.io/v1/ClusterPolicy", "failed"),
    ]
    assert errors[0].message == (
        "cannot read clusterpolicies.kyverno.io: the discovery of API group kyverno.io failed: 503 Service "
        "Unavailable: the server is currently unable to handle the request"
    )
