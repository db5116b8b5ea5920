"""Content and editor actions shared by the browser tests."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from playwright.sync_api import expect

from tests.playground.playground_fixtures import binding, deployment, policy


def project_body(
    policy_name: str = "max-replicas",
    message: str = '"replicas must be at most 5"',
    replicas: int = 7,
    request_name: str = "seven replicas",
    title: str = "Browser test",
) -> dict:
    return {
        "title": title,
        "documents": [
            {"name": "policy.yaml", "text": policy(policy_name, message)},
            {"name": "binding.yaml", "text": binding(policy_name)},
        ],
        "requests": [{"name": request_name, "text": deployment(replicas), "expected": {"outcome": "denied"}}],
    }


def editor(page, target: str, index: int = 0):
    """The CodeMirror content element of the index-th document or request panel."""
    return page.locator(f".panel[data-target={target}] .cm-content").nth(index)


def card(page, index: int = 0):
    return page.locator(".result-card").nth(index)


def replace_text(page, target: str, index: int, text: str) -> None:
    """Select all in an editor and insert `text` as one input (no auto-indent), as a paste would."""
    content = editor(page, target, index)
    content.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(text)


def api_client(server_url: str):
    """api(method, path, body=None, token=None) -> (status, json), usable outside a test function."""

    def call(method: str, path: str, body=None, token: str | None = None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            server_url + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        if token:
            request.add_header("X-Edit-Token", token)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    return call


def open_with_token(browser, server_url, created, name):
    """A browser context of its own, holding the project's edit token and the display name `name`, on the
    project's editor page once connected and saved: (context, page)."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(server_url + "/")
    page.evaluate(
        "([id, token, name]) => { localStorage.setItem('admission-playground:token:' + id, token);"
        " localStorage.setItem('admission-playground:name', name); }",
        [created["id"], created["editToken"], name],
    )
    page.goto(f"{server_url}/p/{created['id']}")
    page.wait_for_selector("#conn-state[data-state=open]")
    expect(page.locator("#save-state")).to_have_attribute("data-state", "saved")
    return context, page
