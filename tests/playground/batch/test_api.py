"""The batch REST API end to end on the local backend: create (paste and upload), progress, results,
affected objects, drill-down, exports and refusals of bad input. Every figure is computed by the engine."""

from __future__ import annotations

import csv
import io
import tarfile

import pytest
import yaml

from playground.batch import local
from tests.playground.batch.conftest import auth
from tests.playground.batch.dumps import denied_count, dump
from tests.playground.playground_fixtures import binding, policy

pytestmark = pytest.mark.django_db(transaction=True)

JOBS = "/api/v1/batch/jobs"


def assert_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code, error
    return error


def create(client, project, text, **fields):
    body = {"project": project["id"], "text": text, **fields}
    return client.post(JOBS, body, content_type="application/json")


def finished(client, job) -> dict:
    local.wait(timeout=60)
    state = client.get(f"{JOBS}/{job['id']}", **auth(job["editToken"])).json()
    assert state["status"] == "done", state
    return state


def test_pasted_dump_runs_to_exact_totals(client, project):
    response = create(client, project, dump(45))
    assert response.status_code == 201, response.content
    job = response.json()
    assert job["total"] == 45 and job["status"] == "queued" and len(job["editToken"]) >= 32
    assert job["policies"] == ["max-replicas", "max-ten"]
    state = finished(client, job)
    assert state["done"] == 45 and state["etaSeconds"] is None and state["rate"] > 0
    assert state["denied"] == denied_count(45)
    summary = client.get(f"{JOBS}/{job['id']}/results", **auth(job["editToken"])).json()["summary"]
    assert summary["objects"] == 45
    assert summary["denied"] == denied_count(45)
    assert summary["policies"]["max-replicas"]["denied"] == denied_count(45)
    assert summary["policies"]["max-ten"]["denied"] == 0  # 9 replicas are within 10
    assert summary["policies"]["max-ten"]["admitted"] == 45
    assert sum(n["objects"] for n in summary["namespaces"].values()) == 45
    assert summary["kinds"]["Deployment"]["denied"] == denied_count(45)


def test_a_job_no_worker_takes_says_how_long_it_has_waited(client, project):
    """With Celery and no worker running, a job stays queued: its state says for how long (the page then asks
    whether a worker runs); a job that ran says nothing of waiting."""
    from datetime import timedelta

    from django.utils import timezone

    from playground.batch.models import BatchJob

    job = create(client, project, dump(3)).json()
    finished(client, job)
    BatchJob.objects.filter(id=job["id"]).update(status="queued", created=timezone.now() - timedelta(seconds=75))
    waiting = client.get(f"{JOBS}/{job['id']}", **auth(job["editToken"])).json()["waitingSeconds"]
    assert 75 <= waiting < 120
    BatchJob.objects.filter(id=job["id"]).update(status="done")
    assert client.get(f"{JOBS}/{job['id']}", **auth(job["editToken"])).json()["waitingSeconds"] is None


def test_only_the_chosen_policies_run(client, project):
    job = create(client, project, dump(20), policies=["max-ten"]).json()
    finished(client, job)
    summary = client.get(f"{JOBS}/{job['id']}/results", **auth(job["editToken"])).json()["summary"]
    assert list(summary["policies"]) == ["max-ten"]
    assert summary["denied"] == 0


def test_multipart_upload_of_files_and_an_archive(client, project):
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        data = dump(7).encode()
        info = tarfile.TarInfo("manifests/deployments.yaml")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    first = io.BytesIO(dump(5).encode())
    first.name = "dump.yaml"
    second = io.BytesIO(archive.getvalue())
    second.name = "cluster.tar.gz"
    response = client.post(JOBS, {"project": project["id"], "policies": ["max-replicas"], "file": [first, second]})
    assert response.status_code == 201, response.content
    job = response.json()
    assert job["sources"] == [{"name": "dump.yaml", "objects": 5}, {"name": "cluster.tar.gz", "objects": 7}]
    state = finished(client, job)
    assert state["total"] == 12 and state["done"] == 12


def test_affected_objects_are_paged_and_searchable(client, project):
    job = create(client, project, dump(40)).json()
    finished(client, job)
    url, headers = f"{JOBS}/{job['id']}/objects", auth(job["editToken"])
    page = client.get(url, {"limit": 3}, **headers).json()
    assert page["count"] == denied_count(40)
    assert [row["name"] for row in page["items"]] == ["web-0", "web-4", "web-8"]
    second = client.get(url, {"limit": 3, "offset": 3}, **headers).json()
    assert [row["index"] for row in second["items"]] == [12, 16, 20]
    found = client.get(url, {"q": "WEB-12"}, **headers).json()
    assert [row["name"] for row in found["items"]] == ["web-12"]
    prod = client.get(url, {"namespace": "prod", "policy": "max-replicas", "outcome": "denied"}, **headers).json()
    assert prod["count"] == len([i for i in range(0, 40, 4) if i % 3 == 1])
    assert all(row["namespace"] == "prod" for row in prod["items"])
    assert client.get(url, {"policy": "max-ten"}, **headers).json()["count"] == 0
    assert_error(client.get(url, {"outcome": "exploded"}, **headers), 400, "invalid_request")
    assert_error(client.get(url, {"limit": "1000"}, **headers), 400, "invalid_request")
    assert_error(client.get(url, {"offset": "-1"}, **headers), 400, "invalid_request")
    assert_error(client.get(url, {"offset": "²"}, **headers), 400, "invalid_request")


def test_drill_down_recomputes_the_full_result(client, project):
    job = create(client, project, dump(12)).json()
    finished(client, job)
    detail = client.get(f"{JOBS}/{job['id']}/objects/8", **auth(job["editToken"])).json()
    assert detail["object"]["metadata"]["name"] == "web-8"
    assert detail["row"]["allowed"] is False
    result = detail["result"]
    assert result["allowed"] is False
    assert "replicas must be no greater than 5" in result["status"]["message"]
    assert result["response"]["response"]["uid"] == "batch-8"
    assert any(p["policy"] == "max-replicas" for p in result["policies"])
    assert_error(client.get(f"{JOBS}/{job['id']}/objects/12", **auth(job["editToken"])), 404, "not_found")
    huge = f"{JOBS}/{job['id']}/objects/{10**30}"
    assert_error(client.get(huge, **auth(job["editToken"])), 404, "not_found")


def test_exports_csv_and_policy_reports(client, project):
    job = create(client, project, dump(9)).json()
    finished(client, job)
    headers = auth(job["editToken"])
    response = client.get(f"{JOBS}/{job['id']}/export/csv", **headers)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    lines = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(lines) == 9 * 2  # one line per (object, policy)
    denied = [line for line in lines if line["outcome"] == "denied"]
    assert sorted(int(line["index"]) for line in denied) == [0, 4, 8]
    assert {line["policy"] for line in denied} == {"max-replicas"}
    reports = list(yaml.safe_load_all(client.get(f"{JOBS}/{job['id']}/export/policyreport", **headers).content))
    assert {r["kind"] for r in reports} == {"PolicyReport"}
    assert sorted({r["metadata"]["namespace"] for r in reports}) == ["default", "dev", "prod"]
    assert len(reports) == 9  # one per resource
    assert sum(r["summary"]["fail"] for r in reports) == 3
    assert sum(r["summary"]["pass"] for r in reports) == 9 * 2 - 3
    assert_error(client.get(f"{JOBS}/{job['id']}/export/xlsx", **headers), 404, "unknown_format")


def test_bad_input_is_refused_with_where(client, project):
    error = assert_error(
        create(client, project, "apiVersion: v1\nkind: Pod\nmetadata: [unclosed\n"), 400, "invalid_objects"
    )
    assert error["line"] and error["document"] == "pasted text"
    assert "pasted text" in error["message"]
    error = assert_error(create(client, project, "a: 1", policies=["nope"]), 400, "unknown_policy")
    assert "max-replicas" in error["message"]
    assert_error(create(client, project, "a: 1", policies=[]), 400, "invalid_request")
    assert_error(create(client, project, "# only a comment\n"), 400, "invalid_objects")
    assert_error(client.post(JOBS, {"project": project["id"]}, content_type="application/json"), 400, "invalid_request")
    assert_error(create(client, {"id": "missing"}, "a: 1"), 404, "not_found")
    assert_error(create(client, project, "a: 1", colour="red"), 400, "invalid_request")
    assert_error(client.post(JOBS, [1], content_type="application/json"), 400, "invalid_request")
    assert_error(create(client, project, "a: \x00"), 400, "invalid_request")
    huge = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec: {replicas: 1" + "0" * 5000 + "}\n"
    error = assert_error(create(client, project, huge), 400, "invalid_objects")
    assert (error["line"], error["column"]) == (4, 18) and "5,001 digits" in error["message"]


def test_the_json_body_is_checked_by_its_serializer(client, project):
    """Each field's type is checked before the service runs, naming the field; the texts stay ours."""
    missing = assert_error(
        client.post(JOBS, {"project": project["id"]}, content_type="application/json"), 400, "invalid_request"
    )
    assert missing["message"] == "text: give the objects as text (or upload files as multipart field `file`)"
    assert missing["path"] == "text"
    assert assert_error(create(client, project, 7), 400, "invalid_request")["message"] == (
        "text: must be a string, not number"
    )
    assert assert_error(create(client, project, "a: 1", filename=3), 400, "invalid_request")["message"] == (
        "filename: must be a string, not number"
    )
    assert assert_error(create(client, project, "a: 1", policies="all"), 400, "invalid_request")["message"] == (
        "policies: must be an array or null, not string"
    )
    unknown = assert_error(create(client, project, "a: 1", colour="red"), 400, "invalid_request")
    assert unknown["message"] == "colour: unknown field (expected project, policies, text, filename, cluster)"
    job = create(client, project, "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n", filename=None)
    assert job.status_code == 201, job.content


def test_a_project_without_policies_is_refused(client):
    response = client.post(
        "/api/v1/projects",
        {"documents": [{"name": "ns", "text": "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n"}]},
        content_type="application/json",
    )
    error = assert_error(create(client, response.json(), dump(2)), 400, "no_policies")
    assert "no admission policy" in error["message"]


def test_size_and_count_limits(client, project, settings):
    settings.PLAYGROUND_BATCH_MAX_BYTES = 1000
    assert_error(create(client, project, dump(10)), 413, "too_large")
    upload = io.BytesIO(dump(10).encode())
    upload.name = "big.yaml"
    assert_error(client.post(JOBS, {"project": project["id"], "file": [upload]}), 413, "too_large")
    settings.PLAYGROUND_BATCH_MAX_BYTES = 10**7
    settings.PLAYGROUND_BATCH_MAX_OBJECTS = 5
    error = assert_error(create(client, project, dump(6)), 413, "too_large")
    assert "5" in error["message"]


def test_job_endpoints_need_the_job_or_project_token(client, project):
    job = create(client, project, dump(3)).json()
    finished(client, job)
    for path in ("", "/results", "/objects", "/objects/0", "/export/csv"):
        assert_error(client.get(f"{JOBS}/{job['id']}{path}"), 403, "forbidden")
        assert_error(client.get(f"{JOBS}/{job['id']}{path}", **auth(job["editToken"] + "x")), 403, "forbidden")
        assert client.get(f"{JOBS}/{job['id']}{path}", **auth(project["editToken"])).status_code == 200
    assert_error(client.post(f"{JOBS}/{job['id']}/cancel"), 403, "forbidden")
    assert_error(client.get(f"{JOBS}/nope", **auth(job["editToken"])), 404, "not_found")
    assert_error(client.get(f"{JOBS}/no%00pe", **auth(job["editToken"])), 400, "invalid_request")


def test_the_page_lists_the_projects_policies(client, project):
    response = client.get(f"/p/{project['id']}/batch")
    assert response.status_code == 200
    page = response.content.decode()
    assert "max-replicas" in page and "max-ten" in page
    assert client.get("/p/missing/batch").status_code == 404


def test_kyverno_mutations_and_generations_are_counted_and_filterable(client):
    from tests.evaluator.batch.test_rows_kyverno_mutate_generate import KYVERNO

    body = {"title": "Kyverno", "documents": [{"name": "kyverno", "text": KYVERNO}]}
    project = client.post("/api/v1/projects", body, content_type="application/json").json()
    items = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"team-{i}"}} for i in range(3)] + [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "default"}}
    ]
    job = create(client, project, yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items})).json()
    finished(client, job)
    headers = auth(job["editToken"])
    summary = client.get(f"{JOBS}/{job['id']}/results", **headers).json()["summary"]
    assert summary["policies"]["ClusterPolicy/quota"]["generated"] == 3
    generated = client.get(f"{JOBS}/{job['id']}/objects", {"outcome": "generated"}, **headers).json()
    assert [item["name"] for item in generated["items"]] == ["team-0", "team-1", "team-2"]
    lines = list(csv.DictReader(io.StringIO(client.get(f"{JOBS}/{job['id']}/export/csv", **headers).content.decode())))
    assert [line["message"] for line in lines if line["outcome"] == "generated"] == [
        f"create ResourceQuota team-{i}/default-quota" for i in range(3)
    ]


def test_a_policy_that_does_not_load_is_flagged_on_the_page_and_refused_by_the_api(client):
    broken = policy("broken-limit").replace("<= 5", "<= ")
    body = {
        "title": "One broken",
        "documents": [
            {"name": "policy.yaml", "text": policy("max-replicas") + "---\n" + binding("max-replicas")},
            {"name": "broken.yaml", "text": broken + "---\n" + binding("broken-limit")},
        ],
    }
    project = client.post("/api/v1/projects", body, content_type="application/json").json()
    page = client.get(f"/p/{project['id']}/batch").content.decode()
    assert 'value="broken-limit" disabled>' in page and 'value="max-replicas" checked>' in page
    assert "broken-limit does not load, so it cannot run: spec.validations[0].expression" in page
    assert "compilation failed" in page
    for chosen in (None, ["broken-limit"], ["max-replicas", "broken-limit"]):
        fields = {} if chosen is None else {"policies": chosen}
        error = assert_error(create(client, project, dump(8), **fields), 400, "invalid_policy")
        assert error["message"].startswith("policies: 'broken-limit' does not load: spec.validations[0].expression")
        assert "compilation failed" in error["message"]
    job = create(client, project, dump(8), policies=["max-replicas"]).json()
    finished(client, job)
    summary = client.get(f"{JOBS}/{job['id']}/results", **auth(job["editToken"])).json()["summary"]
    assert (list(summary["policies"]), summary["denied"]) == (["max-replicas"], denied_count(8))
