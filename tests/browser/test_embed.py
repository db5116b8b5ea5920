"""Embeds: a snapshot in an <iframe> on another site's page, read-only and "try it"; the oEmbed answer and the
link-preview meta of snapshot pages; every other page refuses to be framed."""

from __future__ import annotations

import http.server
import json
import re
import threading
import urllib.request
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

EXAMPLE = "first-policy"


def snapshot_of_example(api, slug: str = EXAMPLE) -> dict:
    status, fork = api("POST", f"/api/v1/examples/{slug}/fork")
    assert status == 201, fork
    status, snapshot = api("POST", f"/api/v1/projects/{fork['id']}/snapshots", {}, token=fork["editToken"])
    assert status == 201, snapshot
    return snapshot


def head(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as response:
        return {key.lower(): value for key, value in response.headers.items()}


@pytest.fixture
def host_page():
    """host_page(page, src): a plain page of another site with one iframe, served over HTTP by its own little
    server (a real host page has a network scheme, which `frame-ancestors *` needs; and it is on loopback like
    the playground, so Chromium's local-network checks do not stand in the way)."""
    body = {"html": b""}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(body["html"])

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def show(page, src: str) -> None:
        html = f'<!doctype html><title>Notes</title><h1>Course notes</h1><iframe id="embed" src="{src}" width="1000" height="800"></iframe>'
        body["html"] = html.encode()
        page.goto(f"http://localhost:{server.server_address[1]}/notes")

    yield show
    server.shutdown()
    server.server_close()


def test_a_snapshot_embeds_in_another_page_and_try_it_re_evaluates(page, api, server_url, host_page):
    snapshot = snapshot_of_example(api)
    snapshot_id = snapshot["url"].rsplit("/", 1)[1]
    host_page(page, f"{server_url}/embed/{snapshot_id}")
    frame = page.frame_locator("#embed")
    cards = frame.locator(".result-card")
    expect(cards).to_have_count(2)
    expect(cards.first).to_have_attribute("data-decision", "denied")
    expect(frame.locator(".embed-title")).to_have_text("A first policy: at most 5 replicas (fork)")
    link = frame.get_by_role("link", name="Open in Admission Playground")
    assert link.get_attribute("href") == f"{server_url}/s/{snapshot_id}"
    assert link.get_attribute("target") == "_blank"
    # Read-only until "Try it".
    expect(frame.locator(".cm-content[contenteditable=true]")).to_have_count(0)
    frame.locator("#btn-try").click()
    policy = frame.locator(".panel[data-target=document] .cm-content").first
    expect(policy).to_have_attribute("contenteditable", "true")
    text = policy.inner_text()
    assert "<= 5" in text
    policy.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(text.replace("<= 5", "<= 10"))
    expect(cards.first).to_have_attribute("data-decision", "allowed")  # evaluated again, statelessly
    # Nothing was saved: the snapshot is as it was taken.
    _, stored = api("GET", f"/api/v1/snapshots/{snapshot_id}")
    assert "<= 5" in stored["documents"][0]["text"]
    frame.locator("#btn-try").click()  # "Reset": back to the snapshot
    expect(cards.first).to_have_attribute("data-decision", "denied")


def test_only_embeds_may_be_framed(page, api, server_url, host_page):
    snapshot = snapshot_of_example(api)
    snapshot_id = snapshot["url"].rsplit("/", 1)[1]
    embed = head(f"{server_url}/embed/{snapshot_id}")
    assert "x-frame-options" not in embed
    assert "frame-ancestors *" in embed["content-security-policy"]
    assert "frame-ancestors 'none'" not in embed["content-security-policy"]
    for path in (f"/s/{snapshot_id}", "/", f"/examples/{EXAMPLE}"):
        headers = head(server_url + path)
        assert headers["x-frame-options"] == "DENY", path
        assert "frame-ancestors 'none'" in headers["content-security-policy"], path
    # The browser agrees: the snapshot page itself stays out of the frame.
    host_page(page, f"{server_url}/s/{snapshot_id}")
    page.wait_for_timeout(1000)
    framed = page.frame_locator("#embed")
    expect(framed.locator(".workbench")).to_have_count(0)
    refused = [e for e in page.watch.errors if "frame-ancestors 'none'" in e]
    assert refused, page.watch.errors  # Chromium reports the refusal: expected here, not a page error
    page.watch.errors[:] = [e for e in page.watch.errors if e not in refused]


def test_oembed_and_the_link_preview_meta_of_a_snapshot(page, api, server_url):
    snapshot = snapshot_of_example(api)
    snapshot_id = snapshot["url"].rsplit("/", 1)[1]
    page_url = f"{server_url}/s/{snapshot_id}"
    with urllib.request.urlopen(f"{server_url}/oembed?url={quote(page_url, safe='')}&format=json", timeout=30) as r:
        answer = json.loads(r.read())
    assert answer["type"] == "rich" and answer["version"] == "1.0"
    assert answer["title"] == "A first policy: at most 5 replicas (fork)"
    assert f'src="{server_url}/embed/{snapshot_id}"' in answer["html"] and answer["html"].startswith("<iframe ")
    status, _ = api("GET", f"/oembed?url={quote(server_url + '/examples/first-policy', safe='')}&format=json")
    assert status == 404
    page.goto(page_url)
    meta = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('meta[property^="og:"], meta[name^="twitter:"]')]
             .map(m => [m.getAttribute('property') || m.getAttribute('name'), m.content]))"""
    )
    assert meta["og:title"] == "A first policy: at most 5 replicas (fork)"
    assert meta["og:url"] == page_url
    assert "web with 7 replicas: denied" in meta["og:description"]
    assert "api with 3 replicas: allowed" in meta["twitter:description"]
    discovery = page.locator('link[rel=alternate][type="application/json+oembed"]').get_attribute("href")
    assert discovery.startswith(f"{server_url}/oembed?url=")
    # The Share dialog offers the iframe snippet.
    page.click("#btn-share")
    snippet = page.locator("#embed-snippet")
    expect(snippet).to_be_visible()
    assert f'src="{server_url}/embed/{snapshot_id}"' in snippet.input_value()


def test_every_gallery_example_embeds_and_evaluates(page, api, server_url, host_page):
    status, examples = api("GET", "/api/v1/examples")
    assert status == 200
    slugs = [e["slug"] for e in (examples["examples"] if isinstance(examples, dict) else examples)]
    assert len(slugs) >= 100
    host_page(page, "about:blank")
    frame = page.frame_locator("#embed")
    for slug in slugs:
        snapshot_id = snapshot_of_example(api, slug)["url"].rsplit("/", 1)[1]
        page.evaluate("src => { document.getElementById('embed').src = src; }", f"{server_url}/embed/{snapshot_id}")
        status_line = frame.locator(
            f"html:has(link[rel=canonical][href$='/s/{snapshot_id}']) [data-testid=eval-status]"
        )
        # Evaluated: every test passes ("done") or some expectation fails ("failed"); never an error or a hang.
        expect(status_line, slug).to_have_attribute("data-state", re.compile("^(done|failed)$"), timeout=20_000)
        expect(frame.locator("#documents .panel").first, slug).to_be_visible()
