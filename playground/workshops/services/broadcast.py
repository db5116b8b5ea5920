"""Tell a room's sockets about a change made through the REST API (the consumers send their own), once the
saving transaction has committed (`transaction.on_commit`): nobody sees a change that could be rolled back."""

from __future__ import annotations

import logging
from functools import partial

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)


def send(group: str, message: dict) -> None:
    """Send `message` to `group` after the commit (at once outside a transaction)."""
    transaction.on_commit(partial(_send, group, message))


def _send(group: str, message: dict) -> None:
    """Best effort: the change is already saved; a failing layer must not fail the request."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, {"type": "workshop.event", "message": message})
    except Exception as exc:
        logger.warning("could not notify %s: %r", group, exc)
