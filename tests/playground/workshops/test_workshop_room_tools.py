"""A teacher's room tools: time boxes (countdown for everyone, locking only when the teacher chooses),
co-teacher links, watching a student's editor with its error markers, the student's full playground
results, and the shipped sets loaded from the export format, validated like an import."""

from __future__ import annotations

import shutil
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from rest_framework.test import APIClient

from playground.core.errors import ServiceError
from playground.workshops.models import ExerciseSet, Room
from playground.workshops.services import authoring, catalog, rooms
from tests.playground.workshops.workshop_fixtures import (
    STARTER_EXPRESSION,
    async_join,
    async_open_room,
    open_room,
    policy_document,
    receive_until,
    student_socket,
    teacher_socket,
)

API = "/api/v1/workshops"
BROKEN = "expression: object.spec.replicas <="


# -- time box ---------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_time_box_counts_from_the_exercise_and_is_public():
    room, token = open_room()
    assert room["timeBox"] is None
    before = timezone.now()
    box = rooms.set_time_box(code=room["code"], token=token, minutes=10)
    deadline = timezone.datetime.fromisoformat(box["deadline"])
    assert box["minutes"] == 10 and box["locks"] is False
    assert before + timedelta(minutes=9) < deadline <= timezone.now() + timedelta(minutes=10)
    assert rooms.room_public(rooms.get_room(room["code"]))["timeBox"] == box
    # Per exercise: the next exercise has none until the teacher sets one; going back finds it again.
    rooms.advance(code=room["code"], token=token)
    assert rooms.room_public(rooms.get_room(room["code"]))["timeBox"] is None
    rooms.advance(code=room["code"], token=token, position=0)
    assert rooms.room_public(rooms.get_room(room["code"]))["timeBox"]["minutes"] == 10
    assert rooms.set_time_box(code=room["code"], token=token, minutes=0) is None  # 0 removes it
    for bad in (-1, 241):
        with pytest.raises(ServiceError, match="minutes must be a whole number from 0 to 240"):
            rooms.set_time_box(code=room["code"], token=token, minutes=bad)
    for body, wanted in [
        ({"minutes": "5"}, "minutes: must be an integer, not string"),
        ({"minutes": True}, "minutes: must be an integer, not boolean"),
        ({"minutes": 2.5}, "minutes: must be an integer, not number"),
        ({}, "minutes: this field is required"),
        ({"minutes": 5, "locks": "yes"}, "locks: must be true or false, not string"),
    ]:  # types are the edge's (the body serializer, shared by the teacher socket's timeBox message)
        answer = APIClient().post(
            f"{API}/rooms/{room['code']}/time-box", body, format="json", HTTP_X_TEACHER_TOKEN=token
        )
        assert (answer.status_code, answer.json()["error"]["message"]) == (400, wanted)
    with pytest.raises(ServiceError) as denied:
        rooms.set_time_box(code=room["code"], token="not the token", minutes=5)
    assert denied.value.status == 403


def test_time_is_up_only_when_the_teacher_locks():
    past = (timezone.now() - timedelta(seconds=1)).isoformat()
    future = (timezone.now() + timedelta(minutes=1)).isoformat()
    assert rooms.time_is_up({"minutes": 1, "deadline": past, "locks": True})
    assert not rooms.time_is_up({"minutes": 1, "deadline": past, "locks": False})
    assert not rooms.time_is_up({"minutes": 1, "deadline": future, "locks": True})
    assert not rooms.time_is_up(None)


@pytest.mark.django_db
def test_the_time_box_rest_action_answers_what_it_broadcasts():
    room, token = open_room()
    client = APIClient()
    answer = client.post(
        f"{API}/rooms/{room['code']}/time-box", {"minutes": 3, "locks": True}, format="json", HTTP_X_TEACHER_TOKEN=token
    )
    assert answer.status_code == 200, answer.json()
    assert answer.json()["type"] == "timeBox" and answer.json()["timeBox"]["locks"] is True
    bad = client.post(
        f"{API}/rooms/{room['code']}/time-box", {"minutes": "3"}, format="json", HTTP_X_TEACHER_TOKEN=token
    )
    assert bad.status_code == 400 and "minutes" in bad.json()["error"]["message"]


@pytest.mark.django_db(transaction=True)
async def test_students_get_the_countdown_and_a_locked_time_box_refuses_edits():
    from channels.db import database_sync_to_async

    room, teacher_token = await async_open_room()
    ada, ada_token, _ = await async_join(room["code"], "Ada")
    teacher, _ = await teacher_socket(room["code"], teacher_token)
    student, welcome = await student_socket(room["code"], ada_token)
    assert welcome["room"]["timeBox"] is None
    await teacher.send_json_to({"type": "timeBox", "minutes": 5, "locks": False})
    told = await receive_until(student, "timeBox")
    assert told["timeBox"]["minutes"] == 5 and told["timeBox"]["deadline"]
    dashboard = await receive_until(teacher, "dashboard")
    assert dashboard["room"]["timeBox"]["minutes"] == 5
    document = policy_document(welcome)

    # Not locked: the time running out changes nothing for the student.
    await database_sync_to_async(Room.objects.filter(pk=room["code"]).update)(
        position_started=timezone.now() - timedelta(minutes=6)
    )
    await teacher.send_json_to({"type": "timeBox", "minutes": 5, "locks": False})
    await receive_until(student, "timeBox")
    await student.send_json_to(
        {"type": "edit", "target": "document", "id": document["id"], "text": "a: 1", "clientSeq": 1}
    )
    assert (await receive_until(student, "ack"))["clientSeq"] == 1

    # Locked by the teacher: edits are refused with a clear error.
    await teacher.send_json_to({"type": "timeBox", "minutes": 5, "locks": True})
    await receive_until(student, "timeBox", lambda m: m["timeBox"]["locks"])
    await student.send_json_to(
        {"type": "edit", "target": "document", "id": document["id"], "text": "a: 2", "clientSeq": 2}
    )
    refused = await receive_until(student, "error")
    assert refused["error"]["code"] == "time_up" and refused["clientSeq"] == 2
    await student.disconnect()
    await teacher.disconnect()


# -- co-teachers ----------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_coteacher_link_runs_the_room_and_a_new_one_replaces_it():
    room, token = open_room()
    client = APIClient()
    code = room["code"]
    made = client.post(f"{API}/rooms/{code}/coteachers", HTTP_X_TEACHER_TOKEN=token)
    assert made.status_code == 201 and made.json()["dashboardUrl"] == f"/w/{code}/teacher"
    coteacher = made.json()["token"]
    assert coteacher != token
    assert client.get(f"{API}/rooms/{code}/dashboard", HTTP_X_TEACHER_TOKEN=coteacher).status_code == 200
    moved = client.post(f"{API}/rooms/{code}/advance", {}, format="json", HTTP_X_TEACHER_TOKEN=coteacher)
    assert moved.status_code == 200 and moved.json()["room"]["position"] == 1
    # A co-teacher cannot hand out links; the owner's new link revokes the old one.
    assert client.post(f"{API}/rooms/{code}/coteachers", HTTP_X_TEACHER_TOKEN=coteacher).status_code == 403
    client.post(f"{API}/rooms/{code}/coteachers", HTTP_X_TEACHER_TOKEN=token)
    assert client.get(f"{API}/rooms/{code}/dashboard", HTTP_X_TEACHER_TOKEN=coteacher).status_code == 403
    assert client.post(f"{API}/rooms/{code}/coteachers", HTTP_X_TEACHER_TOKEN="nope").status_code == 403
    assert rooms.is_owner(rooms.get_room(code), token)


@pytest.mark.django_db(transaction=True)
async def test_the_dashboard_says_whether_a_socket_is_the_owner_or_a_coteacher():
    from channels.db import database_sync_to_async

    room, token = await async_open_room()
    second = await database_sync_to_async(rooms.coteacher_link)(room["code"], token)
    owner, first = await teacher_socket(room["code"], token)
    helper, other = await teacher_socket(room["code"], second)
    assert first["role"] == "owner" and other["role"] == "coteacher"
    await helper.send_json_to({"type": "announce", "text": "from the co-teacher"})
    assert (await receive_until(owner, "announcement"))["text"] == "from the co-teacher"
    await owner.disconnect()
    await helper.disconnect()


# -- watching and the student's full results --------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_watching_a_student_brings_the_text_and_the_error_markers_live():
    room, teacher_token = await async_open_room()
    ada, ada_token, _ = await async_join(room["code"], "Ada")
    student, welcome = await student_socket(room["code"], ada_token)
    await receive_until(student, "evaluation")
    teacher, _ = await teacher_socket(room["code"], teacher_token)
    await teacher.send_json_to({"type": "watch", "participant": ada.id})
    watching = await receive_until(teacher, "watching")
    assert watching["project"]["documents"][0]["text"] == policy_document(welcome)["text"]
    assert watching["errors"] == []  # the starter compiles

    document = policy_document(welcome)
    broken = document["text"].replace(STARTER_EXPRESSION, BROKEN)
    await student.send_json_to(
        {"type": "edit", "target": "document", "id": document["id"], "text": broken, "clientSeq": 1}
    )
    edited = await receive_until(teacher, "studentEdited")
    assert edited["text"] == broken and edited["id"] == document["id"]
    evaluated = await receive_until(teacher, "studentEvaluated", lambda m: m["version"] == edited["version"])
    errors = next(d for d in evaluated["documents"] if d["id"] == document["id"])["errors"]
    line = next(i for i, text in enumerate(broken.splitlines(), 1) if BROKEN in text)
    assert any("Syntax error" in e["message"] and e["line"] == line for e in errors), errors
    # Watching again later starts from the stored first errors (markers before the next evaluation).
    await receive_until(teacher, "progress", lambda m: m["compiles"] is False)
    await teacher.send_json_to({"type": "watch", "participant": ada.id})
    again = await receive_until(teacher, "watching")
    assert again["errors"] and again["errors"][0]["line"] == errors[0]["line"]
    await student.disconnect()
    await teacher.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_student_gets_the_playground_results_of_their_sample_requests():
    room, _ = await async_open_room()
    _, ada_token, _ = await async_join(room["code"], "Ada")
    student, welcome = await student_socket(room["code"], ada_token)
    evaluation = await receive_until(student, "evaluation")
    requests = evaluation["requests"]
    assert [r["id"] for r in requests] == [r["id"] for r in welcome["fork"]["project"]["requests"]]
    first = requests[0]
    # The engine's whole result, as the playground's results pane shows it: decision, tuples, trace.
    assert {"allowed", "policies", "kubectl", "summary"} <= set(first["result"])
    assert first["result"]["policies"], "the tuple table and trace have their rows"
    assert first["outcome"] == "allowed" and first["result"]["allowed"] is True  # the starter lets it through
    assert first["verdict"] == "fail"  # its expectation (denied) is not met yet
    assert list(evaluation["typecheck"]) == ["demo-policy.example.com"]  # and the type checks, as in the playground
    await student.disconnect()


# -- the shipped sets, from the export format -------------------------------------------------------------


def test_the_shipped_file_is_the_export_format_and_reads_back_unchanged():
    text = (catalog.SETS_DIR / "admission-basics.yaml").read_text()
    content = authoring.checked_set(text, "admission-basics")  # validated like an import
    assert len(content["exercises"]) == 7
    assert authoring.dump_set(authoring._file_content(content)) in text  # what an export writes, after a comment


@pytest.mark.django_db
def test_load_workshops_reads_the_yaml_files_validated_like_an_import(tmp_path, monkeypatch):
    call_command("load_workshops")
    stored = ExerciseSet.objects.get(slug="admission-basics")
    assert stored.exercises.count() == 7

    shutil.copy(catalog.SETS_DIR / "admission-basics.yaml", tmp_path / "good.yaml")
    broken = (catalog.SETS_DIR / "admission-basics.yaml").read_text().replace("slug: admission-basics", "slug: broken")
    broken = broken.replace("- expression: object.spec.replicas <= 5", '- expression: "true"', 1)
    (tmp_path / "broken.yaml").write_text(broken)
    monkeypatch.setattr(catalog, "SETS_DIR", tmp_path)
    with pytest.raises(CommandError, match="broken.yaml: exercise 1 .*the solution fails"):
        call_command("load_workshops")
    assert not ExerciseSet.objects.filter(slug="broken").exists()
