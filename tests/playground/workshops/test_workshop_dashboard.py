"""The teacher's dashboard data: compile state and first error line per student, time on task, the stuck
flag (N minutes without progress, N set by the teacher) and the room's most common errors right now."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from playground.services import document_service
from playground.core.errors import ServiceError
from playground.workshops.models import Progress
from playground.evaluation.workshop import engine
from playground.workshops.services import participants, progress, rooms
from playground.evaluation.workshop.diagnosis import common_errors, error_class
from tests.playground.workshops.workshop_fixtures import STARTER_EXPRESSION, join, open_room

pytestmark = pytest.mark.django_db

BROKEN = "expression: object.spec.replicas <="  # a CEL syntax error


def _type(participant, replace: str, with_: str) -> dict:
    """The student edits their fork (as the socket does) and the evaluation is recorded; the teacher's view."""
    state = participants.student_state(participant)
    doc = state["fork"]["project"]["documents"][0]
    document_service.update_item(
        project_id=state["fork"]["projectId"],
        token=state["fork"]["editToken"],
        target="document",
        item_id=doc["id"],
        text=doc["text"].replace(replace, with_),
    )
    ctx = progress.context(participant.id)
    result = engine.evaluate(ctx)
    return progress.record(ctx, result["checks"], result["version"], diagnosis=result["diagnosis"])["teacher"]


def test_a_compile_error_shows_on_the_dashboard_with_its_line_and_two_identical_mistakes_group():
    room, token = open_room()
    ada, _, _ = join(room["code"], "Ada")
    bob, _, _ = join(room["code"], "Bob")
    cyd, _, _ = join(room["code"], "Cyd")
    seen = _type(ada, STARTER_EXPRESSION, BROKEN)
    assert seen["compiles"] is False
    first = seen["errors"][0]
    assert first["line"] and first["path"] == "spec.validations[0].expression"
    assert (
        seen["firstError"].startswith(f"{first['document']}:{first['line']}:") and "Syntax error" in seen["firstError"]
    )
    _type(bob, STARTER_EXPRESSION, BROKEN)
    fine = _type(cyd, STARTER_EXPRESSION, "expression: object.spec.replicas <= 5")
    assert fine["compiles"] is True and fine["firstError"] == "" and fine["complete"] is True

    board = progress.dashboard(room["code"])
    common = board["commonErrors"]
    assert common[0]["count"] == 2 and sorted(common[0]["students"]) == ["Ada", "Bob"]
    assert common[0]["location"] == "spec.validations[0].expression" and "Syntax error" in common[0]["class"]
    cells = {p["name"]: p["progress"][str(board["exercises"][0]["id"])] for p in board["participants"]}
    assert cells["Ada"]["compiles"] is False and cells["Cyd"]["compiles"] is True
    assert board["room"]["stuckMinutes"] == 5


def test_a_student_without_progress_for_n_minutes_is_stuck_and_the_teacher_sets_n():
    room, token = open_room()
    ada, _, _ = join(room["code"], "Ada")
    _type(ada, STARTER_EXPRESSION, BROKEN)
    exercise_id = str(progress.dashboard(room["code"])["exercises"][0]["id"])
    stuck = lambda: progress.dashboard(room["code"])["participants"][0]["progress"][exercise_id]["stuck"]  # noqa: E731
    assert stuck() is False
    Progress.objects.filter(participant=ada).update(
        progressed_at=timezone.now() - timedelta(minutes=6), started_at=timezone.now() - timedelta(minutes=8)
    )
    assert stuck() is True
    view = progress.dashboard(room["code"])["participants"][0]["progress"][exercise_id]
    assert view["secondsOnTask"] >= 0  # measured from the first evaluation to the last activity
    rooms.set_stuck_minutes(code=room["code"], token=token, minutes=10)
    assert stuck() is False
    again = _type(ada, BROKEN, BROKEN + " ")  # typing without progress does not reset the clock
    rooms.set_stuck_minutes(code=room["code"], token=token, minutes=5)
    assert stuck() is True and again["passed"] == 2
    fixed = _type(ada, BROKEN + " ", "expression: object.spec.replicas <= 5")  # progress resets it
    assert fixed["stuck"] is False and stuck() is False
    with pytest.raises(ServiceError):
        rooms.set_stuck_minutes(code=room["code"], token=token, minutes=-1)
    with pytest.raises(ServiceError):
        rooms.set_stuck_minutes(code=room["code"], token="wrong", minutes=3)


def test_error_classes_drop_positions_and_quoted_values_so_the_same_mistake_groups():
    a = "compilation failed: ERROR: <input>:1:24: Syntax error: mismatched input '<EOF>' expecting {'['"
    b = "compilation failed: ERROR: <input>:1:9: Syntax error: mismatched input 'x' expecting"
    assert error_class(a) == error_class(b) == "compilation failed: Syntax error: mismatched input"
    rows = [
        ("Ada", [{"key": "k1", "class": "c", "document": "d", "location": "l", "message": "m"}] * 2),
        ("Bob", [{"key": "k1", "class": "c", "document": "d", "location": "l", "message": "m"}]),
        ("Cyd", [{"key": "k2", "class": "c2", "document": "d", "location": "l2", "message": "m2"}]),
    ]
    grouped = common_errors(rows)
    assert [(g["key"], g["count"]) for g in grouped] == [("k1", 2), ("k2", 1)]  # a student counts once
