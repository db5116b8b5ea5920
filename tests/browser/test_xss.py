"""Nothing a user types is ever run as HTML: payloads in a policy name, a message and a request name."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import card, project_body

pytestmark = pytest.mark.browser

NAME = 'x"><img src=x id=xss-name onerror="window.__xss=1;alert(1)">'
MESSAGE = '<script id="xss-script">window.__xss=2;alert(2)</script><img src=x id=xss-msg onerror="alert(3)">'


def test_payloads_in_names_and_messages_are_shown_as_text_and_never_run(page, api, open_project, screenshot):
    body = project_body(
        policy_name="evil", message="'" + MESSAGE.replace("'", "''") + "'", request_name=NAME, title=NAME
    )
    body["documents"][0]["name"] = NAME
    status, created = api("POST", "/api/v1/projects", body)
    assert status == 201, created
    open_project(created)
    first = card(page)
    expect(first.locator("[data-testid=decision]")).to_have_text("Denied")
    expect(first.locator("[data-testid=kubectl]")).to_contain_text(MESSAGE)
    expect(first.locator("h4")).to_have_text(NAME)
    expect(page.locator("#project-title")).to_have_value(NAME)
    first.locator("[data-testid=review] summary").click()
    expect(first.locator("[data-testid=review] pre")).to_contain_text("xss-script")
    page.wait_for_timeout(500)  # give an injected onerror handler time to fire, were there one
    assert page.watch.dialogs == []
    assert page.evaluate("() => window.__xss") is None
    assert page.locator("#xss-name, #xss-msg, #xss-script, img[src=x]").count() == 0
    screenshot("xss")
