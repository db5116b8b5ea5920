"""Every page at a phone's width (390 px) and a laptop's (1440 px): nothing runs off the right edge, the main
actions are visible and enabled, and axe-core finds no serious or critical accessibility violation, in the
light and the dark theme. `make screenshots` runs this module to leave a PNG of each page for a reviewer."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM, PageWatch
from tests.browser.helpers import api_client
from tests.browser.site_pages import site_pages

pytestmark = pytest.mark.browser
expect.set_options(timeout=20_000)  # a loaded CI machine evaluates slower than a laptop

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
SHOTS = os.environ.get("SCREENSHOTS_DIR")  # set by `make screenshots`
WIDTHS = {"phone": (390, 844), "laptop": (1440, 900)}
PAGE_NAMES = [
    "landing",
    "cel",
    "gallery",
    "example",
    "project",
    "batch",
    "impact",
    "snapshot",
    "embed",
    "workshops",
    "workshop-student",
    "workshop-author",
    "workshop-teacher",
    "not-found",
]


@pytest.fixture(scope="module")
def pages(server_url):
    assert os.path.exists(CHROMIUM)
    return {page.name: page for page in site_pages(api_client(server_url))}


def open_page(browser, server_url, site_page, width, theme, *, inject=False):
    viewport = dict(zip(("width", "height"), WIDTHS[width]))
    # axe-core is injected as a script of the test's own: only then is the page's CSP bypassed.
    context = browser.new_context(viewport=viewport, bypass_csp=inject)
    context.set_default_timeout(20_000)
    storage = {**site_page.storage, "admission-playground:theme": theme, "admission-playground:tour-done": "1"}
    context.add_init_script("".join(f"localStorage.setItem({key!r}, {value!r});" for key, value in storage.items()))
    page = context.new_page()
    page.watch = PageWatch(page)
    page.goto(server_url + site_page.path)
    expect(page.locator(site_page.ready).first).to_be_visible()
    return context, page


def serious_violations(page) -> list[str]:
    page.add_script_tag(path=str(AXE))
    violations = page.evaluate("""async () => {
        const result = await axe.run(document, {resultTypes: ["violations"]});
        return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
            .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
    }""")
    return violations


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("name", PAGE_NAMES)
def test_page_fits_the_width_and_its_main_actions_are_usable(browser, server_url, pages, name, width):
    site_page = pages[name]
    context, page = open_page(browser, server_url, site_page, width, "light")
    try:
        overflow = page.evaluate("""() => ({scroll: document.documentElement.scrollWidth, inner: window.innerWidth,
            wide: [...document.querySelectorAll('body *')].filter((n) => n.getBoundingClientRect().right > window.innerWidth + 1
                && getComputedStyle(n).position !== 'fixed' && n.offsetParent !== null
                && !n.closest('.cm-scroller, .table-scroll, table, pre')).slice(0, 5).map((n) => n.tagName + '.' + n.className)})""")
        assert overflow["scroll"] <= overflow["inner"], overflow
        phone = width == "phone" and site_page.phone_actions is not None
        for selector in site_page.phone_actions if phone else site_page.actions:
            action = page.locator(selector).first
            expect(action).to_be_visible()
            expect(action).to_be_enabled()
            box = action.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= WIDTHS[width][0], (selector, box)
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(SHOTS) / f"{name}-{WIDTHS[width][0]}.png"), full_page=True)
        assert page.watch.errors == []
    finally:
        context.close()


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("name", PAGE_NAMES)
def test_page_has_no_serious_accessibility_violation(browser, server_url, pages, name, theme, width):
    context, page = open_page(browser, server_url, pages[name], width, theme, inject=True)
    try:
        page.wait_for_timeout(300)  # let streamed results and editors settle
        assert serious_violations(page) == []
        if SHOTS and theme == "dark":
            page.screenshot(path=str(Path(SHOTS) / f"{name}-{WIDTHS[width][0]}-dark.png"))
    finally:
        context.close()


def test_a_long_unbroken_message_wraps_inside_its_result_card(browser, server_url):
    """A message or name with no spaces must not push the tuple table past its card at a laptop's width."""
    long_name = "a-rather-long-policy-name-that-keeps-going-" + "x" * 20
    message = "replicas-must-be-below-two-" + "y" * 120
    documents = f"""apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {{name: {long_name}}}
spec:
  matchConstraints:
    resourceRules: [{{apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}}]
  validations: [{{expression: "object.spec.replicas < 2", message: {message}}}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: {long_name}-binding}}
spec: {{policyName: {long_name}, validationActions: [Deny]}}
"""
    request = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec: {replicas: 3}\n"
    status, project = api_client(server_url)(
        "POST",
        "/api/v1/projects",
        {
            "title": "Long names",
            "documents": [{"name": "p", "text": documents}],
            "requests": [{"name": "r", "text": request}],
        },
    )
    assert status == 201, project
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        page = context.new_page()
        page.goto(f"{server_url}/p/{project['id']}")
        expect(page.locator("table.tuples td", has_text="replicas-must-be").first).to_be_visible()
        sizes = page.evaluate("""() => [...document.querySelectorAll('.result-card table.tuples')].map((t) => ({
            table: t.getBoundingClientRect().right, card: t.closest('.result-card').getBoundingClientRect().right}))""")
        assert sizes and all(size["table"] <= size["card"] for size in sizes), sizes
    finally:
        context.close()


def test_on_a_phone_each_policy_tuple_is_a_card_whose_first_line_is_its_outcome(browser, server_url):
    """At 390 px the tuples table would put the outcome off-screen: each row is a card, the outcome on top."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(f"{server_url}/examples/seed-vap-message-expression")
        page.locator(".pane-switch button", has_text="Results").click()
        rows = page.locator(".result-card table[data-testid=tuples] tbody tr")
        expect(rows.first).to_be_visible()
        boxes = page.evaluate("""() => [...document.querySelectorAll('.result-card table[data-testid=tuples] tbody tr')]
            .filter((row) => row.offsetParent !== null).map((row) => {
                const cells = [...row.children].map((td) => ({label: td.dataset.label, box: td.getBoundingClientRect()}));
                const top = Math.min(...cells.map((c) => c.box.top));
                const outcome = cells.find((c) => c.label === 'outcome').box;
                return {first: outcome.top === top, right: outcome.right, badge: row.querySelector('.tuple-outcome .badge') !== null};
            })""")
        assert boxes, "the example has policy tuples"
        assert all(b["first"] and b["badge"] and b["right"] <= 390 for b in boxes), boxes
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()


SUBMITS = "button[type=submit], button:not([type]), input[type=submit]"


@pytest.mark.parametrize("name", PAGE_NAMES)
def test_no_form_is_sent_by_the_browser_before_the_page_script_runs(browser, server_url, pages, name):
    """A form the page's script sends has no action: sent by the browser itself (a click in a slow load, before
    the script ran), it reloads the page with the choices in its URL and the chosen files lost. Its submit
    buttons are served disabled and enabled by the script, so neither a click nor Enter sends it."""
    site_page = pages[name]
    context = browser.new_context(viewport=dict(zip(("width", "height"), WIDTHS["laptop"])))
    context.add_init_script("".join(f"localStorage.setItem({k!r}, {v!r});" for k, v in site_page.storage.items()))
    try:
        context.route("**/*.js", lambda route: route.abort())  # the scripts never arrive
        page = context.new_page()
        page.goto(server_url + site_page.path)
        served = page.url
        forms = page.locator("form:not([method=dialog])")
        for index in range(forms.count()):
            form = forms.nth(index)
            if not form.is_visible():
                continue
            for button in form.locator(SUBMITS).all():
                expect(button).to_be_disabled()
                button.click(force=True)
            for field in form.locator("input:not([type]), input[type=text], input[type=search]").all():
                if field.is_visible() and field.is_editable():
                    field.press("Enter")
        page.wait_for_timeout(300)
        assert page.url == served, f"a form was sent by the browser: {page.url}"
        context.unroute("**/*.js")
        page.goto(server_url + site_page.path)
        expect(page.locator(site_page.ready).first).to_be_visible()
        for button in page.locator("[data-needs-script]").all():
            expect(button).to_be_enabled()
    finally:
        context.close()
