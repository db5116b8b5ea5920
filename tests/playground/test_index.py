"""The landing page runs a live example; the plain CEL mode lives at /cel."""

from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

from tests.playground.test_pages import page_data

pytestmark = pytest.mark.django_db


def test_landing_page_shows_a_live_example_with_its_result_already_computed(client):
    response = client.get("/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "The service is up." not in page
    assert 'id="landing-demo"' in page and "dist/landing.js" in page
    demo = page_data(response)["demo"]
    assert demo["slug"] == "first-policy"
    decisions = [entry["result"]["allowed"] for entry in demo["evaluation"]["requests"]]
    assert decisions == [False, True]  # 7 replicas denied, 3 allowed: on screen before any script runs
    assert '<strong data-testid="decision-static">Denied</strong>' in page
    assert '<strong data-testid="decision-static">Allowed</strong>' in page
    assert "csrftoken" in response.cookies


def test_cel_page_has_the_form_and_a_share_link(client):
    response = client.get("/cel")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="cel-form"' in page
    assert 'data-endpoint="/api/v1/cel"' in page
    assert 'name="csrfmiddlewaretoken"' in page
    assert "playground/cel-form.js" in page
    assert 'id="btn-cel-share"' in page
    assert "csrftoken" in response.cookies


def test_form_script_is_a_static_file_and_never_writes_html():
    path = finders.find("playground/cel-form.js")
    assert path is not None
    source = Path(path).read_text()
    assert "textContent" in source
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
        assert sink not in source


def test_openapi_schema_describes_the_cel_endpoint(client):
    response = client.get("/api/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    assert "/api/v1/cel" in response.content.decode()
