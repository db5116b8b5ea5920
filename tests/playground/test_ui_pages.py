"""What a person sees around the editor: styled 404/500 pages (API URLs stay JSON), read-only pages with
"Fork to edit" and no write controls, human timestamps, consistent fork titles, the gallery's groups."""

import re

import pytest
from django.test import Client, override_settings

from playground import error_pages, timestamps
from playground.services import example_service, project_service, snapshot_service
from playground.services.fork_titles import fork_title
from tests.playground.playground_fixtures import project_body
from tests.playground.test_pages import page_data

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("path", "hint"),
    [
        ("/w/NOPE99", "no room with code NOPE99 — check the code"),
        ("/w/NOPE99/teacher", "no room with code NOPE99"),
        ("/p/doesnotexist", "This project does not exist"),
        ("/s/aaaaaaaaaa", "This permalink does not exist"),
        ("/examples/no-such-example", "no example named “no-such-example”"),
    ],
)
def test_a_missing_page_is_a_styled_404_with_a_hint_and_a_way_back(client, path, hint):
    response = client.get(path)
    assert response.status_code == 404
    page = response.content.decode()
    assert hint in page
    assert 'class="site-header"' in page and 'href="/examples"' in page and "error-home" in page
    assert response["Content-Type"].startswith("text/html")


@override_settings(DEBUG=False)
def test_an_unknown_url_is_the_styled_404_and_an_unknown_api_url_stays_json():
    client = Client()
    page = client.get("/no/such/page")
    assert page.status_code == 404
    assert "Nothing lives at /no/such/page" in page.content.decode()
    api = client.get("/api/v1/no-such-endpoint")
    assert api.status_code == 404
    assert api["Content-Type"] == "application/json"
    assert api.json()["error"]["code"] == "not_found"


def test_the_500_page_is_styled_for_people_and_json_for_the_api(rf):
    page = error_pages.server_error(rf.get("/p/x"))
    assert page.status_code == 500
    assert "Something went wrong on our side" in page.content.decode()
    assert 'href="/"' in page.content.decode()
    api = error_pages.server_error(rf.get("/api/v1/projects"))
    assert api.status_code == 500 and b'"internal_error"' in api.content


def test_example_and_snapshot_pages_are_read_only_with_fork_to_edit(client):
    slug = example_service.list_examples()[0]["slug"]
    body = project_body()
    state, _ = project_service.create_project(body["title"], "", body["documents"], body["requests"])
    snap = snapshot_service.create_snapshot(project_id=state["id"])
    for path in (f"/examples/{slug}", snap["url"]):
        page = client.get(path).content.decode()
        assert ">Fork to edit</button>" in page
        assert re.search(r'id="project-title"[^>]*readonly', page)
        assert re.search(r'id="btn-add-document"[^>]*hidden', page)
        assert re.search(r'id="btn-add-request"[^>]*hidden', page)
        assert re.search(r'id="btn-evaluate"[^>]*hidden', page)
    live = client.get(f"/p/{state['id']}").content.decode()
    assert ">Fork</button>" in live and not re.search(r'id="btn-add-document"[^>]*hidden', live)


def test_snapshot_time_is_human_with_the_exact_instant_on_hover(client):
    body = project_body()
    state, _ = project_service.create_project(body["title"], "", body["documents"], body["requests"])
    snap = snapshot_service.create_snapshot(project_id=state["id"])
    page = client.get(snap["url"]).content.decode()
    match = re.search(r'<time class="human-time" datetime="([^"]+)" title="([^"]+)">([^<]+)</time>', page)
    assert match, "the snapshot header carries a <time> element"
    iso, exact, text = match.groups()
    assert re.fullmatch(r"\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC", text)  # not an ISO string
    assert exact.endswith("UTC") and iso.startswith(exact[:10])


def test_timestamps_describe_tolerates_missing_and_bad_values():
    assert timestamps.describe(None) is None
    assert timestamps.describe("yesterday") is None
    described = timestamps.describe("2026-11-25T14:14:12.153258+00:00")
    assert described["text"] == "25 Nov 2026, 14:14 UTC"
    assert described["exact"] == "2026-11-25 14:14:12 UTC"


def test_fork_titles_follow_one_rule_everywhere(client):
    assert fork_title("Replica limits") == "Replica limits (fork)"
    assert fork_title("Replica limits (fork)") == "Replica limits (fork)"
    assert fork_title("") == "Untitled (fork)"
    example = example_service.list_examples()[0]
    forked = client.post(f"/api/v1/examples/{example['slug']}/fork").json()
    assert forked["title"] == f"{example['title']} (fork)"
    body = project_body()
    state, _ = project_service.create_project("Mine (fork)", "", body["documents"], body["requests"])
    snap = snapshot_service.create_snapshot(project_id=state["id"])
    assert client.post(f"/api/v1/snapshots/{snap['id']}/fork").json()["title"] == "Mine (fork)"


def test_the_gallery_is_grouped_by_what_it_teaches(client):
    response = client.get("/examples")
    page = response.content.decode()
    for heading in (
        "VAP basics",
        "Params and bindings",
        "MutatingAdmissionPolicy",
        "Kyverno patterns and anchors",
        "Kyverno CEL and generated VAPs",
        "Pod Security",
        "Authorizer and request info",
    ):
        assert f">{heading}</h2>" in page
    data = page_data(response)
    assert len(data["examples"]) >= 80
    map_example = next(e for e in data["examples"] if e["slug"] == "map-json-patch-annotation")
    assert "JSONPatch" in map_example["words"]  # the content search sees the YAML
