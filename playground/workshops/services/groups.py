"""Channel-layer group names of a room (the same in every server process), and telling the room of a change."""

from __future__ import annotations

from playground.services import broadcast


def room_group(code: str) -> str:
    """Everyone in the room: students and teacher."""
    return f"workshop.{code}.all"


def teacher_group(code: str) -> str:
    return f"workshop.{code}.teacher"


def watch_group(code: str, participant_id: int) -> str:
    """Teachers watching one student's editors."""
    return f"workshop.{code}.watch.{participant_id}"


def tell_room(code: str, message: dict) -> None:
    """Everyone in the room hears of a change made outside a socket (REST), once it is committed."""
    group = room_group(code)
    broadcast.after_commit(group, {"type": "workshop.event", "message": message}, f"notify {group}")
