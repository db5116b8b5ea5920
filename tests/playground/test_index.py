"""The home page says the service is up and carries the CEL form."""

from pathlib import Path

from django.contrib.staticfiles import finders


def test_index_says_the_service_is_up_and_has_the_cel_form(client):
    response = client.get("/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "The service is up." in page
    assert 'id="cel-form"' in page
    assert 'data-endpoint="/api/v1/cel"' in page
    assert 'name="csrfmiddlewaretoken"' in page
    assert "playground/cel-form.js" in page
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
