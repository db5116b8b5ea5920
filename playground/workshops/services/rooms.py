"""Room lifecycle: open a room for an exercise set, advance it, reveal hints and solutions, share, close.

Every change is written to the database first (a restart or another server process sees it), then the
caller broadcasts it. Teacher actions need the teacher token returned once by `create_room`.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.utils import timezone

from playground.models import Project
from playground.core import limits, tokens
from playground.core.errors import ServiceError, not_found
from playground.workshops.models import ROOM_CLOSED, ROOM_OPEN, Exercise, ExerciseFork, Room
from playground.workshops.services import catalog

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no look-alikes (I/1, O/0, L)
CODE_LENGTH = 6
ANNOUNCEMENT_MAX = 2000


def normalise_code(code: str) -> str:
    return (code or "").strip().upper()


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def create_room(*, set_slug: str, title: str = "") -> tuple[dict, str]:
    """Open a room on the set's first exercise; returns (room, teacher token shown once)."""
    exercise_set = catalog.get_set(set_slug)
    token = tokens.new_token()
    for _ in range(10):
        code = _new_code()
        if not Room.objects.filter(pk=code).exists():
            break
    room = Room.objects.create(
        code=code,
        exercise_set=exercise_set,
        title=title[:200] or exercise_set.title,
        teacher_token_hash=tokens.hash_token(token),
        position_started=timezone.now(),
    )
    return room_public(room), token


def get_room(code: str) -> Room:
    room = Room.objects.select_related("exercise_set").filter(pk=normalise_code(code)).first()
    if room is None:
        raise not_found("room")
    return room


def is_owner(room: Room, token: str | None) -> bool:
    """The token returned when the room was opened (the teacher link carries it)."""
    return tokens.token_matches(token, room.teacher_token_hash)


def is_coteacher(room: Room, token: str | None) -> bool:
    return bool(room.coteacher_token_hash) and tokens.token_matches(token, room.coteacher_token_hash)


def is_teacher(room: Room, token: str | None) -> bool:
    """The owner or a co-teacher: both see the dashboard and run the room."""
    return is_owner(room, token) or is_coteacher(room, token)


def teacher_role(room: Room, token: str | None) -> str | None:
    return "owner" if is_owner(room, token) else "coteacher" if is_coteacher(room, token) else None


def coteacher_link(code: str, token: str | None) -> str:
    """A new co-teacher token (the owner's act): it opens the dashboard with every control, but is not the
    owner's token, so asking again replaces it and the link given before stops working."""
    with transaction.atomic():
        room = _locked(code, token, open_only=False)
        if not is_owner(room, token):
            raise ServiceError("forbidden", "only the teacher who opened the room can share co-teacher links", 403)
        secret = tokens.new_token()
        room.coteacher_token_hash = tokens.hash_token(secret)
        room.save(update_fields=["coteacher_token_hash", "updated"])
    return secret


def teacher_room(code: str, token: str | None, *, open_only: bool = True) -> Room:
    room = get_room(code)
    if not is_teacher(room, token):
        raise ServiceError("forbidden", "the teacher token of this room is required", 403)
    if open_only and room.state != ROOM_OPEN:
        raise ServiceError("room_closed", "this room is closed", 409)
    return room


def exercises(room: Room) -> list[Exercise]:
    return list(room.exercise_set.exercises.all())


def current_exercise(room: Room) -> Exercise:
    items = exercises(room)
    return items[min(room.position, len(items) - 1)]


def hints_shown(room: Room, exercise: Exercise) -> int:
    return int(room.revealed_hints.get(str(exercise.id), 0))


def solution_shown(room: Room, exercise: Exercise) -> bool:
    return exercise.id in room.revealed_solutions


def time_box(room: Room, exercise: Exercise | None = None) -> dict | None:
    """The current exercise's time box {minutes, deadline, locks}, or None when the teacher set none."""
    exercise = exercise or current_exercise(room)
    minutes = int(room.time_boxes.get(str(exercise.id), 0))
    if not minutes or room.position_started is None:
        return None
    deadline = room.position_started + timedelta(minutes=minutes)
    return {"minutes": minutes, "deadline": deadline.isoformat(), "locks": room.time_box_locks}


def time_is_up(box: dict | None, now=None) -> bool:
    """Edits are refused only when the teacher chose to lock and the time box is over."""
    if not box or not box["locks"]:
        return False
    return (now or timezone.now()) >= datetime.fromisoformat(box["deadline"])


def time_up() -> ServiceError:
    return ServiceError("time_up", "the time for this exercise is up: the teacher locked the editors", 403)


def refuse_locked_fork(project: Project) -> None:
    """Edit guard (core/edit_guards.py): a student's fork of the room's current exercise is read-only once
    the teacher's locking time box is over, whichever way the edit comes (workshop socket, project REST
    endpoints, the co-editing socket). Asked on every save: most projects are no fork, which one plain
    statement tells once (the ORM's query building cost more than the query); after that it is remembered
    (`_NOT_FORKS`)."""
    if project.pk in _NOT_FORKS:
        return
    if not _is_fork(project.pk):
        if len(_NOT_FORKS) >= NOT_FORKS_KEPT:
            _NOT_FORKS.clear()
        _NOT_FORKS.add(project.pk)
        return
    fork = ExerciseFork.objects.filter(project_id=project.pk).select_related("participant__room").first()
    if fork is None:
        return
    room = fork.participant.room
    exercise = current_exercise(room)
    if fork.exercise_id == exercise.id and time_is_up(time_box(room, exercise)):
        raise time_up()


# Projects an authorised edit found to be no fork. That never changes: a fork's row is written before its edit
# token leaves `participants.fork_for`, and guards run only once the token is checked (core/access.py), so no
# edit can find a fork before its row exists.
_NOT_FORKS: set[str] = set()
NOT_FORKS_KEPT = 100_000


def _is_fork(project_id: str) -> bool:
    table = connection.ops.quote_name(ExerciseFork._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT 1 FROM {table} WHERE project_id = %s LIMIT 1", [project_id])
        return cursor.fetchone() is not None


def room_public(room: Room) -> dict:
    """What anyone with the code may know."""
    return {
        "code": room.code,
        "title": room.title,
        "set": room.exercise_set.slug,
        "setTitle": room.exercise_set.title,
        "state": room.state,
        "position": room.position,
        "exerciseCount": room.exercise_set.exercises.count(),
        "announcement": room.announcement,
        "presenting": room.presenting,
        "timeBox": time_box(room),
        "joinUrl": f"/w/{room.code}",
        "dashboardUrl": f"/w/{room.code}/teacher",
        "created": room.created.isoformat(),
    }


def _locked(code: str, token: str | None, *, open_only: bool = True) -> Room:
    teacher_room(code, token, open_only=open_only)
    return Room.objects.select_for_update().select_related("exercise_set").get(pk=normalise_code(code))


def advance(*, code: str, token: str | None, position: int | None = None) -> dict:
    """Move the room to `position` (default: the next exercise); students fork it when they get there."""
    with transaction.atomic():
        room = _locked(code, token)
        count = room.exercise_set.exercises.count()
        target = room.position + 1 if position is None else position
        if position is None and target >= count:
            raise ServiceError("last_exercise", "this is the last exercise: finish the workshop to close the room", 409)
        if not 0 <= target < count:
            raise ServiceError("invalid_request", f"position must be an exercise index from 0 to {count - 1}")
        if target != room.position:
            room.position, room.position_started = target, timezone.now()
        room.save(update_fields=["position", "position_started", "updated"])
    return room_public(room)


def reveal_hint(*, code: str, token: str | None) -> dict:
    """Show the next hint of the current exercise: {exercise, index, html}."""
    with transaction.atomic():
        room = _locked(code, token)
        exercise = current_exercise(room)
        shown = hints_shown(room, exercise)
        if shown >= len(exercise.hints):
            raise ServiceError("no_more_hints", "every hint of this exercise is already shown", 409)
        room.revealed_hints = {**room.revealed_hints, str(exercise.id): shown + 1}
        room.save(update_fields=["revealed_hints", "updated"])
    return {"exercise": exercise.id, **catalog.student_view(exercise, shown + 1)["hints"][shown]}


def reveal_solution(*, code: str, token: str | None) -> dict:
    with transaction.atomic():
        room = _locked(code, token)
        exercise = current_exercise(room)
        if exercise.id not in room.revealed_solutions:
            room.revealed_solutions = [*room.revealed_solutions, exercise.id]
            room.save(update_fields=["revealed_solutions", "updated"])
    return {"exercise": exercise.id, "documents": exercise.solution}


def announce(*, code: str, token: str | None, text: str) -> dict:
    if len(text) > ANNOUNCEMENT_MAX:
        raise ServiceError("invalid_request", f"text must be a string of at most {ANNOUNCEMENT_MAX} characters")
    with transaction.atomic():
        room = _locked(code, token)
        room.announcement = text
        room.save(update_fields=["announcement", "updated"])
    return {"text": text, "at": timezone.now().isoformat()}


def present(*, code: str, token: str | None, documents: list | None, title: str | None = None) -> dict | None:
    """Presenter mode: share the teacher's editor (documents) with every student; None stops it."""
    if documents is not None:
        if not all(isinstance(d, dict) and isinstance(d.get("text"), str) for d in documents):
            raise ServiceError("invalid_request", "documents must be a list of {name, text} or null")
        limits.check_total(limits.text_size(d["text"]) for d in documents)
        documents = [
            {"name": str(d.get("name") or f"document-{i + 1}")[:200], "text": d["text"]}
            for i, d in enumerate(documents)
        ]
    presenting = None if documents is None else {"title": str(title or "")[:200], "documents": documents}
    with transaction.atomic():
        room = _locked(code, token)
        room.presenting = presenting
        room.save(update_fields=["presenting", "updated"])
    return presenting


def close(*, code: str, token: str | None) -> dict:
    """Close the room: students keep reading their work, but every fork stops taking writes, through any
    door (the workshop socket, the project REST API, the co-editing socket), because its edit token is
    revoked here rather than checked in each of them."""
    with transaction.atomic():
        room = _locked(code, token)
        room.state = ROOM_CLOSED
        room.closed_at = timezone.now()
        room.presenting = None
        room.save(update_fields=["state", "closed_at", "presenting", "updated"])
        freeze_projects(ExerciseFork.objects.filter(participant__room=room).values("project_id"))
    return room_public(room)


def freeze_projects(project_ids) -> None:
    """Make projects read-only for everyone: an empty edit-token hash matches no token."""
    Project.objects.filter(pk__in=project_ids).update(edit_token_hash="")


STUCK_MINUTES_MAX = 180


def set_stuck_minutes(*, code: str, token: str | None, minutes: int | None) -> int:
    """How long without progress flags a student as stuck on the dashboard (0 turns the flag off)."""
    if minutes is None or not 0 <= minutes <= STUCK_MINUTES_MAX:
        raise ServiceError("invalid_request", f"minutes must be a whole number from 0 to {STUCK_MINUTES_MAX}")
    with transaction.atomic():
        room = _locked(code, token)
        room.stuck_minutes = minutes
        room.save(update_fields=["stuck_minutes", "updated"])
    return minutes


TIME_BOX_MAX = 240


def set_time_box(*, code: str, token: str | None, minutes: int, locks: bool = False) -> dict | None:
    """The current exercise's time box in minutes (0 removes it), counted from when the room reached the
    exercise; `locks`: refuse edits once it is over (otherwise it only informs: countdown, "over time")."""
    if not 0 <= minutes <= TIME_BOX_MAX:
        raise ServiceError("invalid_request", f"minutes must be a whole number from 0 to {TIME_BOX_MAX}")
    with transaction.atomic():
        room = _locked(code, token)
        exercise = current_exercise(room)
        boxes = {k: v for k, v in room.time_boxes.items() if k != str(exercise.id)}
        room.time_boxes = {**boxes, **({str(exercise.id): minutes} if minutes else {})}
        room.time_box_locks = locks
        if room.position_started is None:
            room.position_started = timezone.now()
        room.save(update_fields=["time_boxes", "time_box_locks", "position_started", "updated"])
    return time_box(room, exercise)
