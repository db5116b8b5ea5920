"""The project room's channel-layer group and event shape, in one place, and how a change made through REST
reaches the room.

The consumer (playground/consumers.py) sends its events with `room_event`; a REST change reaches the room
through `project_changed`, which waits for the saving transaction to commit (`transaction.on_commit`), so no
viewer sees a change that could still be rolled back.
"""

from __future__ import annotations

from functools import partial

from playground.core import json_text
from playground.services import broadcast, live
from playground.services.project_service import project_state


def group_name(project_id: str) -> str:
    return f"project.{project_id}"


def encode(message) -> str:
    return message.text if isinstance(message, live.Encoded) else json_text.dumps(message)


def bundle(texts: list[str]) -> str:
    """Several encoded messages as one `bundle` frame (for a client that asked for them in its hello): each
    frame costs the server its framing and a write, and an evaluation is a handful of messages."""
    return '{"type": "bundle", "messages": [' + ", ".join(texts) + "]}"


def unchanged_forms(batch) -> list:
    """Per message of a batch: [request id, digest, the `unchanged` message] for a result, else None."""
    return [
        list(item.unchanged) if isinstance(item, live.Encoded) and item.unchanged else None for item in batch.messages
    ]


def room_event(message, exclude: str | None = None) -> dict:
    """A group message carrying its JSON already encoded: encoded once, not copied and re-encoded per viewer."""
    if isinstance(message, live.Batch):
        return {
            "type": "room.message",
            "kind": "batch",
            "version": message.version,
            "texts": [encode(item) for item in message.messages],
            "unchanged": unchanged_forms(message),
            "exclude": exclude,
        }
    if isinstance(message, live.Encoded):
        return {
            "type": "room.message",
            "kind": message.kind,
            "version": message.version,
            "text": message.text,
            "exclude": exclude,
        }
    return {
        "type": "room.message",
        "kind": message.get("type"),
        "version": message.get("version"),
        "text": json_text.dumps(message),
        "exclude": exclude,
    }


def project_changed(project_id: str) -> None:
    """Broadcast the project's new state once the current transaction commits (at once outside one)."""
    broadcast.after_commit(
        group_name(project_id), partial(_state_event, project_id), f"notify project {project_id} viewers"
    )


def _state_event(project_id: str) -> dict:
    state = project_state(project_id)
    return room_event({"type": "state", "project": state, "version": state["version"]})
