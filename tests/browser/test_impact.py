"""The compare page in a real browser, end to end: keep a version of a project from the page, lower its replica
limit, then from the version history "compare with version 1" over an uploaded audit log: the progress bar
runs to the end on the batch workers, the totals are the change's exact count, the three charts are drawn
(newly denied per policy, per namespace, and per hour), the changed requests filter by user, one opens with
both answers and their diff, and every output downloads. "Compare with another project" over a dump runs the
other way. axe-core finds no serious or critical violation at 1440 and 390 px with the results shown, and the
page fits a phone."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SCREENSHOTS, PageWatch
from tests.browser.test_batch import INKED_PIXELS
from tests.browser.test_layout import serious_violations
from tests.playground.impact.corpora import audit_log, limit_policy, newly_denied, project_body, replicas_dump

pytestmark = pytest.mark.browser
expect.set_options(timeout=30_000)

REPLICAS = [2, 4, 9, 5, 3, 1, 4, 7, 2, 5, 4, 6] * 10  # 120 requests
NEWLY = newly_denied(REPLICAS)
BOB = sum(1 for i, n in enumerate(REPLICAS) if i % 2 and 3 < n <= 5)  # odd events are bob's


@pytest.fixture
def axe_page(browser):
    """A page that may inject axe-core (the page's CSP is bypassed for the test's own script only)."""
    context = browser.new_context(viewport={"width": 1440, "height": 900}, bypass_csp=True, accept_downloads=True)
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.watch = PageWatch(page)
    yield page
    errors = list(page.watch.errors)
    context.close()
    assert errors == [], f"uncaught errors in the page: {errors}"


def no_violations(page) -> None:
    page.wait_for_timeout(300)
    assert serious_violations(page) == []


def shot(page, name: str) -> None:
    """A full-page screenshot for a human to look at (tests/browser/conftest.py SCREENSHOTS)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def fits(page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


def download(page, fmt: str) -> str:
    with page.expect_download() as info:
        page.click(f"[data-export={fmt}]")
    return info.value.path().read_text()


def test_compare_a_kept_version_with_now_over_an_audit_log(axe_page, api, server_url, tmp_path):
    page = axe_page
    status, project = api("POST", "/api/v1/projects", project_body())
    assert status == 201, project
    page.goto(f"{server_url}/p/{project['id']}/impact")
    expect(page.locator("#versions-table .no-versions")).to_be_visible()
    page.click("#btn-keep")  # keeps the project as it is: version 1, limit 5
    expect(page.locator("#versions-table tr[data-version='1']")).to_contain_text("max-replicas")
    status, _ = api(
        "PUT",
        f"/api/v1/projects/{project['id']}/documents/{project['documents'][0]['id']}",
        {"text": limit_policy(3)},
        token=project["editToken"],
    )
    assert status == 200
    page.reload()
    no_violations(page)

    page.get_by_role("button", name="Compare with version 1").click()
    expect(page.locator("#base-choice")).to_have_value("1")
    expect(page.locator("#head-choice")).to_have_value("now")
    log = tmp_path / "audit.log"
    log.write_text(audit_log(REPLICAS))
    page.set_input_files("#impact-files", str(log))
    page.click("#btn-compare")
    expect(page.locator("#progress-text")).to_have_attribute("data-status", "done", timeout=90_000)
    expect(page.locator("#compared")).to_contain_text(
        "Replica limits version 1 → Replica limits (now), over an audit log"
    )
    expect(page.locator("#impact-progress")).to_have_js_property("value", len(REPLICAS))
    expect(page.locator("#impact-progress")).to_have_attribute("data-source", "socket")  # streamed, not polled
    expect(page.locator("#progress-text")).to_contain_text(
        f"{len(REPLICAS)} / {len(REPLICAS)} requests · {NEWLY} newly denied"
    )

    expect(page.locator("[data-testid=total-newlyDenied] strong")).to_have_text(str(NEWLY))
    expect(page.locator("[data-testid=total-requests] strong")).to_have_text(str(len(REPLICAS)))
    expect(page.locator("[data-testid=total-newlyAllowed] strong")).to_have_text("0")
    for chart in ("chart-policy", "chart-namespace", "chart-time"):
        expect(page.locator(f"#{chart}")).to_be_visible()
        assert page.evaluate(INKED_PIXELS, chart) > 300, f"{chart} is blank"
    row = page.locator("#policy-table tbody tr", has_text="max-replicas")
    expect(row.locator("td").nth(1)).to_have_text(str(NEWLY))  # the newly denied column
    expect(page.locator("#user-table tbody tr", has_text="bob").locator("td").nth(2)).to_have_text(str(BOB))
    expect(page.locator("#kind-table tbody tr", has_text="Deployment").locator("td").nth(2)).to_have_text(str(NEWLY))
    expect(page.locator("#changes-count")).to_contain_text(f"{NEWLY} changed requests")
    no_violations(page)

    page.fill("#changes-search", "bob")
    expect(page.locator("#changes-count")).to_contain_text(f"{BOB} changed request")
    first = page.locator("#changes-table tbody tr").first
    expect(first).to_contain_text("bob")
    first.get_by_role("button").click()
    expect(page.locator("[data-testid=answer-base]")).to_contain_text("allowed")
    expect(page.locator("[data-testid=answer-head]")).to_contain_text("replicas must be no greater than 5")
    diff = page.locator("[data-testid=answer-diff] .diff-add")
    expect(diff.first).to_be_visible()
    assert "allowed: false" in " ".join(diff.all_text_contents())
    full = page.locator("#full-results .result-card")
    expect(full).to_have_count(2)
    expect(full.nth(0).locator("[data-testid=decision]")).to_have_text("Allowed")
    expect(full.nth(1).locator("[data-testid=decision]")).to_have_text("Denied")
    shot(page, "impact-1440")

    data = json.loads(download(page, "json"))
    assert data["summary"]["newlyDenied"] == NEWLY and data["source"]["replayed"] == len(REPLICAS)
    assert len(download(page, "csv").strip().splitlines()) == NEWLY + 1
    assert sum(1 for _ in ET.fromstring(download(page, "junit")).iter("testcase")) == NEWLY
    markdown = download(page, "markdown")
    assert "max-replicas" in markdown and len(markdown.encode()) < 60_000
    assert "max-replicas" in download(page, "text")

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()  # the comparison is remembered: its results come back
    expect(page.locator("[data-testid=total-newlyDenied] strong")).to_have_text(str(NEWLY))
    expect(page.locator("#changes-table tbody tr").first).to_be_visible()
    fits(page)
    no_violations(page)
    shot(page, "impact-390")
    for part in ("#versions-title", "#results-title", "#changes-title"):
        page.locator(part).scroll_into_view_if_needed()
        page.evaluate("(sel) => document.querySelector(sel).scrollIntoView()", part)
        page.screenshot(path=str(SCREENSHOTS / f"impact-390{part.replace('#', '-')}.png"))
    page.evaluate("() => localStorage.setItem('admission-playground:theme', 'dark')")
    page.reload()
    expect(page.locator("#changes-table tbody tr").first).to_be_visible()
    no_violations(page)


def test_compare_with_another_project_over_a_dump_and_bad_input(axe_page, api, server_url, tmp_path):
    page = axe_page
    _, strict = api("POST", "/api/v1/projects", {**project_body(), "title": "Strict"})
    _, lenient = api("POST", "/api/v1/projects", {**project_body(), "title": "Lenient"})
    api(
        "PUT",
        f"/api/v1/projects/{strict['id']}/documents/{strict['documents'][0]['id']}",
        {"text": limit_policy(3)},
        token=strict["editToken"],
    )
    page.goto(f"{server_url}/p/{lenient['id']}/impact")
    page.fill("#impact-text", "apiVersion: v1\nkind: Pod\nmetadata: [broken\n")
    page.click("#btn-compare")  # no version kept: both sides are the project now
    expect(page.locator("#form-error")).to_contain_text("same policy set")

    page.click("#btn-other")
    expect(page.locator("#head-project")).to_be_focused()
    page.fill("#head-project", f"{server_url}/p/{strict['id']}")
    page.click("#btn-compare")
    expect(page.locator("#form-error")).to_contain_text("pasted text")
    dump = tmp_path / "cluster.yaml"
    dump.write_text(replicas_dump(REPLICAS))
    page.fill("#impact-text", "")
    page.set_input_files("#impact-files", str(dump))
    page.click("#btn-compare")
    expect(page.locator("#progress-text")).to_have_attribute("data-status", "done", timeout=90_000)
    expect(page.locator("#compared")).to_contain_text("Lenient (now) → Strict (now), over a dump")
    expect(page.locator("[data-testid=total-newlyDenied] strong")).to_have_text(str(NEWLY))
    expect(page.locator("#time-figure")).to_be_hidden()  # a dump has no times
    page.select_option("#changes-category", "newlyAllowed")
    expect(page.locator("#changes-count")).to_have_text("No changed request matches.")
