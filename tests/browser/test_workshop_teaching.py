"""A teacher runs the room in front of a class: presenting shows the teacher's own typing (never the
solution), the solution is shown only after a confirmation, the last exercise finishes the workshop, and
closing the room makes the student's editor read-only with a banner (two Chromium contexts)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PageWatch

pytestmark = pytest.mark.browser

SOLUTION_LINE = "object.spec.replicas <= 5"


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
    for context in contexts:
        context.close()
    assert errors == [], errors


def test_presenting_shows_the_teachers_text_and_the_room_finishes_read_only(two_pages, server_url, api):
    teacher, student = two_pages
    status, room = api("POST", "/api/v1/workshops/rooms", {"set": "admission-basics", "title": "Show and tell"})
    assert status == 201, room
    code = room["code"]
    socket_urls = []
    teacher.on("websocket", lambda ws: socket_urls.append(ws.url))
    teacher.goto(f"{server_url}/w/{code}/teacher#token={room['teacherToken']}")
    expect(teacher.locator("#ws-state")).to_have_attribute("data-state", "open")
    expect(teacher.locator("#current-exercise")).to_contain_text("1 / 7")
    assert socket_urls and not [url for url in socket_urls if room["teacherToken"] in url]

    # The teacher link opens the dashboard in another browser (the secret in the fragment).
    link = teacher.locator("#teacher-link").input_value()
    assert link.endswith(f"#token={room['teacherToken']}")
    elsewhere = teacher.context.browser.new_context().new_page()
    elsewhere.goto(link)
    expect(elsewhere.locator("#ws-state")).to_have_attribute("data-state", "open")
    expect(elsewhere.locator("#current-exercise")).to_contain_text("1 / 7")
    elsewhere.context.close()
    assert teacher.locator("#presenter-text").input_value() == ""  # never pre-filled with the solution

    student.goto(f"{server_url}/w/{code}")
    student.fill("#display-name", "Grace")
    student.click("#join-form button[type=submit]")
    expect(student.locator("#ws-state")).to_have_attribute("data-state", "open")

    # A compile error reaches the dashboard with its line, and the "most common errors" panel.
    editor = student.locator(".ws-codemirror .cm-content").first
    expect(editor).to_contain_text('expression: "true"')
    text = editor.inner_text()
    editor.click()
    student.keyboard.press("ControlOrMeta+a")
    student.keyboard.insert_text(text.replace('expression: "true"', "expression: object.spec.replicas <="))
    expect(student.locator("#results [data-testid=config-errors]")).to_contain_text("Syntax error", timeout=15_000)
    cell = teacher.locator("#progress-body tr").first.locator("td.ws-cell").first
    expect(cell).to_have_attribute("data-compiles", "false", timeout=15_000)
    expect(cell.locator(".ws-first-error")).to_contain_text("Syntax error")
    assert (
        ":18:" in cell.locator(".ws-first-error").inner_text() or ":1" in cell.locator(".ws-first-error").inner_text()
    )
    expect(teacher.locator("#common-errors li").first).to_contain_text("1 ×")
    expect(teacher.locator("#common-errors li").first).to_contain_text("spec.validations[0].expression")

    teacher.fill("#presenter-text", "# look at this\nkind: Deployment")
    teacher.click("#present")
    expect(student.locator("#presenting")).to_be_visible()
    expect(student.locator("#presenting-docs")).to_contain_text("kind: Deployment")
    assert SOLUTION_LINE not in student.locator("#presenting-docs").inner_text()
    teacher.fill("#presenter-text", "# look at this\nkind: Pod")  # live while presenting
    expect(student.locator("#presenting-docs")).to_contain_text("kind: Pod")

    # "Show solution" asks first; dismissing it shows nothing.
    teacher.watch.confirm = False
    teacher.click("#reveal-solution")
    teacher.wait_for_timeout(500)
    expect(student.locator("#solution")).to_be_hidden()
    teacher.watch.confirm = True
    teacher.click("#reveal-solution")
    assert [d for d in teacher.watch.dialogs if "solution" in d] and len(teacher.watch.dialogs) == 2
    expect(student.locator("#solution")).to_be_visible()
    expect(student.locator("#solution-docs")).to_contain_text(SOLUTION_LINE)

    # Advancing keeps the teacher's own text, not the next solution.
    teacher.click("#advance")
    expect(teacher.locator("#current-exercise")).to_contain_text("2 / 7")
    assert teacher.locator("#presenter-text").input_value() == "# look at this\nkind: Pod"
    expect(student.locator("#exercise-number")).to_have_text("Exercise 2 of 7")
    assert not student.locator("#exercise-title").inner_text()[:1].isdigit()  # numbered once, not "2. 2. …"
    teacher.click("#previous")
    expect(teacher.locator("#current-exercise")).to_contain_text("1 / 7")
    expect(teacher.locator("#previous")).to_be_disabled()

    # The last exercise has "finish"; finishing closes the room and the student's editor turns read-only.
    for number in range(2, 8):
        teacher.click("#advance")
        expect(teacher.locator("#current-exercise")).to_contain_text(f"{number} / 7")
    expect(teacher.locator("#advance")).to_have_text("Finish the workshop")
    teacher.click("#advance")
    expect(student.locator("#closed-banner")).to_be_visible()
    editor = student.locator(".ws-codemirror .cm-content").first
    expect(editor).to_have_attribute("contenteditable", "false")
    expect(student.locator("#submit")).to_be_disabled()
    expect(teacher.locator("#room-state")).to_have_text("closed")

    # A late joiner is told at once, before typing a name.
    late = student.context.browser.new_context().new_page()
    late.goto(f"{server_url}/w/{code}")
    expect(late.locator("#closed-banner")).to_be_visible()
    expect(late.locator("#join-form")).to_be_hidden()
    late.context.close()
