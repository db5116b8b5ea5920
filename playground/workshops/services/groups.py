"""Channel-layer group names of a room (the same in every server process)."""


def room_group(code: str) -> str:
    """Everyone in the room: students and teacher."""
    return f"workshop.{code}.all"


def teacher_group(code: str) -> str:
    return f"workshop.{code}.teacher"


def watch_group(code: str, participant_id: int) -> str:
    """Teachers watching one student's editors."""
    return f"workshop.{code}.watch.{participant_id}"
