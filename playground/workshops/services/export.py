"""The room's results as CSV: one row per participant and exercise."""

from __future__ import annotations

import csv
import io

from playground.workshops.models import Progress
from playground.workshops.services import rooms

HEADER = [
    "participant",
    "exercise",
    "title",
    "passed",
    "total",
    "complete",
    "submitted_at",
    "completed_at",
    "last_activity",
]


def _cell(value) -> str:
    """Text that a spreadsheet will not run as a formula (CSV injection)."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def results_csv(code: str, token: str | None) -> str:
    room = rooms.teacher_room(code, token, open_only=False)
    exercises = rooms.exercises(room)
    progress = {(p.participant_id, p.exercise_id): p for p in Progress.objects.filter(participant__room=room)}
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(HEADER)
    for participant in room.participants.all():
        for exercise in exercises:
            row = progress.get((participant.id, exercise.id))
            writer.writerow(
                [
                    _cell(participant.display_name),
                    exercise.position + 1,
                    _cell(exercise.title),
                    row.passed if row else 0,
                    row.total if row else len(exercise.checks),
                    "yes" if row and row.total and row.passed == row.total else "no",
                    row.submitted_at.isoformat() if row and row.submitted_at else "",
                    row.completed_at.isoformat() if row and row.completed_at else "",
                    row.last_activity.isoformat() if row and row.last_activity else "",
                ]
            )
    return out.getvalue()
