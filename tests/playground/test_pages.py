"""Page routes: editor, snapshot, gallery, example; a CSP without inline script on every page."""

import json
import re

import pytest

from playground.services import example_service, project_service, snapshot_service
from tests.playground.playground_fixtures import project_body

pytestmark = pytest.mark.django_db


def page_data(response) -> dict:
    match = re.search(rb'<script id="page-data" type="application/json">(.*?)</script>', response.content, re.S)
    assert match, "the page carries its data as a json_script block"
    return json.loads(match.group(1))


def assert_csp(response):
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    assert "object-src 'none'" in policy and "frame-ancestors 'none'" in policy


def test_editor_page_carries_the_project_and_csp(client):
    body = project_body()
    state, _ = project_service.create_project(body["title"], "", body["documents"], body["requests"])
    response = client.get(f"/p/{state['id']}")
    assert response.status_code == 200
    assert_csp(response)
    data = page_data(response)
    assert data["projectId"] == state["id"] and data["wsPath"] == f"/ws/projects/{state['id']}/"
    assert "csrftoken" in response.cookies


def test_user_text_is_escaped_never_rendered_as_html(client):
    payload = "</script><script>alert(1)</script><img src=x onerror=alert(2)>"
    state, _ = project_service.create_project(payload, "", [{"name": payload, "text": payload}], [])
    response = client.get(f"/p/{state['id']}")
    assert response.status_code == 200
    assert b"<script>alert(1)" not in response.content
    assert b"<img src=x" not in response.content
    assert page_data(response)["projectId"] == state["id"]


def test_snapshot_page_and_missing_snapshot(client):
    body = project_body()
    state, _ = project_service.create_project(body["title"], "", body["documents"], body["requests"])
    snap = snapshot_service.create_snapshot(project_id=state["id"])
    response = client.get(snap["url"])
    assert response.status_code == 200
    assert_csp(response)
    assert page_data(response)["snapshot"]["documents"][0]["text"] == body["documents"][0]["text"]
    assert client.get("/s/aaaaaaaaaa").status_code == 404


def test_gallery_and_example_pages(client):
    response = client.get("/examples")
    assert response.status_code == 200
    assert_csp(response)
    slugs = [example["slug"] for example in page_data(response)["examples"]]
    titles = {example["slug"]: example["title"] for example in example_service.list_examples()}
    assert sorted(slugs) == sorted(titles)
    assert slugs == sorted(slugs, key=lambda slug: titles[slug].casefold())  # A–Z whatever the case
    example = client.get(f"/examples/{slugs[0]}")
    assert example.status_code == 200
    assert page_data(example)["example"]["slug"] == slugs[0]
    assert client.get("/examples/not-there").status_code == 404


def test_load_examples_stores_read_only_projects(client):
    from django.core.management import call_command

    call_command("load_examples")
    call_command("load_examples")  # refreshing is idempotent
    slug = example_service.list_examples()[0]["slug"]
    state = project_service.project_state("ex-" + slug)
    assert state["isExample"] is True
    assert [d["text"] for d in state["documents"]] == [
        d["text"] for d in example_service.get_example(slug=slug)["documents"]
    ]
    response = client.patch(
        f"/api/v1/projects/ex-{slug}", {"title": "x"}, content_type="application/json", HTTP_X_EDIT_TOKEN=""
    )
    assert response.status_code == 403
    page = client.get(f"/examples/{slug}")
    assert page_data(page)["projectId"] == "ex-" + slug
