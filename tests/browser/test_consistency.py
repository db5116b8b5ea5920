"""What the page says agrees with what it is: an edit link pasted into an open tab, the gallery's groups, the
type-check headline beside an error, a YAML error's one mark and its wording, the title field and the
focused editor's frame."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import editor, project_body, replace_text
from tests.playground.playground_fixtures import policy

pytestmark = pytest.mark.browser


def test_an_edit_link_pasted_into_an_open_tab_makes_it_editable(page, api, server_url):
    status, created = api("POST", "/api/v1/projects", project_body())
    assert status == 201, created
    page.goto(f"{server_url}/p/{created['id']}")  # no token in this browser: a watcher's page
    expect(page.locator("#mode-banner")).to_contain_text("watching")
    expect(page.locator("#btn-evaluate")).to_be_hidden()
    # The same tab, the edit link pasted into the address bar: only the fragment changes, no reload.
    page.evaluate("token => { window.location.hash = 'edit=' + encodeURIComponent(token); }", created["editToken"])
    expect(page.locator(".cm-content[contenteditable=true]").first).to_be_visible()
    expect(page.locator("#btn-evaluate")).to_be_visible()
    expect(page.locator("#mode-banner")).to_be_hidden()
    assert "#edit=" not in page.url  # the token left the address bar for localStorage
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1
    # The rights are real: an edit is saved by the server.
    replace_text(page, "request", 0, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: pasted\n")
    expect(page.locator("#save-state")).to_have_attribute("data-state", "saved")
    _, state = api("GET", f"/api/v1/projects/{created['id']}")
    assert "name: pasted" in state["requests"][0]["text"]


def test_kyverno_validating_policies_are_not_filed_under_vap_basics(page, server_url):
    page.goto(f"{server_url}/examples")
    basics = page.locator("#vap-basics .example-card").evaluate_all("cards => cards.map(c => c.dataset.slug)")
    assert basics and not [slug for slug in basics if slug.startswith("vpol-")], basics
    kyverno_cel = page.locator("#kyverno-cel .example-card").evaluate_all("cards => cards.map(c => c.dataset.slug)")
    assert len([slug for slug in kyverno_cel if slug.startswith("vpol-")]) == 6, kyverno_cel


BROKEN_CEL = policy("max-replicas", '"replicas must be at most 5"').replace("<= 5", "<=", 1)
BROKEN_YAML = policy("max-replicas", '"replicas must be at most 5"').replace(
    "  failurePolicy: Fail", "  failurePolicy: Fail: x", 1
)


def test_the_type_check_never_says_no_type_errors_beside_a_compile_or_yaml_error(page, api, open_project):
    status, created = api("POST", "/api/v1/projects", project_body())
    assert status == 201, created
    open_project(created)
    headline = page.locator("[data-testid=typecheck]")
    expect(headline).to_contain_text("no type errors")  # the valid policy first
    replace_text(page, "document", 0, BROKEN_CEL)
    expect(page.locator("#results")).to_contain_text("compilation failed")
    expect(headline).to_contain_text("Type check incomplete")
    expect(headline).not_to_contain_text("no type errors")
    # A second policy that loads, beside one whose YAML does not: still not "no type errors".
    second = policy("other", '"other"')
    replace_text(page, "document", 0, BROKEN_YAML + "\n---\n" + second)
    expect(page.locator("#results")).to_contain_text("invalid YAML")
    expect(headline).to_contain_text("Type check incomplete")
    expect(headline).not_to_contain_text("no type errors")


def test_a_yaml_error_is_one_mark_and_its_message_names_its_line(page, api, open_project):
    status, created = api("POST", "/api/v1/projects", project_body())
    assert status == 201, created
    open_project(created)
    replace_text(page, "document", 0, BROKEN_YAML)
    item = page.locator("#results .error-list li.sev-error").filter(has_text="invalid YAML").first
    expect(item).to_be_visible()
    text = item.inner_text()
    assert text.startswith("error at line 6:22: invalid YAML: mapping values"), text
    assert "(line" not in text and "— " not in text, text
    page.keyboard.press("Escape")
    policy_editor = page.locator(".panel[data-target=document]").first
    expect(policy_editor.locator(".cm-lintRange-error")).to_have_count(1)
    page.wait_for_timeout(600)  # the engine's diagnostics arrive after the local lint: still one mark
    expect(policy_editor.locator(".cm-lintRange-error")).to_have_count(1)
    # A line indented too far: the YAML parser reports it twice over (the value, then the next key); one mark.
    replace_text(page, "document", 0, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n   labels: y\n")
    expect(page.locator("#results .error-list li.sev-error")).to_contain_text(["error at line 5:10: invalid YAML"])
    expect(policy_editor.locator(".cm-lintRange-error")).to_have_count(1)
    # A quote left open is found at the end of the text: still marked, on its last character.
    replace_text(page, "document", 0, 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "x\n')
    expect(page.locator("#results .error-list li.sev-error")).to_contain_text(["error at line 4:11: invalid YAML"])
    expect(policy_editor.locator(".cm-lintRange-error")).to_have_count(1)
    expect(policy_editor.locator(".cm-lintRange-error")).to_have_text("x")


def test_the_title_shows_whole_and_the_focused_editor_keeps_its_frame(page, api, open_project):
    status, created = api(
        "POST", "/api/v1/projects", project_body(title="Require a team label on every pod and deployment (fork)")
    )
    assert status == 201, created
    open_project(created)
    title = page.locator("#project-title")
    expect(title).to_have_value("Require a team label on every pod and deployment (fork)")
    sizes = title.evaluate("el => [el.scrollWidth, el.clientWidth]")
    assert sizes[0] <= sizes[1], sizes  # nothing cut at 1500 px
    editor(page, "document", 0).click()
    frame = page.evaluate(
        """() => {
          const host = document.querySelector('.cm-editor.cm-focused');
          const ring = getComputedStyle(host, '::after');
          const gutters = host.querySelector('.cm-gutters');
          return { width: ring.borderTopWidth, z: Number(ring.zIndex), position: ring.position,
                   gutters: Number(getComputedStyle(gutters).zIndex) || 0 };
        }"""
    )
    # The ring is drawn above the content and the gutters, so the highlighted line cannot cover it.
    assert frame["width"] == "2px" and frame["position"] == "absolute" and frame["z"] > frame["gutters"], frame
