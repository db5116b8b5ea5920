"""The browsable API docs are served from our own static files under the site-wide CSP (no CDN)."""

import pytest


@pytest.mark.django_db
def test_swagger_ui_is_self_hosted(client):
    page = client.get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "drf_spectacular_sidecar/swagger-ui-dist" in html
    assert "cdn.jsdelivr.net" not in html
    assert "script-src 'self';" in page["Content-Security-Policy"]


@pytest.mark.django_db
def test_the_openapi_schema_lists_the_project_endpoints(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert "/api/v1/projects" in schema["paths"]
    assert "/api/v1/evaluate" in schema["paths"]
