"""Shared helpers of the workshop tests: a room on the shipped set, joins, socket helpers."""

from __future__ import annotations

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from playground.asgi import application
from playground.workshops.services import participants, rooms

SET = "admission-basics"
TIMEOUT = 15
HOST = [(b"host", b"localhost"), (b"origin", b"http://localhost")]
FIXED_EXPRESSION = "expression: object.spec.replicas <= 5"
STARTER_EXPRESSION = 'expression: "true"'


def open_room() -> tuple[dict, str]:
    return rooms.create_room(set_slug=SET, title="Tuesday class")


def join(code: str, name: str = "Ada", token: str | None = None):
    participant, token, resumed = participants.join(code=code, display_name=name, token=token)
    return participant, token, resumed


async def connect(path: str) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path, headers=HOST)
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    return communicator


async def teacher_socket(code: str, token: str) -> tuple[WebsocketCommunicator, dict]:
    ws = await connect(f"/ws/rooms/{code}/teacher/")
    await ws.send_json_to({"type": "hello", "token": token})  # the token in the first message, never the URL
    first = await ws.receive_json_from(timeout=TIMEOUT)
    assert first["type"] == "dashboard", first
    return ws, first


async def student_socket(code: str, token: str) -> tuple[WebsocketCommunicator, dict]:
    ws = await connect(f"/ws/rooms/{code}/student/")
    await ws.send_json_to({"type": "hello", "token": token})  # the token in the first message, never the URL
    first = await ws.receive_json_from(timeout=TIMEOUT)
    assert first["type"] == "welcome", first
    return ws, first


async def receive_until(ws: WebsocketCommunicator, kind: str, predicate=lambda m: True) -> dict:
    while True:
        message = await ws.receive_json_from(timeout=TIMEOUT)
        if message["type"] == kind and predicate(message):
            return message


async def async_open_room():
    return await database_sync_to_async(open_room)()


async def async_join(code: str, name: str = "Ada", token: str | None = None):
    return await database_sync_to_async(join)(code, name, token)


def policy_document(welcome: dict) -> dict:
    return welcome["fork"]["project"]["documents"][0]
