"""A locking time box that is over makes the student's fork read-only on every path: the project REST
endpoints and the project (co-editing) socket refuse edits too, not only the workshop socket."""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone
from rest_framework.test import APIClient

from playground.workshops.models import Room
from playground.workshops.services import participants, rooms
from tests.playground.test_consumer import connect, receive_until
from tests.playground.workshops.workshop_fixtures import join, open_room

LOCKED = "the time for this exercise is up: the teacher locked the editors"


def student_fork(*, minutes: int = 5, locks: bool = True, over: bool = True) -> dict:
    """A student's fork in a room whose time box (if `over`) ended a minute ago."""
    room, token = open_room()
    rooms.set_time_box(code=room["code"], token=token, minutes=minutes, locks=locks)
    if over:
        Room.objects.filter(code=room["code"]).update(position_started=timezone.now() - timedelta(minutes=minutes + 1))
    participant, _, _ = join(room["code"])
    return {**participants.student_state(participant)["fork"], "room": room, "teacher": token}


def put_text(fork: dict, text: str):
    document = fork["project"]["documents"][0]
    return APIClient().put(
        f"/api/v1/projects/{fork['projectId']}/documents/{document['id']}",
        {"text": text},
        format="json",
        HTTP_X_EDIT_TOKEN=fork["editToken"],
    )


@pytest.mark.django_db
def test_rest_edits_of_a_locked_fork_are_refused():
    fork = student_fork()
    client, auth = APIClient(), {"HTTP_X_EDIT_TOKEN": fork["editToken"]}
    project = f"/api/v1/projects/{fork['projectId']}"
    document = fork["project"]["documents"][0]
    answers = [
        put_text(fork, "a: 1"),
        client.post(f"{project}/documents", {"name": "x", "text": "a: 1"}, format="json", **auth),
        client.delete(f"{project}/documents/{document['id']}", **auth),
        client.patch(project, {"title": "mine"}, format="json", **auth),
    ]
    for answer in answers:
        assert answer.status_code == 403, answer.content
        assert answer.json()["error"]["code"] == "time_up"
        assert answer.json()["error"]["message"] == LOCKED
    after = client.get(f"{project}/documents/{document['id']}").json()
    assert after["text"] == document["text"]  # nothing was saved


@pytest.mark.django_db
@pytest.mark.parametrize("box", [{"locks": False}, {"over": False}], ids=["informs-only", "time-left"])
def test_the_fork_stays_editable_unless_the_box_locks_and_is_over(box):
    assert put_text(student_fork(**box), "a: 1").status_code == 200


@pytest.mark.django_db
def test_only_the_current_exercise_is_locked():
    fork = student_fork()
    rooms.advance(code=fork["room"]["code"], token=fork["teacher"])  # the next exercise has no time box
    assert put_text(fork, "a: 1").status_code == 200


@pytest.mark.django_db
def test_other_projects_are_not_concerned():
    fork = student_fork()
    created = APIClient().post("/api/v1/projects", {"title": "mine"}, format="json").json()
    assert (
        APIClient()
        .patch(
            f"/api/v1/projects/{created['id']}",
            {"title": "still mine"},
            format="json",
            HTTP_X_EDIT_TOKEN=created["editToken"],
        )
        .status_code
        == 200
    )
    assert put_text(fork, "a: 1").status_code == 403


@pytest.mark.django_db(transaction=True)
async def test_the_project_socket_refuses_edits_and_pushes_of_a_locked_fork():
    fork = await database_sync_to_async(student_fork)()
    document = fork["project"]["documents"][0]
    ws = await connect(fork["projectId"], fork["editToken"])
    await receive_until(ws, "state")
    messages = [
        {"type": "edit", "target": "document", "id": document["id"], "text": "a: 1", "clientSeq": 1},
        {
            "type": "push",
            "target": "document",
            "id": document["id"],
            "version": document["collabVersion"],
            "updates": [{"clientID": "c1", "changes": [0, [0, "x"]]}],
            "clientSeq": 2,
        },
    ]
    for seq, message in enumerate(messages, 1):
        await ws.send_json_to(message)
        error, _ = await receive_until(ws, "error", lambda m, seq=seq: m.get("clientSeq") == seq)
        assert (error["error"]["code"], error["error"]["status"], error["error"]["message"]) == (
            "time_up",
            403,
            LOCKED,
        ), error
    await ws.disconnect()
