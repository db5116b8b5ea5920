"""Progress from verdicts: evaluate a participant's fork against every check of the exercise, record it.

Three steps so the engine never runs on the event loop nor holds a database connection:
`context` (database) → `evaluate` (engine.py, in a worker process) → `record` (database).
The fork's own sample requests give the student's live results; the exercise's checks (hidden ones too,
with the workshop expectations: mutated fields, Kyverno rule results) give the progress.
"""

from __future__ import annotations

from dataclasses import replace

from django.db import transaction
from django.utils import timezone

from playground.services import document_service, project_service
from playground.services.document_service import Target
from playground.core.errors import not_found
from playground.workshops.models import ExerciseFork, Participant, Progress, Room
from playground.workshops.services import catalog, rooms
from playground.evaluation.workshop.diagnosis import common_errors
from playground.evaluation.workshop.engine import Context
from playground.workshops.services.participants import fork_for, participant_summary, progress_view


def context(participant_id: int, submit: bool = False) -> Context:
    """What to evaluate now: the current exercise's checks and the participant's fork as saved."""
    participant = Participant.objects.select_related("room__exercise_set").get(pk=participant_id)
    exercise = rooms.current_exercise(participant.room)
    fork = fork_for(participant, exercise)
    progress = Progress.objects.filter(participant=participant, exercise=exercise).first()
    submitted = submit or (progress is not None and progress.submitted_at is not None)
    return Context(
        participant.room_id,
        participant.id,
        participant.display_name,
        exercise.id,
        exercise.checks,
        project_service.project_state(fork.project_id),
        submitted,
    )


def save_edit(
    ctx: Context, *, edit_token: str, target: Target, item_id: int, text: str | None, name: str | None
) -> tuple[dict, Context]:
    """Save a student's edit to their fork and return it with the context to evaluate (one database trip).

    `ctx` is the consumer's context of its current exercise; only the fork's state is read again.
    """
    saved = document_service.update_item(
        project_id=ctx.state["id"], token=edit_token, target=target, item_id=item_id, text=text, name=name
    )
    return saved, replace(ctx, state=project_service.project_state(ctx.state["id"]))


def record(ctx: Context, checks: list[dict], version: int, submit: bool = False, diagnosis: dict | None = None) -> dict:
    """Store the progress (newest project version wins); returns {"teacher": view, "student": view}.

    "Progress" for the stuck flag: more checks pass than before, or the documents compile again."""
    now = timezone.now()
    passed = sum(1 for check in checks if check["verdict"] == "pass")
    with transaction.atomic():
        progress, _ = Progress.objects.select_for_update().get_or_create(
            participant_id=ctx.participant_id, exercise_id=ctx.exercise_id
        )
        if progress.started_at is None:
            progress.started_at = progress.progressed_at = now
        if version >= progress.project_version:
            compiles = None if diagnosis is None else diagnosis["compiles"]
            if passed > progress.passed or (compiles and progress.compiles is False):
                progress.progressed_at = now
            if diagnosis is not None:
                progress.compiles, progress.errors = compiles, diagnosis["errors"]
            progress.passed, progress.total, progress.checks = passed, len(checks), checks
            progress.project_version = version
            if passed == len(checks) and checks and progress.completed_at is None:
                progress.completed_at = now
        if submit and progress.submitted_at is None:
            progress.submitted_at = now
        progress.last_activity = now
        progress.save()
        Participant.objects.filter(pk=ctx.participant_id).update(last_activity=now, seen=now)
    stuck_minutes = Room.objects.values_list("stuck_minutes", flat=True).get(pk=ctx.code)
    return {
        "teacher": progress_view(progress, for_teacher=True, stuck_minutes=stuck_minutes, now=now),
        "student": progress_view(progress, for_teacher=False),
    }


def dashboard(code: str) -> dict:
    """The teacher's whole picture: room, exercises (with solutions), every participant's progress."""
    room = rooms.get_room(code)
    exercises = rooms.exercises(room)
    participants = list(room.participants.all())
    by_participant: dict[int, dict] = {p.id: {} for p in participants}
    now = timezone.now()
    current = rooms.current_exercise(room)
    names = {p.id: p.display_name for p in participants}
    current_errors = []
    for progress in Progress.objects.filter(participant__room=room):
        by_participant[progress.participant_id][str(progress.exercise_id)] = progress_view(
            progress, for_teacher=True, stuck_minutes=room.stuck_minutes, now=now
        )
        if progress.exercise_id == current.id:
            current_errors.append((names[progress.participant_id], progress.errors))
    forks = {
        (f.participant_id, f.exercise_id): f.project_id for f in ExerciseFork.objects.filter(participant__room=room)
    }
    return {
        "room": {**rooms.room_public(room), "stuckMinutes": room.stuck_minutes},
        "commonErrors": common_errors(current_errors),
        "exercises": [
            {
                **catalog.teacher_view(e),
                "hintsShown": rooms.hints_shown(room, e),
                "solutionShown": rooms.solution_shown(room, e),
            }
            for e in exercises
        ],
        "participants": [
            {
                **participant_summary(p),
                "progress": by_participant[p.id],
                "forks": {str(e.id): forks.get((p.id, e.id)) for e in exercises},
            }
            for p in participants
        ],
    }


def watch_state(*, code: str, participant_id: int) -> dict:
    """A participant's current fork, for the teacher's read-only view."""
    room = rooms.get_room(code)
    participant = Participant.objects.filter(room=room, pk=participant_id).first()
    if participant is None:
        raise not_found("participant")
    exercise = rooms.current_exercise(room)
    fork = fork_for(participant, exercise)
    last = Progress.objects.filter(participant=participant, exercise=exercise).first()
    return {
        "participant": participant_summary(participant),
        "exercise": exercise.id,
        "project": project_service.project_state(fork.project_id),
        # The last evaluation's first errors (document, line, column, message), so markers show at once.
        "errors": last.errors if last else [],
    }
