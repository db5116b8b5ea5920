"""A batch job whose objects are read from the connected cluster (the fake API server): the kinds the policies
match, narrowed by namespace and label selector; kinds that cannot be read are the job's warnings."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from django.utils import timezone

from playground.batch import local, runner
from playground.batch.models import BatchChunk, BatchJob
from tests.fake_apiserver import FakeCluster, sample_cluster, serving, write_kubeconfig
from tests.playground.batch.conftest import auth

pytestmark = pytest.mark.django_db(transaction=True)

JOBS = "/api/v1/batch/jobs"


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
        yield cluster


def create(client, project, cluster_spec, **fields):
    body = {"project": project["id"], "cluster": cluster_spec, **fields}
    return client.post(JOBS, body, content_type="application/json")


def finished(client, job) -> dict:
    local.wait(timeout=60)
    state = client.get(f"{JOBS}/{job['id']}", **auth(job["editToken"])).json()
    assert state["status"] == "done", state
    return state


def test_the_kinds_the_policies_match_run_from_the_cluster(client, project, connected):
    response = create(client, project, {})
    assert response.status_code == 201, response.content
    job = response.json()
    assert job["status"] == "reading" and job["total"] == 0  # a worker reads the cluster: the job's first phase
    assert job["sources"][0]["name"] == "cluster fake" and job["sources"][0]["cluster"]["kinds"] is None
    state = finished(client, job)
    assert state["total"] == 3 and state["denied"] == 1  # web has 9 replicas; the project allows 5
    assert state["warnings"] == []
    source = state["sources"][0]
    assert source["objects"] == 3 and source["reading"] is None
    assert source["kinds"] == [
        {"kind": "deployments.apps", "read": 3, "total": None},
        {"kind": "namespaces", "read": 4, "total": None},
    ]
    lists = [p for p in connected.paths() if p.endswith(("/deployments", "/namespaces"))]
    assert lists == ["/apis/apps/v1/deployments", "/api/v1/namespaces"]  # only what the policies match
    assert {method for method, *_ in connected.requests} == {"GET"}


def test_narrowed_by_namespace_and_selector_and_failed_kinds_are_warnings(client, project, connected):
    job = create(client, project, {"namespace": "team-a", "labelSelector": "app=api"}).json()
    state = finished(client, job)
    assert state["total"] == 1 and state["denied"] == 0
    job = create(client, project, {"kinds": ["Deployment", "StatefulSet", "Secret"]}).json()
    state = finished(client, job)
    assert state["total"] == 3
    assert [w["message"].split(":")[0] for w in state["warnings"]] == [
        "cannot read Secret",
        "cannot read statefulsets.apps",
    ]
    assert not any("secrets" in p for p in connected.paths())


def test_refusals(client, project, connected, settings):
    bad = create(client, project, {"kinds": "Deployment"})
    assert bad.status_code == 400 and bad.json()["error"]["path"] == "cluster.kinds"
    for field, value in (
        ("labelSelector", "env in (dev"),
        ("labelSelector", "a=" + "b" * 10_000),
        ("namespace", "a/.."),
    ):
        refused = create(client, project, {field: value})
        assert refused.status_code == 400 and refused.json()["error"]["path"] == f"cluster.{field}", refused.content
    both = client.post(JOBS, {"project": project["id"], "text": "x", "cluster": {}}, content_type="application/json")
    assert both.status_code == 400 and both.json()["error"]["path"] == "cluster"
    settings.PLAYGROUND_CLUSTER_CONTEXT = "gone"
    gone = create(client, project, {}).json()  # the job is created; its read fails, saying why
    local.wait(timeout=60)
    state = client.get(f"{JOBS}/{gone['id']}", **auth(gone["editToken"])).json()
    assert state["status"] == "failed" and state["error"].startswith(
        "cannot read discovery: the cluster is unreachable"
    )
    settings.PLAYGROUND_CLUSTER = ""
    off = create(client, project, {})
    assert off.status_code == 404 and off.json()["error"]["code"] == "cluster_not_configured"


def test_the_read_reports_progress_per_kind_and_names_a_forbidden_kind(client, project, connected):
    """Deployments come one per page, each a while: the job, while `reading`, says how far it is
    ("deployments.apps: 1 / 3"); StatefulSets are forbidden (403), which the job names and runs without."""
    connected.page_size["deployments.apps"] = 1
    connected.slow["deployments.apps"] = 0.4
    job = create(client, project, {"kinds": ["Deployment", "StatefulSet"]}).json()
    seen: list[dict] = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        response = client.get(f"{JOBS}/{job['id']}", **auth(job["editToken"]))
        if response.status_code == 503:  # the test database (SQLite) is locked while the worker writes: look again
            time.sleep(0.05)
            continue
        state = response.json()
        if state["status"] != "reading":
            break
        reading = state["sources"][0]["reading"]
        if reading and reading not in seen:
            seen.append(reading)
        time.sleep(0.05)
    assert {"kind": "deployments.apps", "read": 1, "total": 3} in seen  # the first page of three, shown
    state = finished(client, job)
    assert state["total"] == 3
    assert state["sources"][0]["kinds"][0] == {"kind": "deployments.apps", "read": 3, "total": 3}
    forbidden = [k for k in state["sources"][0]["kinds"] if "error" in k]
    assert [k["kind"] for k in forbidden] == ["statefulsets.apps"]
    assert forbidden[0]["error"].startswith("cannot read statefulsets.apps: 403 Forbidden")
    assert [w["message"].split(":")[0] for w in state["warnings"]] == ["cannot read statefulsets.apps"]


def test_a_read_cancelled_midway_queues_nothing(client, project, connected):
    connected.page_size["deployments.apps"] = 1
    connected.slow["deployments.apps"] = 0.5
    job = create(client, project, {"kinds": ["Deployment"]}).json()
    for _attempt in range(100):  # the test database (SQLite) is locked while the worker writes: 503, ask again
        cancelled = client.post(f"{JOBS}/{job['id']}/cancel", **auth(job["editToken"]))
        if cancelled.status_code != 503:
            break
        time.sleep(0.05)
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    local.wait(timeout=60)
    state = client.get(f"{JOBS}/{job['id']}", **auth(job["editToken"])).json()
    assert state["status"] == "cancelled" and state["total"] == 0
    assert BatchChunk.objects.filter(job_id=job["id"]).count() == 0


def test_a_reader_lost_fails_the_job_once_the_deadline_and_a_lease_passed(
    client, project, connected, settings, monkeypatch
):
    monkeypatch.setattr(runner, "dispatch_read", lambda job_id: None)  # the read's worker died before reading
    settings.PLAYGROUND_CLUSTER_DEADLINE_SECONDS = 5
    job = create(client, project, {}).json()
    assert client.get(f"{JOBS}/{job['id']}", **auth(job["editToken"])).json()["status"] == "reading"
    BatchJob.objects.filter(id=job["id"]).update(
        created=timezone.now() - timedelta(seconds=5 + settings.PLAYGROUND_BATCH_LEASE_SECONDS + 1)
    )
    state = client.get(f"{JOBS}/{job['id']}", **auth(job["editToken"])).json()
    assert state["status"] == "failed" and state["error"].startswith("the worker reading the cluster stopped")
