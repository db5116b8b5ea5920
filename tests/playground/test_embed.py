"""/embed/<snapshot>, /oembed and the snapshot page's link-preview meta (the views and embed_service)."""

from __future__ import annotations

import pytest

from playground.services import project_service, snapshot_service
from tests.playground.playground_fixtures import project_body

pytestmark = pytest.mark.django_db


def make_snapshot(title: str = "Replica limit") -> str:
    body = project_body()
    state, _ = project_service.create_project(title, "", body["documents"], body["requests"])
    return snapshot_service.create_snapshot(project_id=state["id"])["url"].rsplit("/", 1)[1]


def test_the_embed_may_be_framed_anywhere_and_nothing_else_may(client):
    snapshot_id = make_snapshot()
    embed = client.get(f"/embed/{snapshot_id}")
    assert embed.status_code == 200 and "X-Frame-Options" not in embed
    policy = embed["Content-Security-Policy"]
    assert policy.endswith("frame-ancestors *") and "frame-ancestors 'none'" not in policy
    assert "script-src 'self'" in policy
    assert b"Open in Admission Playground" in embed.content
    page = client.get(f"/s/{snapshot_id}")
    assert page["X-Frame-Options"] == "DENY" and "frame-ancestors 'none'" in page["Content-Security-Policy"]
    assert client.get("/embed/aaaaaaaaaa").status_code == 404


def test_oembed_answers_rich_for_a_snapshot_of_this_site_only(client):
    snapshot_id = make_snapshot('Quotes " and <tags>')
    answer = client.get("/oembed", {"url": f"http://testserver/s/{snapshot_id}", "format": "json"})
    assert answer.status_code == 200
    data = answer.json()
    assert data["type"] == "rich" and data["version"] == "1.0" and data["provider_name"] == "Admission Playground"
    assert data["html"].startswith(
        f'<iframe src="http://testserver/embed/{snapshot_id}" title="Quotes &quot; and &lt;tags&gt;"'
    )
    assert (data["width"], data["height"]) == (800, 480)
    small = client.get(
        "/oembed", {"url": f"http://testserver/embed/{snapshot_id}", "maxwidth": "400", "maxheight": "x"}
    )
    assert (small.json()["width"], small.json()["height"]) == (400, 480)
    assert client.get("/oembed", {"url": f"http://testserver/s/{snapshot_id}", "format": "xml"}).status_code == 501
    for url in (
        f"https://elsewhere.example/s/{snapshot_id}",
        "http://testserver/examples/first-policy",
        "javascript:1",
        "",
    ):
        assert client.get("/oembed", {"url": url}).status_code == 404, url


def test_a_snapshot_page_carries_its_decision_for_link_previews(client):
    snapshot_id = make_snapshot()
    html = client.get(f"/s/{snapshot_id}").content.decode()
    assert '<meta property="og:title" content="Replica limit">' in html
    assert 'name="twitter:card" content="summary"' in html
    assert ": denied" in html.split('property="og:description"')[1].split(">")[0]
    assert 'type="application/json+oembed"' in html
