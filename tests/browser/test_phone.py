"""The editor on a 390 px phone: one toolbar row and a menu, the YAML within the first 250 px; every header
control (Presenter included) reachable from the phone's menu; the landing tour never scrolls by itself."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PageWatch, SCREENSHOTS
from tests.browser.helpers import project_body

pytestmark = pytest.mark.browser


@pytest.fixture
def phone(browser):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.watch = PageWatch(page)
    yield page
    errors = list(page.watch.errors)
    context.close()
    assert errors == [], errors


def test_the_first_line_of_yaml_is_within_250_px_and_the_rest_is_one_tap_away(phone, api, server_url):
    status, created = api("POST", "/api/v1/projects", project_body(title="Require a team label on every pod (fork)"))
    assert status == 201, created
    phone.goto(server_url + "/")
    phone.evaluate(
        "([id, token]) => localStorage.setItem('admission-playground:token:' + id, token)",
        [created["id"], created["editToken"]],
    )
    phone.goto(f"{server_url}/p/{created['id']}")
    phone.wait_for_selector(".cm-content[contenteditable=true]")
    line = phone.locator(".panel[data-target=document] .cm-line").first
    first_line = line.bounding_box()
    row = line.evaluate("el => parseFloat(getComputedStyle(el).lineHeight)")  # a long line wraps: its first row
    assert first_line["y"] + row <= 250, (first_line, row)
    # One row: the title, Share (the page's primary action) and More.
    row = [phone.locator(s).bounding_box() for s in ("#project-title", "#btn-share", "#toolbar-more")]
    assert max(b["y"] for b in row) - min(b["y"] for b in row) < 8, row
    assert row[0]["x"] < row[1]["x"] < row[2]["x"] and row[2]["x"] + row[2]["width"] <= 390, row
    for hidden in ("#btn-evaluate", "#btn-fork", "#kubernetes-version", "#zoom-toggle", ".site-nav"):
        expect(phone.locator(hidden)).to_be_hidden()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(SCREENSHOTS / "phone-editor-390.png"))
    phone.get_by_role("button", name="More").click()
    expect(phone.get_by_role("button", name="More")).to_have_attribute("aria-expanded", "true")
    for shown in ("#btn-share", "#btn-fork", "#btn-evaluate", "#kubernetes-version", "#formats-menu"):
        expect(phone.locator(shown)).to_be_visible()
    phone.get_by_role("button", name="Menu").click()
    for name in ("Presenter", "Dark mode"):
        control = phone.get_by_role("button", name=name)
        expect(control).to_be_visible()
        box = control.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (name, box)
    expect(phone.get_by_role("link", name="Examples")).to_be_visible()
    phone.screenshot(path=str(SCREENSHOTS / "phone-editor-390-menus.png"))
    phone.get_by_role("button", name="Presenter").click()
    expect(phone.locator("html")).to_have_attribute("data-zoom", "presenter")
    assert phone.evaluate("document.documentElement.scrollWidth <= innerWidth")


@pytest.mark.parametrize("width", [390, 1440])
def test_the_landing_tour_never_scrolls_the_page_by_itself(browser, server_url, width):
    context = browser.new_context(viewport={"width": width, "height": 844})
    try:
        page = context.new_page()
        page.goto(server_url + "/")
        expect(page.get_by_role("dialog")).to_contain_text("1. The policy")
        page.wait_for_timeout(500)  # the tour and the editors are in; nothing moved the page
        assert page.evaluate("scrollY") == 0
        headline = page.locator("h1").first.bounding_box()
        tour = page.get_by_role("dialog").bounding_box()
        assert headline["y"] + headline["height"] <= tour["y"] or width > 700, (headline, tour)  # not covered
    finally:
        context.close()
