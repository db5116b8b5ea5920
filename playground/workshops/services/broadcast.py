"""Tell a room's sockets about a change made through the REST API (the consumers send their own)."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)


def send(group: str, message: dict) -> None:
    """Best effort: the change is already saved; a failing layer must not fail the request."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, {"type": "workshop.event", "message": message})
    except Exception as exc:
        logger.warning("could not notify %s: %r", group, exc)
