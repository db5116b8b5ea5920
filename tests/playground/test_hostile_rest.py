"""Every REST endpoint answers hostile input with a 4xx in the one error shape, never a 500."""

from __future__ import annotations

import pytest

from tests.playground import hostile
from tests.playground.playground_fixtures import project_body

pytestmark = pytest.mark.django_db

ERROR_FIELDS = {"code", "message", "document", "path", "line", "column"}

# (method, URL, body template with @ where the hostile fragment goes, which fragments)
CASES = [
    ("post", "/api/v1/cel", '{"expression": @}', hostile.FOR_STRING),
    ("post", "/api/v1/cel", '{"expression": "1", "variables": @}', hostile.FOR_OBJECT),
    ("post", "/api/v1/cel", '{"expression": "1", "variables_text": @}', hostile.FOR_STRING),
    ("post", "/api/v1/evaluate", '{"documents": [{"name": "d", "text": @}]}', hostile.FOR_STRING),
    ("post", "/api/v1/evaluate", '{"documents": [{"name": @, "text": "a: 1"}]}', hostile.FOR_STRING),
    ("post", "/api/v1/evaluate", '{"documents": [], "requests": [{"name": "r", "text": @}]}', hostile.FOR_STRING),
    ("post", "/api/v1/evaluate", '{"documents": [], "requests": [{"text": "", "expected": @}]}', hostile.FOR_OBJECT),
    ("post", "/api/v1/evaluate", '{"documents": @}', {**hostile.FOR_OBJECT, "string": '"x"'}),
    ("post", "/api/v1/projects", '{"title": @}', hostile.FOR_STRING),
    ("post", "/api/v1/projects", '{"description": @}', hostile.FOR_STRING),
    ("post", "/api/v1/projects", '{"documents": [{"name": "d", "text": @}]}', hostile.FOR_STRING),
    ("patch", "/api/v1/projects/{project}", '{"title": @}', hostile.FOR_STRING),
    ("post", "/api/v1/projects/{project}/documents", '{"name": "n", "text": @}', hostile.FOR_STRING),
    ("post", "/api/v1/projects/{project}/documents", '{"name": @, "text": ""}', hostile.FOR_STRING),
    ("put", "/api/v1/projects/{project}/documents/{document}", '{"text": @}', hostile.FOR_STRING),
    ("post", "/api/v1/projects/{project}/requests", '{"text": "", "expected": @}', hostile.FOR_OBJECT),
    ("put", "/api/v1/projects/{project}/requests/{request}", '{"name": @}', hostile.FOR_STRING),
]
PARAMS = [
    pytest.param(method, url, hostile.fill(template, fragment), id=f"{method}-{url}-{template[:30]}-{name}")
    for method, url, template, fragments in CASES
    for name, fragment in fragments.items()
]


@pytest.fixture
def project(client):
    response = client.post("/api/v1/projects", project_body(), content_type="application/json")
    assert response.status_code == 201
    return response.json()


def assert_4xx(response):
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:300])
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == ERROR_FIELDS, body


@pytest.mark.parametrize("method, url, body", PARAMS)
def test_hostile_bodies_get_a_4xx_in_the_error_shape(client, project, settings, method, url, body):
    settings.PLAYGROUND_EVALUATION_PROCESSES = 0  # only the edge is under test here
    url = url.format(
        project=project["id"], document=project["documents"][0]["id"], request=project["requests"][0]["id"]
    )
    response = getattr(client, method)(
        url, body, content_type="application/json", HTTP_X_EDIT_TOKEN=project["editToken"]
    )
    assert_4xx(response)


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/projects/a%00b",
        "/api/v1/projects/%ED%A0%80",
        "/api/v1/snapshots/a%00b",
        "/api/v1/snapshots/a%00b/fork",
        "/api/v1/projects/x/documents/" + "9" * 5000,
        "/api/v1/nothing-here",
        "/api/v1/projects/x/documents/99999999999999999999999",
        "/api/v1/examples/" + "x" * 3000,
    ],
)
def test_hostile_urls_get_a_json_4xx(client, url):
    assert_4xx(client.get(url))
    assert_4xx(client.post(url, "{}", content_type="application/json"))


def test_unknown_fields_are_refused_naming_the_field(client):
    response = client.post("/api/v1/evaluate", {"documents": [], "reqests": []}, content_type="application/json")
    assert_4xx(response)
    assert response.json()["error"]["path"] == "reqests"
    response = client.post(
        "/api/v1/evaluate", {"documents": [{"name": "a", "text": "", "txt": "x"}]}, content_type="application/json"
    )
    assert response.json()["error"]["path"] == "documents[0].txt"


def test_required_fields_are_named(client):
    response = client.post("/api/v1/evaluate", {"requests": []}, content_type="application/json")
    assert_4xx(response)
    assert response.json()["error"]["path"] == "documents"


def test_method_media_type_and_unknown_url_errors_are_json(client):
    assert_4xx(client.delete("/api/v1/evaluate"))
    assert client.delete("/api/v1/evaluate").json()["error"]["code"] == "method_not_allowed"
    response = client.post("/api/v1/evaluate", "a=1", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415 and response.json()["error"]["code"] == "unsupported_media_type"
    response = client.post("/api/v1/evaluate", b"--x\r\nbroken", content_type="multipart/form-data; boundary=x")
    assert_4xx(response)
    response = client.get("/api/v1/does/not/exist")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


def test_too_many_documents_are_refused(client, settings):
    settings.PLAYGROUND_MAX_ITEMS = 5
    response = client.post("/api/v1/evaluate", {"documents": [{"text": ""}] * 6}, content_type="application/json")
    assert response.status_code == 413 and response.json()["error"]["path"] == "documents"


def test_documents_and_requests_may_be_json_objects_in_every_request_form(client, settings):
    settings.PLAYGROUND_EVALUATION_PROCESSES = 0
    from tests.playground.playground_fixtures import BINDING, POLICY
    import yaml

    pod = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 9},
    }
    request = {
        "uid": "1",
        "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
        "operation": "CREATE",
        "name": "web",
        "namespace": "default",
        "object": pod,
        "userInfo": {"username": "u"},
    }
    review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}
    documents = [yaml.safe_load(POLICY), yaml.safe_load(BINDING)]
    response = client.post(
        "/api/v1/evaluate",
        {"documents": documents, "requests": [pod, request, review]},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    results = [entry["result"] for entry in response.json()["requests"]]
    assert [result["allowed"] for result in results] == [False, False, False], results
