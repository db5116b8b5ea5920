"""The editor in a real browser: gallery → example → fork, live results while typing, share, fork again."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import card, editor, project_body, replace_text
from tests.browser.test_located_markers import MARKER

pytestmark = pytest.mark.browser

EXAMPLE = "seed-vap-message-expression"  # 5 replicas against a ReplicaLimit param of 3: denied


def test_example_from_the_gallery_shows_results_and_is_read_only_until_forked(page, server_url, screenshot):
    page.goto(server_url + "/examples")
    page.fill("#gallery-filter", "messageExpression kubectl")
    link = page.locator(f".example-card[data-slug={EXAMPLE}] a.example-link")
    expect(link).to_be_visible()
    link.click()
    page.wait_for_url(f"**/examples/{EXAMPLE}")
    first = card(page)
    expect(first.locator("[data-testid=decision]")).to_have_text("Denied")
    expect(first.locator("[data-testid=kubectl]")).to_contain_text("must be no greater than 3")
    # Read-only: no control that cannot do anything; typing changes nothing; Fork to edit is the way in.
    expect(page.locator("#mode-banner")).to_contain_text("read-only")
    expect(editor(page, "document", 0)).to_have_attribute("contenteditable", "false")
    expect(page.locator(".panel .item-delete:visible")).to_have_count(0)
    expect(page.locator(".panel-foot:visible")).to_have_count(0)
    for hidden in ("#btn-add-document", "#btn-add-request", "#btn-evaluate"):
        expect(page.locator(hidden)).to_be_hidden()
    expect(page.locator("#project-title")).to_have_attribute("readonly", "")
    expect(page.locator("#btn-fork")).to_have_text("Fork to edit")
    before = editor(page, "document", 0).inner_text()
    editor(page, "document", 0).click()
    page.keyboard.type("zzz")
    assert editor(page, "document", 0).inner_text() == before
    screenshot("example-read-only")


def test_forked_example_is_live_edits_are_saved_and_results_stream_without_a_click(page, server_url, api, screenshot):
    page.goto(f"{server_url}/examples/{EXAMPLE}")
    expect(card(page).locator("[data-testid=decision]")).to_have_text("Denied")
    page.click("#btn-fork")
    page.wait_for_url(re.compile(r".*/p/[A-Za-z0-9_-]+$"))
    project_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("#conn-state")).to_have_attribute("data-state", "open")
    expect(page.locator("#viewers")).to_have_text("1 viewer")
    first = card(page)
    expect(first.locator("[data-testid=decision]")).to_have_text("Denied")
    expect(first.locator("[data-verdict]")).to_have_text("PASS")

    param = page.locator(".panel[data-target=document]", has_text="kind: ReplicaLimit").last
    param.locator(".cm-content").click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("End")
    page.keyboard.press("Backspace")
    page.keyboard.type("10")
    expect(first.locator("[data-testid=decision]")).to_have_text("Allowed")
    expect(first.locator("[data-verdict]")).to_have_text("FAIL")  # the example expects a denial
    expect(page.locator("#save-state")).to_have_attribute("data-state", "saved")

    status, project = api("GET", f"/api/v1/projects/{project_id}")
    assert status == 200
    assert any("maxReplicas: 10" in doc["text"] for doc in project["documents"])
    page.evaluate("() => { document.activeElement.blur(); window.scrollTo(0, 0); }")
    screenshot("editor-live")
    page.click("#theme-toggle")
    screenshot("editor-live-dark")


def test_share_opens_a_read_only_permalink_that_forks_into_a_new_project(page, api, open_project, server_url):
    status, created = api("POST", "/api/v1/projects", project_body(title="Share me"))
    assert status == 201
    open_project(created)
    expect(card(page).locator("[data-testid=decision]")).to_have_text("Denied")
    page.keyboard.press("ControlOrMeta+s")  # the shortcut takes the snapshot
    share_url = page.locator("#share-url")
    expect(share_url).to_have_value(re.compile(r"^http://127\.0\.0\.1:\d+/s/[A-Za-z0-9]+$"))
    link = share_url.input_value()

    page.goto(link)
    expect(page.locator("#project-title")).to_have_value("Share me")
    expect(page.locator("#mode-banner")).to_contain_text("read-only")
    expect(card(page).locator("[data-testid=decision]")).to_have_text("Denied")
    expect(editor(page, "document", 0)).to_contain_text("name: max-replicas")

    page.click("#btn-fork")
    page.wait_for_url(re.compile(r".*/p/[A-Za-z0-9_-]+$"))
    fork_id = page.url.rsplit("/", 1)[1]
    assert fork_id != created["id"]
    expect(page.locator("#conn-state")).to_have_attribute("data-state", "open")
    expect(editor(page, "document", 0)).to_have_attribute("contenteditable", "true")
    expect(card(page).locator("[data-testid=decision]")).to_have_text("Denied")
    status, fork = api("GET", f"/api/v1/projects/{fork_id}")
    assert status == 200 and fork["documents"][0]["text"] == created["documents"][0]["text"]


def test_watchers_see_edits_and_viewer_count_live(page, browser, api, open_project, server_url):
    status, created = api("POST", "/api/v1/projects", project_body(title="Workshop"))
    assert status == 201
    open_project(created)
    watcher_context = browser.new_context()
    watcher = watcher_context.new_page()
    try:
        watcher.goto(f"{server_url}/p/{created['id']}")  # no token: view only
        expect(watcher.locator("#mode-banner")).to_contain_text("watching")
        expect(page.locator("#viewers")).to_have_text("2 viewers")
        expect(editor(watcher, "request", 0)).to_have_attribute("contenteditable", "false")
        replace_text(page, "request", 0, created["requests"][0]["text"].replace("replicas: 7", "replicas: 2"))
        expect(editor(watcher, "request", 0)).to_contain_text("replicas: 2")
        expect(card(watcher).locator("[data-testid=decision]")).to_have_text("Allowed")
    finally:
        watcher_context.close()
    expect(page.locator("#viewers")).to_have_text("1 viewer")


def test_reconnects_by_itself_and_saves_what_was_typed_offline(page, api, open_project):
    status, created = api("POST", "/api/v1/projects", project_body(title="Flaky network"))
    assert status == 201
    open_project(created)
    expect(card(page).locator("[data-testid=decision]")).to_have_text("Denied")
    page.evaluate("() => { window.__playground.live.socket.attempt = 3; window.__playground.live.socket.drop(); }")
    expect(page.locator("#conn-state")).not_to_have_attribute("data-state", "open")
    replace_text(page, "request", 0, created["requests"][0]["text"].replace("replicas: 7", "replicas: 1"))
    expect(page.locator("#conn-state")).to_have_attribute("data-state", "open", timeout=20_000)
    expect(card(page).locator("[data-testid=decision]")).to_have_text("Allowed")
    expect(page.locator("#save-state")).to_have_attribute("data-state", "saved")
    status, project = api("GET", f"/api/v1/projects/{created['id']}")
    assert "replicas: 1" in project["requests"][0]["text"]


def test_the_editor_never_flashes_read_only_while_its_token_is_being_checked(page, api, open_project):
    """A connection's first state is sent before the server reads the `hello` that carries the token. Taking
    its "read-only" at its word hid Evaluate and showed the watcher's banner for a moment, on every open and
    every reconnect."""
    status, created = api("POST", "/api/v1/projects", project_body(title="Steady controls"))
    assert status == 201
    page.add_init_script("""window.__flashes = [];
        new MutationObserver((changes) => {
            for (const change of changes) {
                const node = change.target;
                if (node.id === "btn-evaluate" && node.hidden) window.__flashes.push("evaluate hidden");
                if (node.closest && node.closest("#mode-banner") && node.closest("#mode-banner").textContent.trim())
                    window.__flashes.push("banner: " + node.closest("#mode-banner").textContent.trim());
            }
        }).observe(document, {subtree: true, attributes: true, childList: true, characterData: true});""")
    open_project(created)
    expect(card(page).locator("[data-testid=decision]")).to_have_text("Denied")
    page.evaluate("() => { window.__playground.live.socket.attempt = 3; window.__playground.live.socket.drop(); }")
    expect(page.locator("#conn-state")).not_to_have_attribute("data-state", "open")
    expect(page.locator("#conn-state")).to_have_attribute("data-state", "open", timeout=20_000)
    expect(editor(page, "request", 0)).to_have_attribute("contenteditable", "true")
    page.wait_for_timeout(500)  # the hello's answer, and anything after it
    assert page.evaluate("window.__flashes") == []
    expect(page.locator("#btn-evaluate")).to_be_visible()


def test_engine_errors_show_inline_and_completion_offers_schema_fields(page, api, open_project):
    status, created = api("POST", "/api/v1/projects", project_body(title="Diagnostics"))
    assert status == 201
    open_project(created)
    policy = created["documents"][0]["text"]
    broken = policy.replace('"object.spec.replicas <= 5"', '"object.spec.replicas <= "')
    replace_text(page, "document", 0, broken)
    panel = page.locator(".panel[data-target=document]").first
    expect(panel.locator(".cm-lintRange-error").first).to_be_visible()
    expect(page.locator("[data-testid=config-errors]")).to_contain_text("validations[0].expression")
    # At the character cel-go names (<EOF>: just after "<="), not at the document's first line.
    where = panel.evaluate(f"(root) => ({MARKER})([root, 'error'])")
    assert (where["line"], where["column"], where["gutter"]) == (14, 41, True), where
    assert broken.split("\n")[13][39:41] == "= "
    # The type checker's finding lands inside the expression, as a warning.
    replace_text(
        page, "document", 0, policy.replace('"object.spec.replicas <= 5"', "'object.spec.replicas == \"five\"'")
    )
    expect(page.locator("[data-testid=typecheck]")).to_contain_text("no matching overload")
    # cel-go points at the operator (column 22 of the expression): the range starts there, in the document.
    expect(panel.locator(".cm-lintRange-warning").first).to_have_text("==")
    where = panel.evaluate(f"(root) => ({MARKER})([root, 'warning'])")
    assert (where["line"], where["column"], where["text"]) == (14, 39, "=="), where
    # Field-name completion from the built-in ValidatingAdmissionPolicy schema.
    replace_text(page, "document", 0, policy + "  auditAnn")
    page.keyboard.press("Control+Space")
    expect(page.locator(".cm-tooltip-autocomplete")).to_contain_text("auditAnnotations")
    page.keyboard.press("Escape")
    # CEL words inside an expression value.
    replace_text(page, "document", 0, policy.replace('"object.spec.replicas <= 5"', '"obj"'))
    page.locator(".panel[data-target=document] .cm-line", has_text='"obj"').first.click()
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Control+Space")
    expect(page.locator(".cm-tooltip-autocomplete")).to_contain_text("oldObject")


def test_cel_mode_evaluates_as_you_type(page, server_url):
    page.goto(server_url + "/cel")
    expect(page.locator("#cel-value")).to_have_text("true")
    expression = page.locator(".cel-mode .cm-content").first
    expression.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type("object.spec.replicas * 2")
    expect(page.locator("#cel-value")).to_have_text("6")
    expect(page.locator("#cel-type")).to_have_text("int")
    expect(page.locator("#cel-cost")).to_have_text(re.compile(r"^\d+$"))
    page.keyboard.type(" +")
    expect(page.locator("#cel-error")).to_contain_text("compile_error")
    page.select_option("#cel-examples", label="Map and filter")
    expect(page.locator("#cel-value")).to_have_text('[\n  "b",\n  "c"\n]')
    expect(page.locator("#cel-error")).to_have_text("")


def test_add_rename_expect_and_delete_a_sample_request(page, api, open_project):
    status, created = api("POST", "/api/v1/projects", project_body(title="Structure"))
    assert status == 201
    open_project(created)
    expect(page.locator(".result-card")).to_have_count(1)
    page.click("#btn-add-request")
    expect(page.locator(".panel[data-target=request]")).to_have_count(2)
    expect(page.locator(".result-card")).to_have_count(2)
    second = page.locator(".panel[data-target=request]").nth(1)
    second.locator(".item-name").fill("a pod")
    second.locator(".item-name").press("Enter")
    second.locator(".expected-outcome").select_option("denied")
    expect(page.locator(".result-card").nth(1).locator("[data-verdict]")).to_have_text("FAIL")
    expect(page.locator(".result-card").nth(1).locator("h4")).to_have_text("a pod")
    status, project = api("GET", f"/api/v1/projects/{created['id']}")
    assert [r["name"] for r in project["requests"]] == ["seven replicas", "a pod"]
    assert project["requests"][1]["expected"] == {"outcome": "denied"}
    second.locator(".panel-head button", has_text="Delete").click()
    expect(page.locator(".panel[data-target=request]")).to_have_count(1)
    expect(page.locator(".result-card")).to_have_count(1)


def test_dark_mode_toggles_and_is_remembered(page, server_url):
    page.goto(server_url + "/examples")
    html = page.locator("html")
    expect(html).to_have_attribute("data-theme", "light")
    page.click("#theme-toggle")
    expect(html).to_have_attribute("data-theme", "dark")
    page.reload()
    expect(html).to_have_attribute("data-theme", "dark")


def test_mutation_diffs_and_kyverno_rule_results_are_shown(page, server_url):
    page.goto(f"{server_url}/examples/seed-map-seed-set-default-owner")
    mutation = card(page).locator("[data-testid=mutation]")
    expect(mutation.locator(".diff .diff-add").first).to_contain_text("owner: champbreed")
    expect(mutation.locator(".mutation-step")).to_have_count(1)
    page.goto(f"{server_url}/examples/seed-kyverno-cel-replicas")
    rules = card(page).locator("[data-testid=kyverno] tbody tr")
    expect(rules.first).to_contain_text("check-deployment-replicas")
    expect(
        page.locator(
            ".result-card [data-testid=kyverno] .badge-denied, .result-card [data-testid=kyverno] .badge-allowed"
        ).first
    ).to_be_visible()


def test_a_kyverno_cel_policy_is_shown_beside_its_generated_validating_admission_policy(page, server_url):
    page.goto(f"{server_url}/examples/seed-kyverno-cel-replicas")
    compared = card(page).locator("[data-testid=generated-vap]")
    compared.locator("summary").first.click()
    row = compared.locator("tbody tr").first
    expect(row).to_contain_text("check-deployment-replicas")  # the Kyverno policy, one row per policy
    expect(row.locator(".badge")).to_have_count(2)  # Kyverno's verdict and the generated VAP's
    expect(row).to_contain_text("fails")  # 5 replicas: Kyverno's rule fails ...
    expect(row).to_contain_text("denied")  # ... and the generated policy denies too
    expect(compared).to_contain_text("ValidatingAdmissionPolicy")
