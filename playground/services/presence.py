"""Viewer counts, shared by every server process through the database (one row per open WebSocket)."""

from __future__ import annotations

from playground.models import Presence


def join(project_id: str, channel_name: str) -> int:
    Presence.objects.update_or_create(channel_name=channel_name, defaults={"project_id": project_id})
    return count(project_id)


def leave(project_id: str, channel_name: str) -> int:
    Presence.objects.filter(channel_name=channel_name).delete()
    return count(project_id)


def count(project_id: str) -> int:
    return Presence.objects.filter(project_id=project_id).count()
