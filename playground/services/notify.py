"""Tell the project's WebSocket room that the project changed through the REST API."""

from __future__ import annotations

import json
import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from playground.services.project_service import project_state

logger = logging.getLogger(__name__)


def project_changed(project_id: str) -> None:
    """Broadcast the new state; a failing channel layer must not fail the saved write."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        state = project_state(project_id)
        message = {"type": "state", "project": state, "version": state["version"]}
        async_to_sync(layer.group_send)(
            f"project.{project_id}",
            {
                "type": "room.message",
                "kind": "state",
                "version": state["version"],
                "text": json.dumps(message),
                "exclude": None,
            },
        )
    except Exception as exc:
        logger.warning("could not notify project %s viewers: %r", project_id, exc)
