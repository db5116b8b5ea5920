"""Editing CRD validation rules in a real browser (issue 21): `self.` completes from the CRD schema at the
rule's place, a rule that does not compile is marked at the character cel-go names, and each rule's
estimated cost is shown at the rule (an info diagnostic) and in the results' type-check list."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import replace_text
from tests.browser.test_located_markers import marker

pytestmark = pytest.mark.browser

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.replicas <= self.maxReplicas + self.nope"
              message: replicas over max
            - rule: "self.items.all(i, i.size() < 10)"
            properties:
              replicas: {type: integer}
              maxReplicas: {type: integer}
              max-surge: {x-kubernetes-int-or-string: true}
              items: {type: array, items: {type: string}}
              template:
                type: object
                properties:
                  image: {type: string}
"""
BAD_LINE = 20  # the rule with `self.nope`: cel-go points at its dot
assert CRD.split("\n")[BAD_LINE - 1].index(".nope") + 1 == 62

WIDGET = """\
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: default}
spec: {replicas: 1, maxReplicas: 2, items: [a]}
"""


def _project(api, open_project):
    body = {
        "title": "CRD rules",
        "documents": [{"name": "crd.yaml", "text": CRD}],
        "requests": [{"name": "widget", "text": WIDGET}],
    }
    status, created = api("POST", "/api/v1/projects", body)
    assert status == 201
    return open_project(created)


def _marked(page, panel: str, line: int, severity: str) -> str:
    """The text under `severity` marks on a line (token colouring splits a mark into several spans)."""
    return page.locator(panel).first.evaluate(
        """(root, [line, severity]) => {
          const row = root.querySelectorAll(".cm-content .cm-line")[line - 1];
          return [...row.querySelectorAll(`.cm-lintRange-${severity}`)].map((m) => m.textContent).join("");
        }""",
        [line, severity],
    )


def _complete_at(page, line_text: str, before_end: int = 1):
    """Put the cursor `before_end` characters before the end of the line holding `line_text`, ask for
    completions, and return the labels offered."""
    page.locator(".panel[data-target=document] .cm-line", has_text=line_text).first.click()
    page.keyboard.press("End")
    for _ in range(before_end):
        page.keyboard.press("ArrowLeft")
    page.keyboard.press("Control+Space")
    tooltip = page.locator(".cm-tooltip-autocomplete")
    expect(tooltip).to_be_visible()
    labels = tooltip.locator(".cm-completionLabel").all_text_contents()
    page.keyboard.press("Escape")
    return labels


def test_crd_rules_complete_mark_and_show_their_cost(page, api, open_project, screenshot):
    page.set_viewport_size({"width": 1440, "height": 1000})
    _project(api, open_project)
    panel = ".panel[data-target=document]"
    # The compile error is marked at the dot of `.nope` (column 62 of line 20), and listed.
    expect(page.locator("[data-testid=config-errors]")).to_contain_text("undefined field 'nope'", timeout=30_000)
    found = marker(page, panel)
    assert (found["line"], found["column"], found["gutter"]) == (BAD_LINE, 62, True), found

    # Fixed: each rule's estimated cost appears at the rule (info) and in the type-check list.
    fixed = CRD.replace(" + self.nope", "")
    replace_text(page, "document", 0, fixed)
    expect(page.locator(f"{panel} .cm-lintRange-error")).to_have_count(0)
    typecheck = page.locator("[data-testid=typecheck]")
    expect(typecheck).to_contain_text(
        "estimated cost 6,291,453: within the per-rule limit of 10,000,000", timeout=30_000
    )
    # The schema root (line 14) carries the CRD's total; each rule its own, over the rule's text.
    # The rules' markers and the total may arrive in separate updates: wait for the total's.
    page.wait_for_function(
        """([panel]) => {
          const row = document.querySelector(panel).querySelectorAll(".cm-content .cm-line")[13];
          return row && [...row.querySelectorAll(".cm-lintRange-info")].map((m) => m.textContent).join("") !== "";
        }""",
        arg=[panel],
        timeout=30_000,
    )
    first = marker(page, panel, "info")
    assert (first["line"], first["text"]) == (14, "openAPIV3Schema:"), first
    assert _marked(page, panel, BAD_LINE, "info") == "self.replicas <= self.maxReplicas"
    # The diagnostic's text, as the editor's lint tooltip shows it on hover.
    page.locator(f"{panel} .cm-line", has_text="self.replicas <= self.maxReplicas").locator(
        ".cm-lintRange-info"
    ).first.hover()
    expect(page.locator(".cm-tooltip-lint")).to_contain_text("estimated cost 5: within the per-rule limit")
    screenshot("crd-rules-cost-1440")

    # `self.` offers the fields of the schema where the rule is (escaped as CEL sees them), …
    replace_text(page, "document", 0, fixed.replace('"self.items.all(i, i.size() < 10)"', '"self."'))
    labels = _complete_at(page, '- rule: "self."')
    assert {"replicas", "maxReplicas", "max__dash__surge", "items", "template"} <= set(labels), labels
    assert "apiVersion" not in labels  # not the resource's root: no TypeMeta there
    # … and a deeper selection the fields of that object.
    replace_text(page, "document", 0, fixed.replace('"self.items.all(i, i.size() < 10)"', '"self.template."'))
    labels = _complete_at(page, '- rule: "self.template."')
    assert "image" in labels, labels
    page.locator(".panel[data-target=document] .cm-line", has_text='"self.template."').first.click()
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Control+Space")
    expect(page.locator(".cm-tooltip-autocomplete")).to_contain_text("image")
    screenshot("crd-rules-completion-1440")
    page.keyboard.press("Escape")

    page.set_viewport_size({"width": 390, "height": 844})
    replace_text(page, "document", 0, fixed)
    expect(page.locator("[data-testid=typecheck]")).to_contain_text("estimated cost", timeout=30_000)
    expect(page.locator(f"{panel} .cm-lint-marker-info").first).to_be_visible(timeout=30_000)
    screenshot("crd-rules-editor-390", full_page=True)
    page.locator(".pane-switch button[data-pane=results]").click()
    expect(page.locator("[data-testid=typecheck]")).to_be_visible()
    screenshot("crd-rules-cost-390", full_page=True)
