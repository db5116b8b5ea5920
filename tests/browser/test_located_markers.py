"""Errors at the place they happen, in a real browser (issue 14): the editor's marker (squiggle and gutter)
sits on the line and column of the offending character, the results list links there, and Kyverno's CEL is
checked like a ValidatingAdmissionPolicy's."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import project_body, replace_text

pytestmark = pytest.mark.browser

# A syntax error on line 17: the ")" at column 35.
POLICY_17 = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: max-replicas
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: object.spec.replicas >= 0
    message: "no negative replicas"
  - expression: |
      object.spec.replicas <= 5 &&)
    message: "replicas must be at most 5"
"""
assert POLICY_17.split("\n")[16][34] == ")"

KYVERNO = """\
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: replicas
spec:
  validationFailureAction: Enforce
  rules:
  - name: limit
    match:
      any:
      - resources:
          kinds: [Deployment]
    validate:
      cel:
        expressions:
        - expression: "object.spec.replicas <= 5"
        - expression: object.spec.replicas == 'five'
"""

# Where the first marker of `severity` is, read from the DOM: its line (1-based, all lines are rendered in
# these short documents), its column (text before it on that line, + 1), its text, and whether the lint
# gutter shows a marker level with that line.
MARKER = """([root, severity]) => {
  const mark = root.querySelector(`.cm-lintRange-${severity}`);
  if (!mark) return null;
  const line = mark.closest(".cm-line");
  const lines = [...root.querySelectorAll(".cm-content .cm-line")];
  const before = document.createRange();
  before.setStart(line, 0);
  before.setEndBefore(mark);
  const top = line.getBoundingClientRect().top;
  const gutter = [...root.querySelectorAll(`.cm-lint-marker-${severity}`)]
    .some((m) => Math.abs(m.getBoundingClientRect().top - top) < 4);
  const marks = [...root.querySelectorAll(`.cm-lintRange-${severity}`)].filter((m) => m.closest(".cm-line") === line);
  return { line: lines.indexOf(line) + 1, column: before.toString().length + 1,
           text: marks.map((m) => m.textContent).join(""), gutter };
}"""


def marker(page, root_selector: str, severity: str = "error"):
    root = page.locator(root_selector).first
    expect(root.locator(f".cm-lintRange-{severity}").first).to_be_visible()
    return root.evaluate(f"(root) => ({MARKER})([root, {severity!r}])")


def cursor(page, root_selector: str):
    """The cursor's (line, column) in the editor, from the DOM selection."""
    return page.locator(root_selector).first.evaluate("""(root) => {
      const selection = document.getSelection();
      const node = selection.focusNode;
      const line = (node.nodeType === 1 ? node : node.parentElement).closest(".cm-line");
      const lines = [...root.querySelectorAll(".cm-content .cm-line")];
      const before = document.createRange();
      before.setStart(line, 0);
      before.setEnd(node, selection.focusOffset);
      return [lines.indexOf(line) + 1, before.toString().length + 1];
    }""")


def test_a_syntax_error_on_line_17_is_marked_on_line_17_and_the_list_links_to_it(page, api, open_project):
    status, created = api("POST", "/api/v1/projects", project_body(title="Line 17"))
    assert status == 201
    open_project(created)
    replace_text(page, "document", 0, POLICY_17)
    panel = ".panel[data-target=document]"
    expect(page.locator("[data-testid=config-errors]")).to_contain_text("validations[1].expression")
    found = marker(page, panel)
    assert found == {"line": 17, "column": 35, "text": ")", "gutter": True}, found
    # The caret excerpt is set in a monospace font; the list's "line 17:36" moves the cursor there.
    excerpt = page.locator("[data-testid=config-errors] .caret-excerpt").first
    expect(excerpt).to_contain_text("^")
    family = excerpt.evaluate("(node) => getComputedStyle(node).fontFamily")
    assert "mono" in family.lower(), family
    page.locator("[data-testid=config-errors] [data-testid=goto][data-line='17']").first.click()
    assert cursor(page, panel) == [17, 35]
    # The refused policy takes no part: kubectl creates the Deployment, and says so as kubectl does.
    kubectl = page.locator(".result-card").first.locator(".kubectl")
    expect(kubectl.locator("[data-testid=kubectl]")).to_have_text("deployment.apps/web created")
    expect(kubectl.locator(".kubectl-head")).to_contain_text("kubectl apply -f - < request.yaml")


def test_the_student_editor_marks_a_line_17_error_where_it_is(browser, server_url, api):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(15_000)
    student = context.new_page()
    try:
        status, room = api("POST", "/api/v1/workshops/rooms", {"set": "admission-basics", "title": "Located"})
        assert status == 201, room
        student.goto(f"{server_url}/w/{room['code']}")
        student.fill("#display-name", "Ada")
        student.click("#join-form button[type=submit]")
        content = student.locator(".ws-codemirror .cm-content").first
        expect(student.locator("#ws-state")).to_have_attribute("data-state", "open")
        expect(student.locator("#progress")).to_have_text("1 / 2")  # the starter's first evaluation is in
        content.click()
        student.keyboard.press("ControlOrMeta+a")
        student.keyboard.insert_text(POLICY_17)
        errors = student.locator("#results [data-testid=config-errors]")  # the playground's results pane
        expect(errors).to_contain_text("compilation failed", timeout=20_000)
        found = marker(student, ".ws-codemirror")
        assert found == {"line": 17, "column": 35, "text": ")", "gutter": True}, found
        link = errors.locator("[data-testid=goto][data-line='17']").first
        expect(link).to_contain_text("line 17:35")
        link.click()
        assert cursor(student, ".ws-codemirror") == [17, 35]
    finally:
        context.close()


def test_a_kyverno_validate_cel_type_error_is_marked(page, api, open_project):
    status, created = api("POST", "/api/v1/projects", project_body(title="Kyverno CEL"))
    assert status == 201
    open_project(created)
    replace_text(page, "document", 1, KYVERNO)
    panel = page.locator(".panel[data-target=document]").nth(1)
    # Type checks come last, after the evaluation (on a loaded CI machine, after a worker's restart too).
    expect(page.locator("[data-testid=typecheck]")).to_contain_text("ClusterPolicy/replicas", timeout=45_000)
    found = panel.evaluate(f"(root) => ({MARKER})([root, 'warning'])")
    assert found == {"line": 17, "column": 44, "text": "==", "gutter": True}, found
