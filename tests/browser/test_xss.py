"""Nothing a user types is ever run as HTML: payloads in a policy name, a message and a request name."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import card, project_body

pytestmark = pytest.mark.browser

NAME = 'x"><img src=x id=xss-name onerror="window.__xss=1;alert(1)">'
MESSAGE = '<script id="xss-script">window.__xss=2;alert(2)</script><img src=x id=xss-msg onerror="alert(3)">'


def test_payloads_in_names_and_messages_are_shown_as_text_and_never_run(page, api, open_project, screenshot):
    body = project_body(
        policy_name="evil", message="'" + MESSAGE.replace("'", "''") + "'", request_name=NAME, title=NAME
    )
    body["documents"][0]["name"] = NAME
    status, created = api("POST", "/api/v1/projects", body)
    assert status == 201, created
    open_project(created)
    first = card(page)
    expect(first.locator("[data-testid=decision]")).to_have_text("Denied")
    expect(first.locator("[data-testid=kubectl]")).to_contain_text(MESSAGE)
    expect(first.locator("h4")).to_have_text(NAME)
    expect(page.locator("#project-title")).to_have_value(NAME)
    first.locator("[data-testid=review] summary").click()
    expect(first.locator("[data-testid=review] pre")).to_contain_text("xss-script")
    page.wait_for_timeout(500)  # give an injected onerror handler time to fire, were there one
    assert page.watch.dialogs == []
    assert page.evaluate("() => window.__xss") is None
    assert page.locator("#xss-name, #xss-msg, #xss-script, img[src=x]").count() == 0
    screenshot("xss")


def test_payloads_on_the_batch_page_are_text(page, api, server_url):
    """A policy named and worded with markup, and a dumped object whose namespace and labels carry it: the
    batch page's tables, charts' captions, affected list and drill-down show it as text."""
    body = project_body(policy_name="evil", message="'" + MESSAGE.replace("'", "''") + "'", title=NAME)
    status, created = api("POST", "/api/v1/projects", body)
    assert status == 201, created
    page.goto(f"{server_url}/p/{created['id']}/batch")
    dump = (
        "apiVersion: apps/v1\nkind: Deployment\n"
        f"metadata: {{name: web, namespace: {NAME!r}, labels: {{app: {NAME!r}}}}}\n"
        "spec: {replicas: 9, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, "
        "spec: {containers: [{name: web, image: nginx}]}}}\n"
    )
    page.fill("#batch-text", dump)
    page.click("#btn-run")
    row = page.locator("#affected-table tbody tr").first
    expect(row).to_contain_text(NAME)
    row.get_by_role("button").click()
    expect(page.locator("#drilldown .result-card")).to_be_visible()
    expect(page.locator("#drilldown-title")).to_contain_text(NAME)
    page.wait_for_timeout(500)
    assert page.watch.dialogs == []
    assert page.evaluate("() => window.__xss") is None
    assert page.locator("#xss-name, #xss-msg, #xss-script, img[src=x]").count() == 0


def test_payloads_in_kyverno_patches_and_generated_objects_are_text(page, api, open_project):
    """A Kyverno mutate rule that writes markup into a label, and a generate rule whose generated object (and its
    name) carries it: the rule's patch, the diff, the patched object and the generated YAML show it as text."""
    payload = MESSAGE.replace('"', "'")
    policy = f"""apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {{name: evil}}
spec:
  rules:
  - name: label
    match: {{any: [{{resources: {{kinds: [Namespace]}}}}]}}
    mutate:
      patchStrategicMerge:
        metadata: {{annotations: {{note: "{payload}"}}}}
  - name: make
    match: {{any: [{{resources: {{kinds: [Namespace]}}}}]}}
    generate:
      apiVersion: v1
      kind: ConfigMap
      name: cm
      namespace: "{{{{request.object.metadata.name}}}}"
      data:
        data: {{note: "{payload}"}}
"""
    body = {
        "title": "kyverno xss",
        "documents": [{"name": "policy", "text": policy}],
        "requests": [{"name": NAME, "text": "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n"}],
    }
    status, created = api("POST", "/api/v1/projects", body)
    assert status == 201, created
    open_project(created)
    first = card(page)
    expect(first.locator("[data-testid=kyverno-rule-patch] pre")).to_contain_text("xss-script")
    expect(first.locator("[data-testid=kyverno-mutations] pre.diff").first).to_contain_text("xss-msg")
    expect(first.locator("[data-testid=generated-object] pre")).to_contain_text("xss-script")
    page.wait_for_timeout(500)
    assert page.watch.dialogs == []
    assert page.evaluate("() => window.__xss") is None
    assert page.locator("#xss-name, #xss-msg, #xss-script, img[src=x]").count() == 0
