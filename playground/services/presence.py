"""Viewer counts, shared by every server process through the database (one row per open WebSocket).

Self-healing: each connection renews its row every PLAYGROUND_PRESENCE_HEARTBEAT_SECONDS, and a row not
renewed for three heartbeats (its server crashed or lost the database) no longer counts and is deleted by
the next join.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from playground.models import Presence

MISSED_HEARTBEATS = 3


def _fresh_since():
    return timezone.now() - timedelta(seconds=settings.PLAYGROUND_PRESENCE_HEARTBEAT_SECONDS * MISSED_HEARTBEATS)


def join(project_id: str, channel_name: str) -> int:
    Presence.objects.filter(seen__lt=_fresh_since()).delete()
    Presence.objects.update_or_create(
        channel_name=channel_name, defaults={"project_id": project_id, "seen": timezone.now()}
    )
    return count(project_id)


def heartbeat(project_id: str, channel_name: str) -> int:
    """Renew this connection's row (made again if it was purged meanwhile); the current count."""
    updated = Presence.objects.filter(channel_name=channel_name).update(seen=timezone.now())
    if not updated:
        Presence.objects.update_or_create(
            channel_name=channel_name, defaults={"project_id": project_id, "seen": timezone.now()}
        )
    return count(project_id)


def leave(project_id: str, channel_name: str) -> int:
    Presence.objects.filter(channel_name=channel_name).delete()
    return count(project_id)


def count(project_id: str) -> int:
    return Presence.objects.filter(project_id=project_id, seen__gte=_fresh_since()).count()
