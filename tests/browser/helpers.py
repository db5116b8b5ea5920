"""Content and editor actions shared by the browser tests."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

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
