"""Every WebSocket message type answers hostile fields with an `error` message, and the socket stays open."""

from __future__ import annotations

import json

import pytest

from tests.playground import hostile
from tests.playground.test_consumer import connect, make_project, receive_until
from tests.playground.workshops.workshop_fixtures import async_join, async_open_room, student_socket, teacher_socket
from tests.playground.workshops.workshop_fixtures import receive_until as receive_workshop

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def warm_workers():
    from playground.evaluation import pool

    assert pool.wait_until_started()


# message type -> a valid message as JSON text with {placeholders} for real ids, and the fields to spoil
PROJECT = {
    "hello": ('{"type": "hello", "version": 1}', {"version": hostile.FOR_INT}),
    "edit": (
        '{"type": "edit", "target": "document", "id": {document}, "text": "a: 1", "name": "n", '
        '"expected": null, "clientSeq": 1}',
        {
            "target": hostile.FOR_STRING,
            "id": hostile.FOR_INT,
            "text": hostile.FOR_STRING,
            "name": hostile.FOR_STRING,
            "clientSeq": hostile.FOR_INT,
        },
    ),
    "create": (
        '{"type": "create", "target": "request", "name": "n", "text": "", "expected": null}',
        {
            "target": hostile.FOR_STRING,
            "name": hostile.FOR_STRING,
            "text": hostile.FOR_STRING,
            "expected": {k: v for k, v in hostile.FOR_OBJECT.items()},
        },
    ),
    "delete": (
        '{"type": "delete", "target": "document", "id": {document}}',
        {"target": hostile.FOR_STRING, "id": hostile.FOR_INT},
    ),
    "rename": (
        '{"type": "rename", "target": "document", "id": {document}, "name": "x"}',
        {"name": hostile.FOR_STRING, "id": hostile.FOR_INT},
    ),
    "meta": (
        '{"type": "meta", "title": "t", "description": "d"}',
        {"title": hostile.FOR_STRING, "description": hostile.FOR_STRING},
    ),
    "evaluate": ('{"type": "evaluate", "clientSeq": 1}', {"clientSeq": hostile.FOR_INT, "type": hostile.FOR_STRING}),
}
STUDENT = {
    "edit": (
        '{"type": "edit", "target": "document", "id": {document}, "text": "a: 1", "clientSeq": 1}',
        {"target": hostile.FOR_STRING, "id": hostile.FOR_INT, "text": hostile.FOR_STRING, "clientSeq": hostile.FOR_INT},
    ),
    "ping": ('{"type": "ping", "clientSeq": 1}', {"clientSeq": hostile.FOR_INT}),
}
TEACHER = {
    "watch": ('{"type": "watch", "participant": 1}', {"participant": hostile.FOR_INT}),
    "announce": ('{"type": "announce", "text": "hi"}', {"text": hostile.FOR_STRING}),
    "advance": ('{"type": "advance", "position": 0}', {"position": hostile.FOR_INT}),
    "present": (
        '{"type": "present", "title": "t", "documents": null}',
        {"title": hostile.FOR_STRING, "documents": {k: v for k, v in hostile.FOR_OBJECT.items() if k != "list"}},
    ),
}
RAW = {
    "not-json": "{not json",
    "array": "[1]",
    "nan": "NaN",
    "deep": hostile.DEEP,
    "huge": "1" + "0" * 5000,
    "surrogate": '"\\ud800"',
    "no-type": "{}",
    "binary": None,
}


def spoil(template: str, field: str, fragment: str, ids: dict) -> str:
    """The message with one field's value replaced by the fragment (a JSON text, valid or not)."""
    message = json.loads(template.replace("{document}", str(ids["document"])))
    message[field] = "@@"
    return json.dumps(message).replace('"@@"', fragment)


async def assert_each_is_an_error_and_the_socket_lives(ws, texts, alive, receive):
    for text in texts:
        if text is None:
            await ws.send_to(bytes_data=b"\xff\xfe")
        else:
            await ws.send_to(text_data=text)
        error = await receive(ws, "error")
        assert error["error"]["code"] in {
            "invalid_json",
            "invalid_message",
            "invalid_request",
            "invalid_expected",
            "too_large",
            "not_found",
            "forbidden",
        }, (text[:80] if text else text, error)
        assert not isinstance(error.get("clientSeq"), (float, str)), error
    await alive(ws)


def cases(table):
    return [pytest.param(kind, field, id=f"{kind}-{field}") for kind, (_, fields) in table.items() for field in fields]


@pytest.mark.parametrize("kind, field", cases(PROJECT))
async def test_project_room_messages(kind, field):
    state, token = await make_project()
    ws = await connect(state["id"], token)
    await receive_until(ws, "done")
    template, fields = PROJECT[kind]
    texts = [
        spoil(template, field, fragment, {"document": state["documents"][0]["id"]})
        for fragment in fields[field].values()
    ]

    async def receive(ws, kind):
        return (await receive_until(ws, kind))[0]

    async def alive(ws):
        await ws.send_json_to({"type": "hello", "version": -1})
        message, _ = await receive_until(ws, "state")
        assert message["project"]["id"] == state["id"]

    await assert_each_is_an_error_and_the_socket_lives(ws, texts, alive, receive)
    await ws.disconnect()


async def test_project_room_raw_frames_and_oversized_messages(settings):
    settings.PLAYGROUND_MAX_DOCUMENT_BYTES = 1000
    state, token = await make_project()
    ws = await connect(state["id"], token)
    await receive_until(ws, "done")

    async def receive(ws, kind):
        return (await receive_until(ws, kind))[0]

    async def alive(ws):
        await ws.send_json_to({"type": "hello", "version": -1})
        await receive_until(ws, "state")

    texts = list(RAW.values()) + ['{"type": "edit", "target": "document", "id": 1, "text": "' + "x" * 70_000 + '"}']
    await assert_each_is_an_error_and_the_socket_lives(ws, texts, alive, receive)
    await ws.disconnect()


@pytest.mark.parametrize("kind, field", cases(STUDENT))
async def test_student_messages(kind, field):
    room, _ = await async_open_room()
    _, token, _ = await async_join(room["code"])
    ws, welcome = await student_socket(room["code"], token)
    document = welcome["fork"]["project"]["documents"][0]
    template, fields = STUDENT[kind]
    texts = [spoil(template, field, fragment, {"document": document["id"]}) for fragment in fields[field].values()]

    async def alive(ws):
        await ws.send_json_to({"type": "ping"})
        await receive_workshop(ws, "pong")

    await assert_each_is_an_error_and_the_socket_lives(ws, texts + list(RAW.values()), alive, receive_workshop)
    await ws.disconnect()


@pytest.mark.parametrize("kind, field", cases(TEACHER))
async def test_teacher_messages(kind, field):
    room, teacher_token = await async_open_room()
    ws, _ = await teacher_socket(room["code"], teacher_token)
    template, fields = TEACHER[kind]
    texts = [spoil(template, field, fragment, {"document": 0}) for fragment in fields[field].values()]

    async def alive(ws):
        await ws.send_json_to({"type": "hello"})
        await receive_workshop(ws, "dashboard")

    await assert_each_is_an_error_and_the_socket_lives(ws, texts + list(RAW.values()), alive, receive_workshop)
    await ws.disconnect()
