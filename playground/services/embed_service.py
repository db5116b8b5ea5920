"""Embeds of snapshots: the words a link preview shows (Open Graph / Twitter), and the oEmbed answer.

A snapshot is immutable, so its decision is computed once per page build from its own documents; the page and
the embed then evaluate it again in the browser like any other read-only page.
"""

from __future__ import annotations

import re
from html import escape
from urllib.parse import urlsplit

from playground.core.errors import ServiceError
from playground.core.expectations import actual_outcome
from playground.evaluation import service as evaluation_service
from playground.services import snapshot_service

# The iframe's default size; oEmbed's maxwidth/maxheight only make it smaller.
EMBED_WIDTH = 800
EMBED_HEIGHT = 480
_SNAPSHOT_PATH = re.compile(r"^/(?:s|embed)/([A-Za-z0-9_-]{1,64})/?$")
_DESCRIPTION_LIMIT = 300


def decision(snapshot: dict) -> str:
    """Each sample request's outcome, e.g. "seven replicas: denied · three replicas: allowed"."""
    documents = [
        {"id": i, "name": d.get("name"), "text": d.get("text", "")}
        for i, d in enumerate(snapshot.get("documents") or [])
    ]
    requests = [
        {"id": i, "name": r.get("name"), "text": r.get("text", ""), "expected": r.get("expected")}
        for i, r in enumerate(snapshot.get("requests") or [])
    ]
    if not requests:
        return "No sample request"
    evaluation = evaluation_service.evaluate(documents, requests, kubernetes_version=snapshot.get("kubernetesVersion"))
    parts = [f"{entry.get('name') or 'request'}: {actual_outcome(entry['result'])}" for entry in evaluation["requests"]]
    return " · ".join(parts)


def share_meta(snapshot: dict) -> dict:
    """{"title", "description"} for Open Graph and Twitter cards: the title, then the description and decision."""
    title = snapshot.get("title") or "Untitled snapshot"
    summary = decision(snapshot)
    description = " — ".join(part for part in ((snapshot.get("description") or "").strip(), summary) if part)
    if len(description) > _DESCRIPTION_LIMIT:
        description = description[: _DESCRIPTION_LIMIT - 1].rstrip() + "…"
    return {"title": title, "description": description, "decision": summary}


def snapshot_id_of(url: str, host: str) -> str:
    """The snapshot id in a /s/<id> or /embed/<id> address of this site; ServiceError 404 otherwise."""
    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https") or (parts.netloc and parts.netloc != host):
        raise ServiceError("not_found", "oEmbed answers only for this site's snapshot addresses (/s/<id>)", 404)
    match = _SNAPSHOT_PATH.match(parts.path)
    if not match:
        raise ServiceError("not_found", "oEmbed answers only for snapshot addresses (/s/<id>)", 404)
    return match.group(1)


def iframe_html(embed_url: str, title: str, width: int = EMBED_WIDTH, height: int = EMBED_HEIGHT) -> str:
    """The snippet a page pastes: a sandbox that still lets the embed run its script and call the API."""
    return (
        f'<iframe src="{escape(embed_url)}" title="{escape(title)}" width="{width}" height="{height}" '
        'style="border:1px solid #d0d7de;border-radius:6px;max-width:100%" loading="lazy" '
        'sandbox="allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox"></iframe>'
    )


def _bound(value: str | None, default: int) -> int:
    try:
        number = int(value) if value else default
    except ValueError:
        return default
    return max(200, min(default, number))


def oembed(url: str, *, origin: str, host: str, maxwidth: str | None = None, maxheight: str | None = None) -> dict:
    """The oEmbed 1.0 "rich" answer for a snapshot address (https://oembed.com/, section 2.3.4)."""
    snapshot_id = snapshot_id_of(url, host)
    snapshot = snapshot_service.get_snapshot(snapshot_id_=snapshot_id)
    title = snapshot.get("title") or "Untitled snapshot"
    width, height = _bound(maxwidth, EMBED_WIDTH), _bound(maxheight, EMBED_HEIGHT)
    return {
        "version": "1.0",
        "type": "rich",
        "provider_name": "Admission Playground",
        "provider_url": f"{origin}/",
        "title": title,
        "width": width,
        "height": height,
        "html": iframe_html(f"{origin}/embed/{snapshot_id}", title, width, height),
    }
