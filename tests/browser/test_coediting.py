"""Two browsers on one project: interleaved typing survives everywhere, cursors carry names, undo is per
user, and an edit link hands the edit right to another browser."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import editor, open_with_token, project_body

pytestmark = pytest.mark.browser


def type_at_end(page, text):
    content = editor(page, "request", 0)
    content.click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.type(text, delay=15)


def request_text(page):
    return page.evaluate(
        "() => [...window.__playground.workspace.items.values()].find((e) => e.target === 'request').editor.getText()"
    )


def test_interleaved_typing_in_two_tabs_survives_in_both_and_after_a_reload(browser, server_url, api):
    status, created = api("POST", "/api/v1/projects", project_body(title="Two tabs"))
    assert status == 201
    first_context, first = open_with_token(browser, server_url, created, "Ada")
    second_context, second = open_with_token(browser, server_url, created, "Grace")
    try:
        lines = []
        for round_ in range(3):
            for page, who in ((first, "A"), (second, "B")):
                line = f"\n# {who} line {round_}"
                type_at_end(page, line)
                lines.append(line.strip())
        for page in (first, second):
            expect(page.locator("#save-state")).to_have_attribute("data-state", "saved", timeout=20_000)
        for page in (first, second):
            expect(editor(page, "request", 0)).to_contain_text(lines[-1])
        texts = [request_text(first), request_text(second)]
        assert texts[0] == texts[1]
        for line in lines:
            assert line in texts[0]
        status, project = api("GET", f"/api/v1/projects/{created['id']}")
        assert project["requests"][0]["text"] == texts[0]
        first.reload()
        first.wait_for_selector("#conn-state[data-state=open]")
        expect(editor(first, "request", 0)).to_contain_text(lines[-1])
        assert request_text(first) == texts[0]
    finally:
        first_context.close()
        second_context.close()


def test_cursors_carry_names_and_undo_undoes_only_my_own_typing(browser, server_url, api):
    status, created = api("POST", "/api/v1/projects", project_body(title="Pair"))
    assert status == 201
    first_context, first = open_with_token(browser, server_url, created, "Ada")
    second_context, second = open_with_token(browser, server_url, created, "Grace")
    try:
        type_at_end(first, "\n# mine")
        expect(editor(second, "request", 0)).to_contain_text("# mine")
        type_at_end(second, "\n# yours")
        expect(editor(first, "request", 0)).to_contain_text("# yours")
        expect(first.locator(".cm-remote-name").first).to_have_text("Grace")
        editor(first, "request", 0).click()
        first.keyboard.press("ControlOrMeta+z")
        expect(editor(first, "request", 0)).not_to_contain_text("# mine")
        expect(editor(first, "request", 0)).to_contain_text("# yours")
        expect(editor(second, "request", 0)).not_to_contain_text("# mine")
        expect(first.locator("#save-state")).to_have_attribute("data-state", "saved")
        status, project = api("GET", f"/api/v1/projects/{created['id']}")
        assert "# yours" in project["requests"][0]["text"] and "# mine" not in project["requests"][0]["text"]
    finally:
        first_context.close()
        second_context.close()


def test_an_edit_link_gives_another_browser_the_edit_right_and_revoking_takes_it_back(browser, server_url, api):
    status, created = api("POST", "/api/v1/projects", project_body(title="Hand over"))
    assert status == 201
    owner_context, owner = open_with_token(browser, server_url, created, "Owner")
    other_context = browser.new_context()
    try:
        owner.click("#btn-edit-link")
        link = owner.input_value("#edit-link-url")
        assert link.endswith("#edit=" + created["editToken"])
        other = other_context.new_page()
        other.goto(link)
        other.wait_for_selector("#conn-state[data-state=open]")
        assert "#edit=" not in other.url  # the secret leaves the address bar at once
        expect(editor(other, "request", 0)).to_have_attribute("contenteditable", "true")
        other.goto(server_url + "/projects")
        expect(other.locator("#my-projects article")).to_have_count(1)
        expect(other.locator("#my-projects article h3")).to_have_text("Hand over")
        owner.once("dialog", lambda dialog: dialog.accept())
        owner.click("#btn-revoke")
        expect(owner.locator("#edit-link-url")).not_to_have_value(link)
        status, _ = api("PATCH", f"/api/v1/projects/{created['id']}", {"title": "x"}, token=created["editToken"])
        assert status == 403
    finally:
        owner_context.close()
        other_context.close()


def test_a_nul_typed_is_refused_where_it_is_and_once_removed_everything_typed_since_is_saved(browser, server_url, api):
    """PostgreSQL cannot store a NUL. The push that holds one is refused with its line and column and the page
    says it did not save (it used to retry the same push forever: nothing typed after the NUL was ever saved);
    deleting the NUL saves everything, and the co-editor ends with the same text."""
    status, created = api("POST", "/api/v1/projects", project_body(title="NUL"))
    assert status == 201
    first_context, first = open_with_token(browser, server_url, created, "Ada")
    second_context, second = open_with_token(browser, server_url, created, "Grace")
    try:
        lines = request_text(first).count("\n")
        type_at_end(first, "\n# a")
        first.keyboard.insert_text("\x00")
        first.keyboard.type("b", delay=15)
        expect(first.locator("#save-state")).to_have_attribute("data-state", "error")
        toast = first.locator(".toast-error").last
        expect(toast).to_contain_text(f"(line {lines + 2}, column 4)")
        expect(toast).to_contain_text("contains a NUL character")
        first.keyboard.type("\n# typed after it", delay=15)
        expect(first.locator("#save-state")).to_have_attribute("data-state", "error")
        status, project = api("GET", f"/api/v1/projects/{created['id']}")
        assert "# typed after it" not in project["requests"][0]["text"]
        asked = []  # leaving now would lose what is only in this tab: the browser asks first
        first.on("dialog", lambda dialog: (asked.append(dialog.type), dialog.dismiss()))
        first.evaluate("() => { window.location.href = '/'; }")
        first.wait_for_timeout(500)
        assert asked == ["beforeunload"] and "/p/" in first.url
        for _ in range(len("b\n# typed after it")):  # back to just after the NUL, and delete it
            first.keyboard.press("ArrowLeft")
        first.keyboard.press("Backspace")
        expect(first.locator("#save-state")).to_have_attribute("data-state", "saved")
        status, project = api("GET", f"/api/v1/projects/{created['id']}")
        saved = project["requests"][0]["text"]
        assert saved.endswith("\n# ab\n# typed after it") and saved == request_text(first)
        expect(editor(second, "request", 0)).to_contain_text("# typed after it")
        assert request_text(second) == saved
        first.reload()  # saved: nothing to ask about
        first.wait_for_selector("#conn-state[data-state=open]")
        assert asked == ["beforeunload"]
    finally:
        first_context.close()
        second_context.close()


def test_a_push_refused_for_what_it_carries_is_sent_squashed_once_mended(browser, server_url, api):
    """A lone surrogate (half a character, no UTF-8 form) cannot be typed but can come in with a paste; the
    server refuses it wherever it is. The page used to push the same changes again forever (and, as the
    refusal named no clientSeq, waited for an answer that never came): once the half character is deleted,
    the unsent changes go as one change and everything typed is saved."""
    status, created = api("POST", "/api/v1/projects", project_body(title="Surrogate"))
    assert status == 201
    context, page = open_with_token(browser, server_url, created, "Ada")
    try:
        type_at_end(page, "\n# x")
        expect(page.locator("#save-state")).to_have_attribute("data-state", "saved")
        page.evaluate(
            """() => { const item = [...window.__playground.workspace.items.values()]
                 .find((e) => e.target === 'request');
               const view = item.editor.view; view.dispatch({changes: {from: view.state.doc.length, insert: "\\ud800"}}); }"""
        )
        expect(page.locator("#save-state")).to_have_attribute("data-state", "error")
        expect(page.locator(".toast-error").last).to_contain_text("lone surrogate")
        page.keyboard.press("ControlOrMeta+End")
        page.keyboard.type("y", delay=15)
        expect(page.locator("#save-state")).to_have_attribute("data-state", "error")
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("Backspace")
        page.keyboard.press("ControlOrMeta+End")
        page.keyboard.type("\n# typed after it", delay=15)
        expect(page.locator("#save-state")).to_have_attribute("data-state", "saved")
        status, project = api("GET", f"/api/v1/projects/{created['id']}")
        saved = project["requests"][0]["text"]
        assert saved.endswith("\n# xy\n# typed after it") and saved == request_text(page)
    finally:
        context.close()
