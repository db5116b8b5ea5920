"""Joining a room (display name + browser token, no account) and each participant's private forks.

The browser keeps its token; presenting it again (after a reconnect or a server restart) resumes the same
participant, the same forks and the same progress.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from playground.services import project_service
from playground.core import tokens
from playground.core.errors import ServiceError
from playground.workshops.models import ROOM_OPEN, Exercise, ExerciseFork, Participant, Progress, Room
from playground.workshops.services import catalog, rooms
from playground.evaluation.workshop.checks import student_progress
from playground.evaluation.workshop.diagnosis import first_error_line

NAME_MAX = 80
# A socket counter can outlive a crashed server (its sockets never said goodbye): "online" also needs a sign
# of life this recent. Student pages ping every 30 s.
ONLINE_WITHIN = timedelta(seconds=90)


def _clean_name(name: str | None) -> str:
    if not name or not name.strip():
        raise ServiceError("invalid_request", "displayName must be a non-empty string", path="displayName")
    return " ".join(name.split())[:NAME_MAX]


def join(*, code: str, display_name: str | None, token: str | None = None) -> tuple[Participant, str, bool]:
    """(participant, browser token, resumed?): a known token resumes; otherwise a new participant joins."""
    room = rooms.get_room(code)
    if token:
        found = find(room, token)
        if found is not None:
            return found, token, True
    if room.state != ROOM_OPEN:
        raise ServiceError("room_closed", "this room is closed", 409)
    name = _clean_name(display_name)
    token = tokens.new_token()
    with transaction.atomic():  # the room's row lock serialises joins, so two "Ada"s cannot both be "Ada"
        Room.objects.select_for_update().filter(pk=room.pk).first()
        participant = Participant.objects.create(
            room=room, display_name=unique_name(room, name), token_hash=tokens.hash_token(token)
        )
    return participant, token, False


def unique_name(room: Room, name: str) -> str:
    """`name`, or `name (2)`, `name (3)` ...: the dashboard must tell two students apart."""
    taken = {n.casefold() for n in room.participants.values_list("display_name", flat=True)}
    candidate, number = name, 1
    while candidate.casefold() in taken:
        number += 1
        suffix = f" ({number})"
        candidate = name[: NAME_MAX - len(suffix)] + suffix
    return candidate


def find(room: Room, token: str | None) -> Participant | None:
    if not token:
        return None
    return Participant.objects.filter(room=room, token_hash=tokens.hash_token(token)).first()


def get_participant(code: str, token: str | None) -> Participant:
    room = rooms.get_room(code)
    participant = find(room, token)
    if participant is None:
        raise ServiceError("forbidden", "join the room first (unknown participant token)", 403)
    return participant


def fork_for(participant: Participant, exercise: Exercise) -> ExerciseFork:
    """The participant's fork of the exercise, created from the starter on first use."""
    fork = ExerciseFork.objects.filter(participant=participant, exercise=exercise).select_related("project").first()
    if fork is not None:
        return fork
    requests = [
        {
            "name": check.get("title") or check["name"],
            "text": check["text"],
            "expected": catalog.student_expected(check),
        }
        for check in catalog.visible_checks(exercise)
    ]
    state, token = project_service.create_project(
        f"{exercise.title} ({participant.display_name})", "", exercise.starter, requests
    )
    if participant.room.state != ROOM_OPEN:  # a first look after the room closed: readable, not writable
        rooms.freeze_projects([state["id"]])
    try:
        with transaction.atomic():
            return ExerciseFork.objects.create(
                participant=participant, exercise=exercise, project_id=state["id"], edit_token=token
            )
    except IntegrityError:  # a second connection of the same participant forked meanwhile: use that one
        project_service.get_project(state["id"]).delete()
        return ExerciseFork.objects.get(participant=participant, exercise=exercise)


def participant_summary(participant: Participant) -> dict:
    online = (
        participant.connections > 0
        and participant.seen is not None
        and timezone.now() - participant.seen < ONLINE_WITHIN
    )
    return {
        "id": participant.id,
        "name": participant.display_name,
        "online": online,
        "joined": participant.joined.isoformat(),
        "lastActivity": participant.last_activity.isoformat() if participant.last_activity else None,
    }


def progress_view(progress: Progress | None, *, for_teacher: bool, stuck_minutes: int = 5, now=None) -> dict | None:
    if progress is None:
        return None
    submitted = progress.submitted_at is not None
    teacher = _teacher_fields(progress, stuck_minutes, now or timezone.now()) if for_teacher else {}
    # The teacher counts every check; the student those shown (a hidden one once submitted).
    counts = (
        {
            "passed": progress.passed,
            "total": progress.total,
            "complete": progress.total > 0 and progress.passed == progress.total,
            "checks": progress.checks,
        }
        if for_teacher
        else student_progress(progress.checks, submitted)
    )
    return {
        **teacher,
        "exercise": progress.exercise_id,
        "version": progress.project_version,
        **counts,
        "submitted": submitted,
        "completedAt": progress.completed_at.isoformat() if progress.completed_at else None,
        "lastActivity": progress.last_activity.isoformat() if progress.last_activity else None,
    }


def _teacher_fields(progress: Progress, stuck_minutes: int, now) -> dict:
    """Compile state, the first error, time on task and the stuck flag (no progress for `stuck_minutes`)."""
    complete = progress.total > 0 and progress.passed == progress.total
    end = progress.completed_at if complete and progress.completed_at else (progress.last_activity or now)
    on_task = (end - progress.started_at).total_seconds() if progress.started_at else 0
    stuck = (
        not complete
        and progress.progressed_at is not None
        and stuck_minutes > 0
        and (now - progress.progressed_at).total_seconds() >= stuck_minutes * 60
    )
    return {
        "compiles": progress.compiles,
        "errors": progress.errors,
        "firstError": first_error_line(progress.errors),
        "startedAt": progress.started_at.isoformat() if progress.started_at else None,
        "progressedAt": progress.progressed_at.isoformat() if progress.progressed_at else None,
        "secondsOnTask": max(0, round(on_task)),
        "stuck": stuck,
    }


def student_state(participant: Participant) -> dict:
    """Everything a student's page needs on (re)connect: room, exercise, fork, progress, shared material."""
    room = Room.objects.select_related("exercise_set").get(pk=participant.room_id)
    exercise = rooms.current_exercise(room)
    fork = fork_for(participant, exercise)
    progress = Progress.objects.filter(participant=participant, exercise=exercise).first()
    return {
        "room": rooms.room_public(room),
        "participant": participant_summary(participant),
        "exercise": catalog.student_view(
            exercise, rooms.hints_shown(room, exercise), rooms.solution_shown(room, exercise)
        ),
        "fork": {
            "projectId": fork.project_id,
            "editToken": fork.edit_token,
            "project": project_service.project_state(fork.project_id),
        },
        "progress": progress_view(progress, for_teacher=False),
    }


def connected(participant_id: int, delta: int) -> None:
    """Count a socket in (+1) or out (-1); never below zero (a counter from before a crash may be short)."""
    now = timezone.now()
    if delta > 0:
        Participant.objects.filter(pk=participant_id).update(connections=F("connections") + delta, seen=now)
    else:
        Participant.objects.filter(pk=participant_id, connections__gt=0).update(connections=F("connections") + delta)


def seen(participant_id: int) -> None:
    Participant.objects.filter(pk=participant_id).update(seen=timezone.now())
