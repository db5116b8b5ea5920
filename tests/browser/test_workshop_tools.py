"""A teacher's tools in real browsers: watching a student's editor live (read-only, with the engine's error
marker), the student's full playground results (decision, kubectl text, tuple table, trace), and a time box
with a countdown on both pages and "over time" on the dashboard (two Chromium contexts); screenshots at
1440 and 390 px."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SCREENSHOTS, PageWatch

pytestmark = pytest.mark.browser

STARTER = 'expression: "true"'
BROKEN = "expression: object.spec.replicas <="
# The line and column of the first lint marker in a CodeMirror editor (as test_located_markers reads it).
# The line of the first error marker in a CodeMirror editor's lint gutter (an error at the end of a line has
# no text to underline, so the gutter is what shows it).
GUTTER_LINE = """(root) => {
  const mark = root.querySelector('.cm-lint-marker-error');
  if (!mark) return null;
  const top = mark.closest('.cm-gutterElement').getBoundingClientRect().top;
  const lines = [...root.querySelectorAll('.cm-content .cm-line')];
  return lines.findIndex((line) => Math.abs(line.getBoundingClientRect().top - top) < 4) + 1;
}"""


@pytest.fixture
def two_pages(browser):
    contexts = [browser.new_context(viewport={"width": 1440, "height": 1000}) for _ in range(2)]
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


def _shoot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_timeout(200)
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1440, "height": 1000})


def test_watch_results_and_time_box(two_pages, server_url, api):
    teacher, student = two_pages
    status, room = api("POST", "/api/v1/workshops/rooms", {"set": "admission-basics", "title": "Tools"})
    assert status == 201, room
    code = room["code"]
    for page in (teacher, student):
        page.clock.install()  # time runs as usual until the test jumps it forward
    teacher.goto(f"{server_url}/w/{code}/teacher#token={room['teacherToken']}")
    expect(teacher.locator("#ws-state")).to_have_attribute("data-state", "open")
    student.goto(f"{server_url}/w/{code}")
    student.fill("#display-name", "Ada")
    student.click("#join-form button[type=submit]")
    expect(student.locator("#ws-state")).to_have_attribute("data-state", "open")

    # 3. The student's page is the playground for the fork: decision, kubectl text, tuple table, trace.
    card = student.locator("#results .result-card").first
    expect(card.locator("[data-testid=decision]")).to_be_visible()
    expect(card.locator("[data-testid=kubectl]")).to_have_text("deployment.apps/nginx created")
    expect(student.locator("#results [data-testid=tuples]").first).to_be_visible()
    expect(student.locator("#results .trace-tuple").first).to_be_attached()
    expect(student.locator("#results [data-testid=typecheck]")).to_contain_text("1 policy checked")
    expect(student.locator("#checks li")).to_have_count(2)  # the checks stay, with their titles

    # 2. The teacher watches the student's editor: the playground's editor, read-only, live, with markers.
    teacher.locator("#progress-body tr").first.locator("button.watch").click()
    watched = teacher.locator("#watch .ws-codemirror").first
    expect(watched.locator(".cm-content")).to_contain_text(STARTER)
    expect(watched.locator(".cm-content")).to_have_attribute("contenteditable", "false")
    editor = student.locator(".ws-codemirror .cm-content").first
    text = editor.inner_text()
    editor.click()
    student.keyboard.press("ControlOrMeta+a")
    student.keyboard.insert_text(text.replace(STARTER, BROKEN))
    expect(watched.locator(".cm-content")).to_contain_text(BROKEN)
    line = next(i for i, t in enumerate(text.replace(STARTER, BROKEN).splitlines(), 1) if BROKEN in t)
    expect(watched.locator(".cm-lint-marker-error").first).to_be_visible(timeout=15_000)
    watched.scroll_into_view_if_needed()  # CodeMirror lays the gutter out again once it is on screen
    teacher.wait_for_timeout(300)
    assert watched.evaluate(GUTTER_LINE) == line

    # 4. A time box: the countdown on both pages, nothing locked; once over, "over time" on the dashboard.
    teacher.fill("#time-box-minutes", "1")
    teacher.click("#time-box-form button[type=submit]")
    # Counted from when the room reached the exercise (the room opened a few seconds ago).
    expect(student.locator("#time-box")).to_have_text(re.compile(r"^Time left: 0:[0-5]\d$"))
    expect(teacher.locator("#time-box")).to_contain_text("Time left:")
    _shoot(student, "workshop-student-tools")
    _shoot(teacher, "workshop-teacher-tools")
    # The pages' clocks jump past the deadline (the server's is not touched).
    for page in (teacher, student):
        page.clock.fast_forward("01:05")
    expect(student.locator("#time-box")).to_have_attribute("data-over", "true")
    expect(student.locator("#time-box")).to_contain_text("Time is up")
    cell = teacher.locator("#progress-body tr").first.locator("td.ws-cell").first
    expect(cell).to_have_attribute("data-over-time", "true")
    expect(cell.locator(".ws-over-time")).to_have_text(" over time")
    expect(editor).to_have_attribute("contenteditable", "true")  # not locked: the teacher did not choose it
    expect(student.locator("#time-up")).to_be_hidden()
    # The teacher chooses to lock: the student's editors turn read-only with a banner; removing the box frees them.
    teacher.check("#time-box-locks")
    teacher.click("#time-box-form button[type=submit]")
    expect(student.locator("#time-up")).to_be_visible()
    expect(editor).to_have_attribute("contenteditable", "false")
    teacher.fill("#time-box-minutes", "0")
    teacher.click("#time-box-form button[type=submit]")
    expect(student.locator("#time-up")).to_be_hidden()
    expect(student.locator("#time-box")).to_be_hidden()
    expect(editor).to_have_attribute("contenteditable", "true")


def test_a_coteacher_link_opens_the_dashboard_with_the_controls(two_pages, server_url, api):
    owner, other = two_pages
    status, room = api("POST", "/api/v1/workshops/rooms", {"set": "admission-basics", "title": "Two teachers"})
    assert status == 201, room
    owner.goto(f"{server_url}/w/{room['code']}/teacher#token={room['teacherToken']}")
    expect(owner.locator("#ws-state")).to_have_attribute("data-state", "open")
    owner.locator("#coteacher summary").click()
    owner.click("#coteacher-create")
    link = owner.locator("#coteacher-link")
    expect(link).to_be_visible()
    url = link.input_value()
    assert "#token=" in url and room["teacherToken"] not in url
    other.goto(url)
    expect(other.locator("#ws-state")).to_have_attribute("data-state", "open")
    expect(other.locator("#coteacher")).to_be_hidden()  # only the owner hands out links
    other.click("#advance")
    expect(owner.locator("#current-exercise")).to_contain_text("2 / 7")


def test_a_project_becomes_an_exercise_set_validated_and_imported(page, server_url, api):
    from tests.browser.helpers import project_body

    status, project = api("POST", "/api/v1/projects", project_body(title="Replica limit"))
    assert status == 201, project
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.goto(f"{server_url}/workshops/author")
    page.fill("#set-slug", "from-a-project")
    page.fill("#set-title", "From a project")
    page.locator(".ws-author-exercise").first.locator("button", has_text="Remove this exercise").click()
    page.fill("#from-project", f"{server_url}/p/{project['id']}")
    page.click("#load-project")
    exercise = page.locator(".ws-author-exercise")
    expect(exercise).to_have_count(1)
    expect(exercise.locator(".ex-title")).to_have_value("Replica limit")
    expect(exercise.locator(".check-name")).to_have_value("seven replicas")

    # Starter = solution: the import's test refuses it, and says why.
    exercise.locator(".check-title").fill("a Deployment with 7 replicas is denied")
    page.click("#check-set")
    expect(page.locator("#author-status")).to_contain_text("the starter already passes every check")
    expect(page.locator("#import-set")).to_be_disabled()

    # Take the part to learn out of the starter: now it validates, and imports.
    starter = exercise.locator(".ex-starter")
    starter.fill(starter.input_value().replace("object.spec.replicas <= 5", "true"))
    page.click("#check-set")
    expect(page.locator("#author-status")).to_have_attribute("data-state", "valid")
    expect(page.locator("#yaml-out")).to_contain_text("title: a Deployment with 7 replicas is denied")
    expect(page.locator("#download-yaml")).to_be_visible()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_timeout(200)
        page.screenshot(path=str(SCREENSHOTS / f"workshop-author-{width}.png"), full_page=True)
        page.locator("#yaml-out").screenshot(path=str(SCREENSHOTS / f"workshop-author-yaml-{width}.png"))
    page.click("#import-set")
    expect(page.locator("#author-status")).to_contain_text("Imported “From a project” (1 exercises)")
    status, listed = api("GET", "/api/v1/workshops/sets/from-a-project")
    assert status == 200 and listed["exercises"][0]["checks"][0]["title"] == "a Deployment with 7 replicas is denied"


def test_a_copy_of_the_shipped_set_validates_unchanged_in_the_authoring_page(page, server_url, api):
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.goto(f"{server_url}/workshops/author")
    page.select_option("#copy-set", "admission-basics")
    page.click("#copy-set-load")
    expect(page.locator(".ws-author-exercise")).to_have_count(7)
    expect(page.locator("#set-slug")).to_have_value("admission-basics-copy")
    page.click("#check-set")
    expect(page.locator("#author-status")).to_have_attribute("data-state", "valid", timeout=30_000)
    status, source = api("GET", "/api/v1/workshops/sets/admission-basics/source")
    assert status == 200
    # Nothing the form has no field for is lost: the composed file equals the shipped one but for its name.
    import yaml

    composed = yaml.safe_load(page.locator("#yaml-out").inner_text())
    assert composed["exercises"] == source["exercises"]
