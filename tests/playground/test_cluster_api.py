"""Load from a connected cluster (REST): counts, loads, refresh, sample requests, every fault, against the fake
API server. Nothing is mocked: the reads go over HTTP, the results are the engine's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from playground.models import Document, Project
from tests.fake_apiserver import FakeCluster, sample_cluster, serving, write_kubeconfig

pytestmark = pytest.mark.django_db

SELECTION = {
    "policies": True,
    "namespaces": True,
    "params": True,
    "objects": [{"kind": "Deployment", "namespace": "team-a"}],
}


@pytest.fixture
def cluster() -> FakeCluster:
    return sample_cluster()


@pytest.fixture
def connected(settings, tmp_path: Path, cluster: FakeCluster) -> Iterator[FakeCluster]:
    with serving(cluster) as url:
        settings.PLAYGROUND_CLUSTER = "kubeconfig"
        settings.PLAYGROUND_CLUSTER_KUBECONFIG = str(write_kubeconfig(tmp_path / "kubeconfig", url))
        settings.PLAYGROUND_CLUSTER_CONTEXT = "fake"
        settings.PLAYGROUND_CLUSTER_KINDS = []
        settings.PLAYGROUND_CLUSTER_TIMEOUT_SECONDS = 2
        yield cluster


@pytest.fixture
def project(client) -> dict:
    response = client.post("/api/v1/projects", {"title": "from the cluster"}, content_type="application/json")
    assert response.status_code == 201
    return response.json()


def post(client, url: str, body: dict, token: str | None = None):
    headers = {"HTTP_X_EDIT_TOKEN": token} if token else {}
    return client.post(url, body, content_type="application/json", **headers)


def load(client, project: dict, body: dict = SELECTION):
    return post(client, f"/api/v1/projects/{project['id']}/cluster/load", body, project["editToken"])


def state(client, project: dict) -> dict:
    return client.get(f"/api/v1/projects/{project['id']}").json()


def test_off_by_default(client, project):
    assert client.get("/api/v1/cluster").json() == {"enabled": False}
    response = load(client, project)
    assert response.status_code == 404 and response.json()["error"]["code"] == "cluster_not_configured"


def test_count_then_load_then_the_project_decides_with_what_was_loaded(client, project, connected, settings):
    status = client.get("/api/v1/cluster").json()
    assert status["enabled"] and status["cluster"] == "fake" and "secrets" not in status["kinds"]
    counted = post(client, "/api/v1/cluster/count", SELECTION).json()
    assert [(k["kind"], k["count"]) for k in counted["kinds"]] == [
        ("ValidatingAdmissionPolicy", 1),
        ("ValidatingAdmissionPolicyBinding", 1),
        ("ClusterPolicy", 1),
        ("Namespace", 4),
        ("ConfigMap", 1),
        ("Deployment", 2),
    ]
    assert counted["total"] == 10 and counted["errors"] == []
    response = load(client, project)
    assert response.status_code == 200, response.content
    assert response.json()["added"] == 10 and response.json()["errors"] == []
    documents = state(client, project)["documents"]
    names = [d["name"] for d in documents]
    assert names[:3] == [
        "ValidatingAdmissionPolicy/max-replicas",
        "ValidatingAdmissionPolicyBinding/max-replicas-binding",
        "ClusterPolicy/no-latest-tag",
    ]
    assert "Namespace/team-a" in names and "ConfigMap/policy-params/replica-limit" in names
    web = next(d for d in documents if d["name"] == "Deployment/team-a/web")
    assert yaml.safe_load(web["text"])["spec"]["replicas"] == 9
    assert web["origin"]["resourceVersion"] == "100" and web["origin"]["cluster"] == "fake"
    # the loaded web Deployment as a sample request, decided by the loaded policy, binding, param, namespace
    settings.PLAYGROUND_EVALUATION_PROCESSES = 0
    made = post(
        client,
        f"/api/v1/projects/{project['id']}/cluster/sample-request",
        {"operation": "CREATE", "documentId": web["id"]},
        project["editToken"],
    )
    assert made.status_code == 201, made.content
    assert made.json()["name"] == "CREATE Deployment/web"
    result = client.post(f"/api/v1/projects/{project['id']}/evaluate").json()
    assert all(d["errors"] == [] for d in result["documents"])
    decided = result["requests"][0]["result"]
    assert decided["allowed"] is False and decided["status"]["message"].endswith("replicas must be at most 5")
    assert {method for method, *_ in connected.requests} == {"GET"}
    assert not any("secrets" in p for p in connected.paths())


def test_a_second_load_replaces_in_place_and_refresh_reads_again(client, project, connected):
    assert load(client, project).json()["added"] == 10
    again = load(client, project).json()
    assert (again["added"], again["updated"]) == (0, 10)
    assert len(state(client, project)["documents"]) == 10
    web = connected.resources[4].items[0]
    assert web["metadata"]["name"] == "web"
    web["spec"]["replicas"] = 3
    connected.put("deployments.apps", web)
    connected.resources[4].items = [i for i in connected.resources[4].items if i["metadata"]["name"] != "api"]
    refreshed = post(client, f"/api/v1/projects/{project['id']}/cluster/refresh", {}, project["editToken"]).json()
    assert (refreshed["refreshed"], refreshed["changed"]) == (9, 1)
    assert [(e["kind"], e["reason"]) for e in refreshed["errors"]] == [("deployments.apps team-a/api", "not_found")]
    documents = {d["name"]: d for d in state(client, project)["documents"]}
    assert yaml.safe_load(documents["Deployment/team-a/web"]["text"])["spec"]["replicas"] == 3
    assert documents["Deployment/team-a/web"]["origin"]["resourceVersion"] != "100"
    assert "Deployment/team-a/api" in documents  # gone from the cluster: reported, kept


def test_refresh_never_takes_another_clusters_object(client, project, connected, settings):
    assert load(client, project, {"namespaces": True}).json()["added"] == 4
    settings.PLAYGROUND_CLUSTER_CONTEXT = ""  # the kubeconfig's current context: also `fake`, same cluster
    assert (
        post(client, f"/api/v1/projects/{project['id']}/cluster/refresh", {}, project["editToken"]).json()["refreshed"]
        == 4
    )
    settings.PLAYGROUND_CLUSTER_CONTEXT = "stranger"
    refreshed = post(client, f"/api/v1/projects/{project['id']}/cluster/refresh", {}, project["editToken"]).json()
    assert refreshed["refreshed"] == 0
    assert {e["reason"] for e in refreshed["errors"]} == {"other_cluster"}
    assert "loaded from cluster fake, not stranger" in refreshed["errors"][0]["message"]


def test_crds_and_a_selection_too_long(client, project, connected):
    saved = load(client, project, {"crds": True}).json()
    assert saved["added"] == 1
    (crd,) = state(client, project)["documents"]
    assert crd["name"] == "CustomResourceDefinition/widgets.example.com"
    assert yaml.safe_load(crd["text"])["spec"]["names"]["kind"] == "Widget"
    too_many = load(client, project, {"objects": [{"kind": "Pod"}] * 21})
    assert too_many.status_code == 400 and too_many.json()["error"]["path"] == "objects"


def test_a_failed_kind_is_reported_and_saves_nothing_the_rest_is_saved(client, project, connected, settings):
    body = {"namespaces": True, "objects": [{"kind": "StatefulSet"}, {"kind": "Secret"}, {"kind": "Deployment"}]}
    settings.PLAYGROUND_CLUSTER_MAX_OBJECTS = 6
    saved = load(client, project, body).json()
    assert saved["added"] == 4
    assert [(e["kind"], e["reason"]) for e in saved["errors"]] == [
        ("Secret", "not_allowed"),
        ("statefulsets.apps", "forbidden"),
        ("deployments.apps", "too_large"),
    ]
    assert "403 Forbidden" in saved["errors"][1]["message"]
    assert [d["name"].split("/")[0] for d in state(client, project)["documents"]] == ["Namespace"] * 4


def test_an_unreachable_or_slow_cluster_saves_nothing(client, project, connected, settings):
    settings.PLAYGROUND_CLUSTER_CONTEXT = "gone"
    response = load(client, project)
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["code"] == "cluster_unreachable" and error["path"] == "discovery"
    settings.PLAYGROUND_CLUSTER_CONTEXT = "fake"
    connected.slow["deployments.apps"] = 1.5
    settings.PLAYGROUND_CLUSTER_TIMEOUT_SECONDS = 0.3
    saved = load(client, project, {"objects": [{"kind": "Deployment"}]}).json()
    assert saved["added"] == 0 and saved["errors"][0]["reason"] == "timeout"
    assert Project.objects.get(pk=project["id"]).documents.count() == 0


def test_over_the_projects_item_limit_nothing_is_saved(client, project, connected, settings):
    settings.PLAYGROUND_MAX_ITEMS = 5
    response = load(client, project)
    assert response.status_code == 413, response.content
    assert Document.objects.filter(project_id=project["id"]).count() == 0


def test_sample_request_from_the_cluster_and_bad_input(client, project, connected):
    url = f"/api/v1/projects/{project['id']}/cluster/sample-request"
    made = post(
        client,
        url,
        {"operation": "UPDATE", "object": {"kind": "Deployment", "namespace": "team-b", "name": "batch"}},
        project["editToken"],
    )
    assert made.status_code == 201, made.content
    review = yaml.safe_load(made.json()["text"])
    assert review["request"]["operation"] == "UPDATE" and review["request"]["oldObject"]["metadata"]["name"] == "batch"
    missing = post(
        client,
        url,
        {"operation": "CREATE", "object": {"kind": "Pod", "namespace": "team-a", "name": "x"}},
        project["editToken"],
    )
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "cluster_not_found"
    secret = post(
        client,
        url,
        {"operation": "CREATE", "object": {"kind": "Secret", "namespace": "team-a", "name": "db-password"}},
        project["editToken"],
    )
    assert secret.status_code == 400 and secret.json()["error"]["code"] == "cluster_not_allowed"
    assert post(client, url, {"operation": "DELETE", "documentId": 1}, project["editToken"]).status_code == 400
    assert post(client, url, {"operation": "CREATE"}, project["editToken"]).status_code == 400
    forbidden = post(client, f"/api/v1/projects/{project['id']}/cluster/load", SELECTION, "wrong")
    assert forbidden.status_code == 403
    bad = load(client, project, {"objects": [{"namespace": "x"}]})
    assert bad.status_code == 400 and bad.json()["error"]["path"] == "objects.0.kind"
    empty = load(client, project, {})
    assert empty.status_code == 400 and "choose something to load" in empty.json()["error"]["message"]
    assert not any("secrets" in p for p in connected.paths())


HOSTILE = [
    ("count", {"objects": "Deployment"}, "objects"),
    ("count", {"objects": [{"kind": 5}]}, "objects.0.kind"),
    ("count", {"objects": [{"kind": ""}]}, "objects.0.kind"),
    ("count", {"objects": [{"kind": "Depl\x00oyment"}]}, "objects[0].kind"),
    ("count", {"objects": [{"kind": "Deployment", "labelSelector": "a=" + "b" * 200_000}]}, "objects.0.labelSelector"),
    ("count", {"objects": [{"kind": "Deployment", "labelSelector": "a=b\x00"}]}, "objects[0].labelSelector"),
    ("count", {"objects": [{"kind": "Deployment", "labelSelector": "env in (dev"}]}, "objects.0.labelSelector"),
    ("load", {"objects": [{"kind": "Deployment", "labelSelector": "!!=x"}]}, "objects.0.labelSelector"),
    ("count", {"objects": [{"kind": "Deployment", "namespace": "team-a/../kube-system"}]}, "objects.0.namespace"),
    ("count", {"objects": [{"kind": "Deployment", "labelselector": "app=web"}]}, "objects.0.labelselector"),
    ("count", {"policies": "yes"}, "policies"),
    (
        "sample",
        {"operation": "CREATE", "object": {"kind": "Deployment", "name": "../../../api/v1/secrets"}},
        "object.name",
    ),
    (
        "sample",
        {"operation": "CREATE", "object": {"kind": "Deployment", "namespace": "a/b", "name": "web"}},
        "object.namespace",
    ),
    ("sample", {"operation": "CREATE", "object": {"kind": "Deployment", "name": ""}}, "object.name"),
    ("refresh", {"documentIds": ["x"]}, "documentIds.0"),
]


@pytest.mark.parametrize(("endpoint", "body", "field"), HOSTILE, ids=[f"{e}-{f}" for e, _, f in HOSTILE])
def test_hostile_bodies_are_a_400_naming_the_field_and_never_reach_the_cluster(
    client, project, connected, endpoint, body, field
):
    url = {
        "count": "/api/v1/cluster/count",
        "load": f"/api/v1/projects/{project['id']}/cluster/load",
        "refresh": f"/api/v1/projects/{project['id']}/cluster/refresh",
        "sample": f"/api/v1/projects/{project['id']}/cluster/sample-request",
    }[endpoint]
    response = post(client, url, body, project["editToken"])
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["path"] == field and error["message"].startswith(f"{field}: ")
    assert connected.requests == []  # refused before any call to the cluster


def test_an_unknown_kind_is_named_and_the_other_kinds_still_count(client, connected):
    counted = post(
        client, "/api/v1/cluster/count", {"objects": [{"kind": "NoSuchKind"}, {"kind": "Deployment"}]}
    ).json()
    assert [k["resource"] for k in counted["kinds"]] == ["deployments.apps"]
    assert counted["errors"] == [
        {
            "kind": "NoSuchKind",
            "reason": "not_found",
            "message": "cannot read NoSuchKind: the cluster serves no such kind",
        }
    ]
