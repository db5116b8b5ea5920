"""A workshop in two real browsers: the teacher's dashboard turns green, without a reload, when the student
fixes the policy in their own page (two Chromium contexts, so two separate localStorage and sockets)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SCREENSHOTS, PageWatch

pytestmark = pytest.mark.browser

STARTER = 'expression: "true"'
FIXED = "expression: object.spec.replicas <= 5"
NAME = "<img src=x onerror=alert(1)> Ada"  # shown as text, never as HTML


@pytest.fixture
def two_pages(browser):
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1000}) for _ in range(2)]
    pages = []
    for context in contexts:
        context.set_default_timeout(15_000)
        page = context.new_page()
        page.watch = PageWatch(page)
        pages.append(page)
    yield pages
    errors = [error for page in pages for error in page.watch.errors]
    dialogs = [dialog for page in pages for dialog in page.watch.dialogs]
    for context in contexts:
        context.close()
    assert errors == [] and dialogs == [], (errors, dialogs)


def test_student_fixes_the_policy_and_the_teachers_dashboard_turns_green(two_pages, server_url, api):
    teacher, student = two_pages
    status, room = api("POST", "/api/v1/workshops/rooms", {"set": "admission-basics", "title": "Browser class"})
    assert status == 201, room
    code = room["code"]

    teacher.goto(f"{server_url}/w/{code}/teacher#token={room['teacherToken']}")
    expect(teacher.locator("#ws-state")).to_have_attribute("data-state", "open")
    expect(teacher.locator("#current-exercise")).to_contain_text("1 / 7")
    assert "token=" not in teacher.url  # the token moved to localStorage

    student.goto(f"{server_url}/w/{code}")
    student.fill("#display-name", NAME)
    student.click("#join-form button[type=submit]")
    editor = student.locator(".ws-codemirror .cm-content").first  # the playground's CodeMirror editor
    expect(student.locator("#ws-state")).to_have_attribute("data-state", "open")
    expect(student.locator("#task")).to_contain_text("at most 5 replicas")
    # The count is of the checks shown (one of two passes); the hidden check waits for Submit.
    expect(student.locator("#progress")).to_have_text("1 / 2")
    expect(student.locator("#hidden-note")).to_have_text("+ 1 hidden check after you submit")

    row = teacher.locator("#progress-body tr").first
    expect(row.locator("th")).to_have_text(NAME)  # the name as typed: text, not markup
    cell = row.locator("td.ws-cell").first
    expect(cell.locator(".ws-score")).to_have_text("2/3")
    expect(cell).not_to_have_class("ws-cell pass")

    text = editor.inner_text()  # a short document: every line is rendered
    assert STARTER in text
    editor.click()
    student.keyboard.press("ControlOrMeta+a")
    student.keyboard.insert_text(text.replace(STARTER, FIXED))
    expect(student.locator("#progress")).to_have_attribute("data-complete", "true")
    expect(student.locator("#checks li.pass")).to_have_count(2)
    expect(student.locator("#progress")).to_have_text("2 / 2")

    expect(cell).to_have_attribute("data-complete", "true")  # no reload: pushed over the teacher's socket
    expect(cell.locator(".ws-score")).to_have_text("3/3")
    assert "pass" in (cell.get_attribute("class") or "")
    assert teacher.evaluate("performance.getEntriesByType('navigation').length") == 1
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    teacher.screenshot(path=str(SCREENSHOTS / "workshop-dashboard.png"))
    student.screenshot(path=str(SCREENSHOTS / "workshop-student.png"))

    # A reload (or a restarted server) resumes by the browser token: same fork, same text, same progress.
    student.reload()
    expect(student.locator("#ws-state")).to_have_attribute("data-state", "open")
    expect(student.locator(".ws-codemirror .cm-content").first).to_contain_text(FIXED.splitlines()[0].strip())
    expect(student.locator("#progress")).to_have_attribute("data-complete", "true")
    expect(teacher.locator("#progress-body tr")).to_have_count(1)  # the same participant, not a new one

    # Submit: the hidden check joins the count, and the note says it now counts.
    student.click("#submit")
    expect(student.locator("#progress")).to_have_text("3 / 3")
    expect(student.locator("#hidden-note")).to_have_text("submitted: 1 hidden check included")
    # The dashboard's names column stays narrow: the spare width goes to the exercises.
    widths = teacher.evaluate(
        "() => [document.querySelector('#progress-head th').getBoundingClientRect().width,"
        " document.querySelector('#progress-table').getBoundingClientRect().width]"
    )
    assert widths[0] <= 0.2 * widths[1], widths

    # The teacher shares a message; the student sees it as text.
    teacher.fill("#announce-text", "<b>Well done</b>")
    teacher.click("#announce-form button[type=submit]")
    expect(student.locator("#announcement")).to_have_text("<b>Well done</b>")
