"""The controls around the editor in a real browser: shortcuts fire once, "+ Document" templates with unique
names and focus, the phone pane switch, presenter zoom, the gallery's word-start search and tags, the CEL
mode's share link, the landing page's live example and its one-time tour."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import card, editor, project_body
from tests.playground.playground_fixtures import deployment

pytestmark = pytest.mark.browser
expect.set_options(timeout=20_000)  # a loaded CI machine evaluates slower than a laptop


def count_sent(page, predicate):
    """A list that collects every WebSocket frame the page sends that matches `predicate` (a str test)."""
    sent = []
    page.on(
        "websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload) if predicate(payload) else None)
    )
    return sent


def test_ctrl_enter_evaluates_once_and_ctrl_s_takes_one_snapshot(page, api, open_project):
    status, created = api("POST", "/api/v1/projects", project_body(title="Shortcuts"))
    assert status == 201
    evaluations = count_sent(page, lambda payload: '"type": "evaluate"' in payload or '"type":"evaluate"' in payload)
    snapshots = []
    page.on(
        "request",
        lambda request: (
            snapshots.append(request.url) if request.method == "POST" and request.url.endswith("/snapshots") else None
        ),
    )
    open_project(created)
    expect(card(page).locator("[data-testid=decision]")).to_have_text("Denied")
    editor(page, "document", 0).click()
    page.keyboard.press("ControlOrMeta+Enter")
    expect(page.locator("[data-testid=eval-status]")).to_contain_text("evaluated")
    page.wait_for_timeout(500)
    assert len(evaluations) == 1, evaluations
    page.keyboard.press("ControlOrMeta+s")
    expect(page.locator("#share-url")).to_have_value(re.compile(r"/s/"))
    page.wait_for_timeout(500)
    assert len(snapshots) == 1, snapshots
    # Outside an editor the page-wide shortcut works, once too.
    page.locator("#project-title").focus()
    page.keyboard.press("ControlOrMeta+Enter")
    page.wait_for_timeout(500)
    assert len(evaluations) == 2
    expect(page.locator(".shortcuts")).to_contain_text("Esc then Tab leaves the editor")


def test_add_document_offers_templates_focuses_the_new_one_and_names_are_unique(page, api, open_project):
    status, created = api("POST", "/api/v1/projects", project_body(title="Templates"))
    assert status == 201
    open_project(created)
    expect(page.locator(".panel[data-target=document]")).to_have_count(2)
    for expected_name in ("namespace.yaml", "namespace-2.yaml"):
        page.click("#btn-add-document")
        menu = page.locator("#document-templates")
        expect(menu).to_be_visible()
        expect(menu.get_by_role("menuitem")).to_have_count(9)
        for label in (
            "ValidatingAdmissionPolicy",
            "Binding",
            "Param (ConfigMap)",
            "Namespace",
            "MutatingAdmissionPolicy",
            "Kyverno ClusterPolicy",
            "ClusterRole and binding",
            "CustomResourceDefinition",
        ):
            expect(menu.get_by_role("menuitem", name=re.compile(re.escape(label)))).to_be_visible()
        menu.get_by_role("menuitem", name=re.compile(r"^Namespace")).click()
        expect(menu).to_be_hidden()
        new_panel = page.locator(".panel[data-target=document]").last
        expect(new_panel.locator(".item-name")).to_have_value(expected_name)
        expect(new_panel.locator(".cm-content")).to_contain_text("kind: Namespace")
        expect(new_panel.locator(".cm-content")).to_be_focused()
    status, project = api("GET", f"/api/v1/projects/{created['id']}")
    assert [d["name"] for d in project["documents"]][-2:] == ["namespace.yaml", "namespace-2.yaml"]
    # The menu is a keyboard menu too: Esc closes it and gives focus back to its button.
    page.click("#btn-add-document")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Escape")
    expect(page.locator("#document-templates")).to_be_hidden()
    expect(page.locator("#btn-add-document")).to_be_focused()


def test_phone_shows_one_pane_at_a_time(browser, server_url, api):
    status, created = api("POST", "/api/v1/projects", project_body(title="Phone"))
    assert status == 201
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(server_url + "/")
        page.evaluate(
            "([id, token]) => localStorage.setItem('admission-playground:token:' + id, token)",
            [created["id"], created["editToken"]],
        )
        page.goto(f"{server_url}/p/{created['id']}")
        switch = page.locator(".pane-switch")
        expect(switch).to_be_visible()
        expect(page.locator(".column.editors")).to_be_visible()  # your own project opens on the editors
        expect(page.locator(".column.results")).to_be_hidden()
        switch.get_by_role("button", name="Results").click()
        expect(page.locator(".column.results")).to_be_visible()
        expect(page.locator(".column.editors")).to_be_hidden()
        expect(card(page).locator("[data-testid=decision]")).to_have_text("Denied")
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    finally:
        context.close()


def test_presenter_zoom_enlarges_everything_and_is_remembered(page, server_url):
    page.goto(server_url + "/examples")
    size = lambda: page.evaluate("parseFloat(getComputedStyle(document.querySelector('h1')).fontSize)")  # noqa: E731
    normal = size()
    page.click("#zoom-toggle")
    expect(page.locator("#zoom-toggle")).to_have_attribute("aria-pressed", "true")
    assert size() >= normal * 1.3
    page.reload()
    assert size() >= normal * 1.3
    page.click("#zoom-toggle")
    assert size() == normal


def test_gallery_search_matches_word_starts_and_tags_filter(page, server_url):
    page.goto(server_url + "/examples")
    cards = page.locator(".example-card")
    total = cards.count()
    assert total >= 80
    page.fill("#gallery-filter", "MAP")
    expect(page.locator(".example-card[data-slug=map-json-patch-annotation]")).to_be_visible()
    # ConfigMap everywhere in this one's YAML, no MAP: a substring search would have kept it.
    expect(page.locator(".example-card[data-slug=vap-exclude-resource-rules]")).to_have_count(0)
    page.fill("#gallery-filter", "map")  # case does not matter
    expect(page.locator(".example-card[data-slug=map-sidecar]")).to_be_visible()
    page.fill("#gallery-filter", "jsonpatch.escapeKey")  # content search reaches the YAML
    expect(page.locator(".example-card[data-slug=map-json-patch-annotation]")).to_be_visible()
    page.fill("#gallery-filter", "")
    page.locator(".example-card[data-slug=kyverno-audit-mode] button.tag", has_text="audit").click()
    expect(page.locator("#gallery-active")).to_contain_text("tagged “audit”")
    assert 1 <= cards.count() < total
    assert "tag=audit" in page.url
    page.get_by_role("button", name="Clear filters").click()
    expect(cards).to_have_count(total)
    page.select_option("#gallery-sort", "title")
    titles = cards.locator("h3").all_inner_texts()
    assert titles == sorted(titles, key=str.casefold)


def test_cel_mode_share_link_restores_the_expression_and_input(page, browser, server_url):
    page.goto(server_url + "/cel")
    expect(page.locator("#cel-value")).to_have_text("true")
    expression = page.locator(".cel-mode .cm-content").first
    expression.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type("object.spec.replicas * 7")
    expect(page.locator("#cel-value")).to_have_text("21")
    page.click("#btn-cel-share")
    link = page.locator("#cel-share-url").input_value()
    assert link.startswith(server_url + "/cel#expr=")
    other = browser.new_context().new_page()
    try:
        other.goto(link)
        expect(other.locator("#cel-value")).to_have_text("21")
        expect(other.locator(".cel-mode .cm-content").first).to_have_text("object.spec.replicas * 7")
    finally:
        other.context.close()


def test_landing_page_runs_a_live_example_and_its_tour_shows_once(page, server_url):
    page.goto(server_url + "/")
    decisions = page.locator("#landing-demo .result-card [data-testid=decision]")
    expect(decisions).to_have_text(["Denied", "Allowed"])
    tour = page.get_by_role("dialog")
    expect(tour).to_contain_text("1. The policy")
    tour.get_by_role("button", name="Next").click()
    expect(tour).to_contain_text("2. The decision")
    tour.get_by_role("button", name="Skip the tour").click()
    expect(tour).to_have_count(0)
    page.reload()
    expect(decisions.first).to_be_visible()
    expect(page.get_by_role("dialog")).to_have_count(0)  # remembered
    page.click("#btn-tour")  # but it can be taken again
    expect(page.get_by_role("dialog")).to_contain_text("1. The policy")
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_have_count(0)
    # The example is live: raise the limit and the denied Deployment is allowed, with no click.
    policy = page.locator("#landing-demo .panel[data-target=document] .cm-content")
    policy.locator(".cm-line", has_text="object.spec.replicas <= 5").click()
    page.keyboard.press("End")
    text = policy.inner_text()
    assert "<= 5" in text
    page.locator("#landing-demo .cm-line", has_text="<= 5").first.click()
    page.keyboard.press("End")
    for _ in range(2):
        page.keyboard.press("ArrowLeft")
    page.keyboard.press("Backspace")
    page.keyboard.type("9")
    expect(decisions).to_have_text(["Allowed", "Allowed"])


def test_a_mistyped_room_code_gets_a_page_with_a_way_back(page, server_url):
    response = page.goto(server_url + "/w/NOPE99")
    assert response.status == 404
    expect(page.locator(".error-page")).to_contain_text("no room with code NOPE99 — check the code")
    page.get_by_role("link", name="Home").click()
    page.wait_for_url(server_url + "/")


def test_results_an_edit_left_alone_come_as_unchanged_and_stay_on_their_cards(page, api, open_project):
    """The page keeps each request's last result: an edit that changes one result gets the others as
    `unchanged` (no result in the frame), and their cards stay as they were, never asking again."""
    body = project_body(title="Unchanged results")
    body["requests"].append({"name": "two replicas", "text": deployment(2), "expected": {"outcome": "allowed"}})
    status, created = api("POST", "/api/v1/projects", body)
    assert status == 201
    unchanged = []
    page.on(
        "websocket",
        lambda ws: ws.on(
            "framereceived", lambda payload: unchanged.append(payload) if '"unchanged": true' in payload else None
        ),
    )
    full_asks = count_sent(page, lambda payload: '"full":' in payload)
    open_project(created)
    denied, allowed = card(page, 0), card(page, 1)
    expect(denied.locator("[data-testid=decision]")).to_have_text("Denied")
    expect(allowed.locator("[data-testid=decision]")).to_have_text("Allowed")
    editor(page, "request", 1).locator(".cm-line", has_text="replicas: 2").click()
    page.keyboard.press("End")
    page.keyboard.press("Backspace")
    page.keyboard.type("3")
    for _ in range(200):  # the edit's evaluation: the denied request's result is unchanged
        if unchanged:
            break
        page.wait_for_timeout(100)
    expect(page.locator("#save-state")).to_have_attribute("data-state", "saved")
    expect(allowed.locator("[data-testid=decision]")).to_have_text("Allowed")
    expect(denied.locator("[data-testid=decision]")).to_have_text("Denied")
    expect(denied).to_contain_text("replicas must be at most 5")
    assert unchanged, "the denied request's result came again in full"
    assert not full_asks
