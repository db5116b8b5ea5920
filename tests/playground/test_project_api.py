"""The project REST API: CRUD with edit tokens, versions, size limits, evaluation, snapshots, examples."""

import pytest
from django.core.cache import cache
from django.test import override_settings

from playground.models import Project
from tests.playground.playground_fixtures import POLICY, deployment, project_body

pytestmark = pytest.mark.django_db


def assert_error(response, status, code):
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "document", "path", "line", "column"}
    assert body["error"]["code"] == code
    return body["error"]


@pytest.fixture
def created(client):
    response = client.post("/api/v1/projects", project_body(), content_type="application/json")
    assert response.status_code == 201
    return response.json()


def auth(token):
    return {"HTTP_X_EDIT_TOKEN": token}


def test_create_returns_token_once_and_stores_only_its_hash(client, created):
    token = created["editToken"]
    assert len(token) >= 32
    stored = Project.objects.get(pk=created["id"])
    assert token not in stored.edit_token_hash and stored.edit_token_hash
    fetched = client.get(f"/api/v1/projects/{created['id']}").json()
    assert "editToken" not in fetched
    assert [d["name"] for d in fetched["documents"]] == ["policy", "binding"]
    assert fetched["requests"][1]["expected"] == {"outcome": "denied", "messageContains": "no greater than 5"}


def test_writes_need_the_right_token(client, created):
    pid = created["id"]
    url = f"/api/v1/projects/{pid}"
    assert_error(client.patch(url, {"title": "x"}, content_type="application/json"), 403, "forbidden")
    assert_error(client.patch(url, {"title": "x"}, content_type="application/json", **auth("wrong")), 403, "forbidden")
    response = client.patch(url, {"title": "Renamed"}, content_type="application/json", **auth(created["editToken"]))
    assert response.status_code == 200
    assert response.json()["title"] == "Renamed"
    assert response.json()["version"] == created["version"] + 1


def test_every_edit_is_saved_as_typed_with_a_new_version(client, created):
    pid, token = created["id"], created["editToken"]
    doc_id = created["documents"][0]["id"]
    broken = "apiVersion: v1\nkind: [unclosed\n  "
    response = client.put(
        f"/api/v1/projects/{pid}/documents/{doc_id}", {"text": broken}, content_type="application/json", **auth(token)
    )
    assert response.status_code == 200
    assert response.json()["text"] == broken
    assert response.json()["projectVersion"] == created["version"] + 1
    assert client.get(f"/api/v1/projects/{pid}/documents/{doc_id}").json()["text"] == broken
    added = client.post(
        f"/api/v1/projects/{pid}/requests",
        {"name": "r3", "text": deployment(1), "expected": {"outcome": "allowed"}},
        content_type="application/json",
        **auth(token),
    )
    assert added.status_code == 201 and added.json()["projectVersion"] == created["version"] + 2
    deleted = client.delete(f"/api/v1/projects/{pid}/requests/{added.json()['id']}", **auth(token))
    assert deleted.status_code == 200
    assert_error(client.get(f"/api/v1/projects/{pid}/requests/{added.json()['id']}"), 404, "not_found")
    assert client.get(f"/api/v1/projects/{pid}").json()["version"] == created["version"] + 3


def test_invalid_expected_is_refused_with_its_path(client, created):
    error = assert_error(
        client.post(
            f"/api/v1/projects/{created['id']}/requests",
            {"name": "r", "text": "", "expected": {"outcome": "maybe"}},
            content_type="application/json",
            **auth(created["editToken"]),
        ),
        400,
        "invalid_expected",
    )
    assert error["path"] == "expected.outcome"


def test_unknown_project_is_404_in_the_error_shape(client):
    assert_error(client.get("/api/v1/projects/nope"), 404, "not_found")


@override_settings(PLAYGROUND_MAX_DOCUMENT_BYTES=1000, PLAYGROUND_MAX_PROJECT_BYTES=3000)
def test_size_limits_answer_413(client, created):
    pid, token = created["id"], created["editToken"]
    error = assert_error(
        client.post(
            f"/api/v1/projects/{pid}/documents",
            {"name": "huge", "text": "x" * 1001},
            content_type="application/json",
            **auth(token),
        ),
        413,
        "too_large",
    )
    assert error["document"] == "huge"
    # each document fits, the project does not
    for _ in range(2):
        client.post(
            f"/api/v1/projects/{pid}/documents",
            {"name": "d", "text": "#" * 900},
            content_type="application/json",
            **auth(token),
        )
    assert_error(
        client.post(
            f"/api/v1/projects/{pid}/documents",
            {"name": "d", "text": "#" * 900},
            content_type="application/json",
            **auth(token),
        ),
        413,
        "too_large",
    )
    assert_error(
        client.post(
            "/api/v1/evaluate", {"documents": [{"name": "a", "text": "y" * 2000}]}, content_type="application/json"
        ),
        413,
        "too_large",
    )


def test_project_evaluation_gives_results_and_verdicts(client, created):
    cache.clear()
    body = client.post(f"/api/v1/projects/{created['id']}/evaluate").json()
    assert body["version"] == created["version"]
    assert [d["errors"] for d in body["documents"]] == [[], []]
    small, big = body["requests"]
    assert small["result"]["allowed"] is True and small["verdict"] == "pass"
    assert big["result"]["allowed"] is False and big["verdict"] == "pass"
    assert "replicas must be no greater than 5" in big["result"]["status"]["message"]
    assert big["result"]["policies"][0]["trace"]["validations"][0]["value"] is False


def test_failing_expectation_is_a_fail_verdict_with_a_message(client, created):
    cache.clear()
    pid, token = created["id"], created["editToken"]
    req_id = created["requests"][0]["id"]
    client.put(
        f"/api/v1/projects/{pid}/requests/{req_id}",
        {"text": deployment(7)},
        content_type="application/json",
        **auth(token),
    )
    small = client.post(f"/api/v1/projects/{pid}/evaluate").json()["requests"][0]
    assert small["verdict"] == "fail"
    assert small["verdictMessage"] == "expected allowed=true, got allowed=false"


def test_stateless_evaluation_maps_errors_to_their_document(client):
    cache.clear()
    response = client.post(
        "/api/v1/evaluate",
        {
            "documents": [{"name": "good", "text": POLICY}, {"name": "bad", "text": "a: 1\nb: [\n"}],
            "requests": [{"name": "r", "text": deployment(9)}],
        },
        content_type="application/json",
    )
    assert response.status_code == 200
    good, bad = response.json()["documents"]
    assert [e["severity"] for e in good["errors"]] == ["warning"]
    assert "has no binding" in good["errors"][0]["message"]
    assert bad["errors"][0]["line"] == 3 and "invalid YAML" in bad["errors"][0]["message"]
    request = response.json()["requests"][0]
    assert request["verdict"] == "none"
    assert request["result"]["allowed"] is True  # a policy without a binding does nothing


def test_stateless_evaluation_refuses_a_wrong_body(client):
    assert_error(
        client.post("/api/v1/evaluate", {"documents": "nope"}, content_type="application/json"), 400, "invalid_request"
    )
    assert_error(client.post("/api/v1/evaluate", "[1,", content_type="application/json"), 400, "invalid_json")


@override_settings(PLAYGROUND_EVALUATION_RATE="2/min")
def test_evaluation_is_rate_limited(client):
    cache.clear()
    body = {"documents": [], "requests": []}
    for _ in range(2):
        assert client.post("/api/v1/evaluate", body, content_type="application/json").status_code == 200
    assert_error(client.post("/api/v1/evaluate", body, content_type="application/json"), 429, "throttled")
    cache.clear()


def test_snapshots_are_content_addressed_immutable_and_forkable(client, created):
    pid, token = created["id"], created["editToken"]
    first = client.post(f"/api/v1/projects/{pid}/snapshots")
    assert first.status_code == 201
    sid = first.json()["id"]
    assert len(sid) == 10 and first.json()["url"] == f"/s/{sid}"
    assert client.post(f"/api/v1/projects/{pid}/snapshots").json()["id"] == sid  # same content, same id
    doc_id = created["documents"][0]["id"]
    client.put(
        f"/api/v1/projects/{pid}/documents/{doc_id}",
        {"text": "changed"},
        content_type="application/json",
        **auth(token),
    )
    snap = client.get(f"/api/v1/snapshots/{sid}").json()
    assert snap["documents"][0]["text"] == POLICY  # the snapshot did not follow the edit
    assert snap["engineVersion"]
    assert client.post(f"/api/v1/projects/{pid}/snapshots").json()["id"] != sid
    fork = client.post(f"/api/v1/snapshots/{sid}/fork")
    assert fork.status_code == 201
    forked = fork.json()
    assert forked["id"] != pid and forked["editToken"] and forked["forkedFrom"] == sid
    assert forked["documents"][0]["text"] == POLICY
    assert_error(client.get("/api/v1/snapshots/zzzzzzzzzz"), 404, "not_found")


def test_examples_are_listed_readable_and_forkable(client):
    listing = client.get("/api/v1/examples").json()
    assert len(listing) >= 8
    slug = listing[0]["slug"]
    example = client.get(f"/api/v1/examples/{slug}").json()
    assert example["documents"] and example["title"] == listing[0]["title"]
    fork = client.post(f"/api/v1/examples/{slug}/fork")
    assert fork.status_code == 201 and fork.json()["editToken"]
    assert [d["text"] for d in fork.json()["documents"]] == [d["text"] for d in example["documents"]]
    assert_error(client.get("/api/v1/examples/no-such-example"), 404, "not_found")


def test_openapi_schema_lists_the_project_endpoints(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    text = response.content.decode()
    for path in ("/api/v1/projects/{project_id}/evaluate", "/api/v1/snapshots/{snapshot_id}/fork", "/api/v1/evaluate"):
        assert path in text
