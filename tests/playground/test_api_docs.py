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


@pytest.mark.django_db
def test_the_schemas_expected_outcome_is_the_engines(client):
    """The schema's Expected is evaluator/expectations.py's, not a copy that can drift from it."""
    from evaluator.expectations import KEYS, OUTCOMES

    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    expected = schema["components"]["schemas"]["Expected"]
    assert tuple(expected["properties"]) == KEYS
    outcome = expected["properties"]["outcome"]
    choices = outcome.get("enum") or schema["components"]["schemas"][outcome["$ref"].rsplit("/", 1)[-1]]["enum"]
    assert tuple(choices) == OUTCOMES
    export = schema["paths"]["/api/v1/projects/{project_id}/export/{fmt}"]["get"]
    assert [p["name"] for p in export["parameters"] if p["in"] == "query"] == ["request"]
