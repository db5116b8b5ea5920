"""A project's document or sample request as the API, the WebSocket and the co-editing authority send it."""

from __future__ import annotations


def item_dict(item, with_expected: bool) -> dict:
    data = {
        "id": item.id,
        "name": item.name,
        "text": item.text,
        "version": item.version,
        "position": item.position,
        "collabVersion": item.collab_version,
    }
    if with_expected:
        data["expected"] = item.expected
    if item.origin:  # loaded from a cluster (services/cluster_service.py)
        data["origin"] = item.origin
    return data
